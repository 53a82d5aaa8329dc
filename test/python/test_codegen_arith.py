"""codegen of arith: integer ops, comparisons, casts, float min/max with NaN, vs numpy."""

from __future__ import annotations


import numpy as np
import pytest
from codegen_helpers import elementwise, jit, module_of

from codegen.jit import JitModule


# ---------------------------------------------------------------------------------------
# arith: integer ops, comparisons, casts, float min/max with NaN

INT_BINARY = {
    "addi": lambda a, b: a + b,
    "subi": lambda a, b: a - b,
    "muli": lambda a, b: a * b,
    "divsi": lambda a, b: np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b)),
    "divui": None,
    "remsi": lambda a, b: np.fmod(a, b),
    "remui": None,
    "floordivsi": lambda a, b: a // b,
    "ceildivsi": lambda a, b: -((-a) // b),
    "ceildivui": None,
    "maxsi": np.maximum,
    "minsi": np.minimum,
    "maxui": None,
    "minui": None,
    "andi": np.bitwise_and,
    "ori": np.bitwise_or,
    "xori": np.bitwise_xor,
}
UNSIGNED = {
    "divui": lambda a, b: a // b,
    "remui": lambda a, b: a % b,
    "ceildivui": lambda a, b: a // b + (a % b != 0),
    "maxui": np.maximum,
    "minui": np.minimum,
}
CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]
FMINMAX = ["maximumf", "minimumf", "maxnumf", "minnumf"]
CASTS = [
    ("sitofp_i64_f64", "i64", "f64", "arith.sitofp %a0 : i64 to f64"),
    ("sitofp_i32_f32", "i32", "f32", "arith.sitofp %a0 : i32 to f32"),
    ("uitofp_i64_f64", "i64", "f64", "arith.uitofp %a0 : i64 to f64"),
    ("uitofp_i1_f32", "i1", "f32", "arith.uitofp %a0 : i1 to f32"),
    ("uitofp_i32_f32", "i32", "f32", "arith.uitofp %a0 : i32 to f32"),
    ("fptosi_f64_i64", "f64", "i64", "arith.fptosi %a0 : f64 to i64"),
    ("fptosi_f32_i32", "f32", "i32", "arith.fptosi %a0 : f32 to i32"),
    ("fptoui_f64_i64", "f64", "i64", "arith.fptoui %a0 : f64 to i64"),
    ("extf", "f32", "f64", "arith.extf %a0 : f32 to f64"),
    ("truncf", "f64", "f32", "arith.truncf %a0 : f64 to f32"),
    ("extsi", "i32", "i64", "arith.extsi %a0 : i32 to i64"),
    ("extui", "i32", "i64", "arith.extui %a0 : i32 to i64"),
    ("extui_i1", "i1", "i32", "arith.extui %a0 : i1 to i32"),
    ("trunci", "i64", "i8", "arith.trunci %a0 : i64 to i8"),
    ("bitcast", "f32", "i32", "arith.bitcast %a0 : f32 to i32"),
]


def _arith_module() -> str:
    funcs = []
    for op in INT_BINARY:
        funcs.append(elementwise(f"{op}_i64", ["i64", "i64"], "i64", f"%r = arith.{op} %a0, %a1 : i64"))
    for pred in CMPI:
        funcs.append(elementwise(f"cmpi_{pred}", ["i32", "i32"], "i1", f"%r = arith.cmpi {pred}, %a0, %a1 : i32"))
    for pred in CMPF:
        funcs.append(elementwise(f"cmpf_{pred}", ["f64", "f64"], "i1", f"%r = arith.cmpf {pred}, %a0, %a1 : f64"))
    for op in FMINMAX:
        funcs.append(elementwise(f"{op}", ["f32", "f32"], "f32", f"%r = arith.{op} %a0, %a1 : f32"))
    for name, src, dst, expr in CASTS:
        funcs.append(elementwise(name, [src], dst, f"%r = {expr}"))
    funcs.append(
        elementwise(
            "shifts",
            ["i64", "i64"],
            "i64",
            "%s1 = arith.shli %a0, %a1 : i64\n      %s2 = arith.shrsi %a0, %a1 : i64\n"
            "      %s3 = arith.shrui %a0, %a1 : i64\n      %x1 = arith.xori %s1, %s2 : i64\n"
            "      %r = arith.addi %x1, %s3 : i64",
        )
    )
    funcs.append(
        elementwise(
            "select_mix",
            ["i1", "f64", "f64"],
            "f64",
            "%neg = arith.negf %a1 : f64\n      %t = arith.constant true\n      %c = arith.xori %a0, %t : i1\n"
            "      %s = arith.select %c, %neg, %a2 : f64\n      %q = arith.divf %s, %a2 : f64\n"
            "      %r = arith.subf %q, %a1 : f64",
        )
    )
    return module_of(*funcs)


@pytest.fixture(scope="module")
def arithmod() -> JitModule:
    return jit(_arith_module())


@pytest.mark.parametrize("op", sorted(INT_BINARY))
def test_arith_integer(arithmod, op):
    rng = np.random.default_rng(3)
    n = 200
    a = rng.integers(-1000, 1000, n).astype(np.int64)
    b = rng.integers(-50, 50, n).astype(np.int64)
    b[b == 0] = 7
    a[:4], b[:4] = [7, -7, 7, -7], [2, 2, -2, -2]
    out = np.zeros(n, np.int64)
    arithmod.callable(f"{op}_i64")(n, a, b, out)
    if INT_BINARY[op] is None:
        au, bu = a.view(np.uint64), b.view(np.uint64)
        want = UNSIGNED[op](au, bu).astype(np.uint64).view(np.int64)
    else:
        want = INT_BINARY[op](a, b)
    assert (out == want).all(), (op, a[out != want][:5], b[out != want][:5], out[out != want][:5])


def test_arith_shifts(arithmod):
    a = np.array([1, -1, 12345, -98765, 2**40], np.int64)
    s = np.array([0, 3, 5, 63, 20], np.int64)
    out = np.zeros(5, np.int64)
    arithmod.callable("shifts")(5, a, s, out)
    with np.errstate(over="ignore"):
        want = ((a << s) ^ (a >> s)) + (a.view(np.uint64) >> s.view(np.uint64)).view(np.int64)
    assert (out == want).all()


@pytest.mark.parametrize("pred", CMPI)
def test_arith_cmpi(arithmod, pred):
    a = np.array([1, -1, 5, 0, -7, 3], np.int32)
    b = np.array([1, 2, -5, 0, -7, 4], np.int32)
    out = np.zeros(6, np.bool_)
    arithmod.callable(f"cmpi_{pred}")(6, a, b, out)
    u, v = (a.view(np.uint32), b.view(np.uint32)) if pred[0] == "u" else (a, b)
    ops = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}
    want = ops[pred[-2:] if pred not in ("eq", "ne") else pred](u, v)
    assert (out == want).all()


@pytest.mark.parametrize("pred", CMPF)
def test_arith_cmpf(arithmod, pred):
    a = np.array([1.0, np.nan, 2.0, np.nan, -0.0, np.inf, 3.0])
    b = np.array([1.0, 1.0, np.nan, np.nan, 0.0, np.inf, -3.0])
    out = np.zeros(7, np.bool_)
    arithmod.callable(f"cmpf_{pred}")(7, a, b, out)
    unordered = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": (a != b) & ~unordered}
    if pred == "false":
        want = np.zeros(7, bool)
    elif pred == "true":
        want = np.ones(7, bool)
    elif pred == "ord":
        want = ~unordered
    elif pred == "uno":
        want = unordered
    elif pred[0] == "o":
        want = base[pred[1:]] & ~unordered
    else:
        want = base[pred[1:]] | unordered
    assert (out == want).all(), (pred, out, want)


def test_arith_float_min_max(arithmod):
    a = np.array([1.0, np.nan, 2.0, -0.0, 5.0], np.float32)
    b = np.array([2.0, 1.0, np.nan, 0.0, -5.0], np.float32)
    out = np.zeros(5, np.float32)
    for op, want in [
        ("maximumf", np.maximum(a, b)),
        ("minimumf", np.minimum(a, b)),
        ("maxnumf", np.fmax(a, b)),
        ("minnumf", np.fmin(a, b)),
    ]:
        arithmod.callable(op)(5, a, b, out)
        ok = (np.isnan(out) & np.isnan(want)) | (out == want)
        assert ok.all(), (op, out, want)
    arithmod.callable("maximumf")(5, a, b, out)
    assert not np.signbit(out[3])  # maximum(-0, +0) = +0


def test_arith_casts(arithmod):
    big = np.array([0, 1, -1, 2**62, -(2**63), 2**53 + 1, 12345], np.int64)
    f = np.array([0.0, 1.9, -1.9, 1e9, -1e9, 123.5, -0.5])
    u = np.array([0.0, 1.9, 1e19, 2.0**63, 123.0, 0.5, 7.0])
    cases = [
        ("sitofp_i64_f64", big, big.astype(np.float64)),
        ("sitofp_i32_f32", big.astype(np.int32), big.astype(np.int32).astype(np.float32)),
        ("uitofp_i64_f64", big, big.view(np.uint64).astype(np.float64)),
        ("uitofp_i1_f32", big % 2 == 1, (big % 2 == 1).astype(np.float32)),
        ("uitofp_i32_f32", big.astype(np.int32), big.astype(np.int32).view(np.uint32).astype(np.float32)),
        ("fptosi_f64_i64", f, np.trunc(f).astype(np.int64)),
        ("fptosi_f32_i32", f.astype(np.float32), np.trunc(f.astype(np.float32)).astype(np.int32)),
        ("fptoui_f64_i64", u, u.astype(np.uint64).view(np.int64)),
        ("extf", f.astype(np.float32), f.astype(np.float32).astype(np.float64)),
        ("truncf", f, f.astype(np.float32)),
        ("extsi", big.astype(np.int32), big.astype(np.int32).astype(np.int64)),
        ("extui", big.astype(np.int32), big.astype(np.int32).view(np.uint32).astype(np.int64)),
        ("extui_i1", big % 2 == 1, (big % 2 == 1).astype(np.int32)),
        ("trunci", big, big.astype(np.int8)),
        ("bitcast", f.astype(np.float32), f.astype(np.float32).view(np.int32)),
    ]
    for name, x, want in cases:
        out = np.zeros(len(x), want.dtype)
        arithmod.callable(name)(len(x), np.ascontiguousarray(x), out)
        assert (out == want).all(), (name, out, want)


def test_arith_select_bool_input(arithmod):
    c = np.array([True, False, True, False])
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([2.0, 4.0, 8.0, 16.0])
    out = np.zeros(4)
    arithmod.callable("select_mix")(4, c, a, b, out)
    assert np.allclose(out, np.where(~c, -a, b) / b - a, rtol=1e-15)
