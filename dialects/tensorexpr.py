"""The `te` (tensor expression) dialect, in the spirit of NNC and Halide.

A tensor is defined by what one element is, not by how a loop writes it:

    %y = te.compute [%N, %c3] : tensor<?x3xf32> {
    ^bb0(%i: index, %j: index):
      %x = te.load %pos[%i, %j] : tensor<?x3xf32> -> f32
      %e = math.exp %x : f32
      te.yield %e : f32
    }

The body is scalar code over the element's indices; it may read any tensor in scope
with `te.load`. Views (permute, expand, slice, ...) are index arithmetic inside a
body, never copies. `te.reduce` adds reduction axes; `te.scatter` is the update
form shared by index_put, scatter_add, index_add, slice_scatter and friends: the
result is `base` with `result[at(p)] (+)= value(p)` for every point `p` of its space.
`te.index` turns loaded data into an index and checks its range at run time.
`te.scan` is a prefix sum (cumsum) along one dim.
`te.check` is an assertion of the graph, checked at run time like `te.index`.
`te.compact` lists the nonzero positions of a tensor: its count is a size known
only at run time (bounded by the input's size), used as an extent like N and E.

Provenance (only when `lower-aten-to-tensorexpr{provenance=true}` asked for it, as the
compile report does): every top-level te op carries `te.origin = array<i64: ...>`, the
positions of the aten ops it computes in the aten function; passes that fuse ops merge
their origins, so a loop nest says which aten ops it computes.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait, IsTerminator, Pure, RecursivelySpeculatable
from xdsl.utils.exceptions import VerifyException

REDUCE_KINDS = ("add", "mul", "max", "min")
SCATTER_KINDS = ("add", "mul", "max", "min", "assign")


ORIGIN = "te.origin"
SPARSE = "te.sparse"
SPARSE_DIMS = "te.sparse_dims"
"""On a te.reduce unrolled over its nonzero terms (transforms/sparse_contractions.py):
the dims unrolled, and the points, flattened."""
NONZEROS, NONZERO_VALUES = "nonzeros", "values"
"""On a te.weight (and the aten.weight it lowers from) that is a structural constant:
the flat positions of its nonzero elements (frontend.import_fx.structural_nonzeros),
and their values (f64)."""
NESTS = "loops.nests"
"""At the loop level: the top-level te ops (k-th with an origin, in order) a loop nest computes."""


def origin(op: Operation) -> tuple[int, ...] | None:
    """The aten ops (by position in the aten function) `op` computes; None without provenance."""
    attr = op.attributes.get(ORIGIN)
    return tuple(attr.get_values()) if isinstance(attr, DenseArrayBase) else None


def add_origin(op: Operation, ids: Sequence[int] | None) -> None:
    """Add `ids` to op's origin (nothing when there is no provenance)."""
    if ids is not None:
        merge_array(op, ORIGIN, ids)


def merge_array(op: Operation, key: str, ids: Sequence[int]) -> None:
    """op.attributes[key] |= ids, as a sorted i64 array."""
    attr = op.attributes.get(key)
    have = set(attr.get_values()) if isinstance(attr, DenseArrayBase) else set()
    op.attributes[key] = DenseArrayBase.from_list(i64, sorted(have | set(ids)))


def static_extent(v: SSAValue) -> int | None:
    """The size an extent stands for when it is an index constant; None for a symbol."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def plus_constant(v: SSAValue) -> tuple[SSAValue, int] | None:
    """(x, k) when v = x + k for an index constant k (either operand order)."""
    return _with_constant(v, arith.AddiOp)


def times_constant(v: SSAValue) -> tuple[SSAValue, int] | None:
    """(x, c) when v = x * c for an index constant c (either operand order)."""
    return _with_constant(v, arith.MuliOp)


def _with_constant(v: SSAValue, kind: type[arith.AddiOp | arith.MuliOp]) -> tuple[SSAValue, int] | None:
    owner = v.owner
    if isinstance(owner, kind):
        for x, c in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            if (k := static_extent(c)) is not None:
                return x, k
    return None


def dependents(block: Block, arg: SSAValue) -> set[SSAValue]:
    """The values of a body `block` computed from `arg` (itself included)."""
    out = {arg}
    for o in block.ops:
        if any(v in out for v in o.operands):
            out.update(o.results)
    return out


def unit_stride(index: SSAValue, arg: SSAValue, block: Block) -> bool:
    """Whether `index` is `arg` plus terms that do not depend on it: consecutive
    iterations of arg's loop read consecutive elements along that index."""
    if index is arg:
        return True
    owner = index.owner
    if not isinstance(owner, arith.AddiOp):
        return False
    depends = dependents(block, arg)
    return any(unit_stride(a, arg, block) and b not in depends
               for a, b in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)))


def body_slice(values: Sequence[SSAValue], block: Block) -> set[Operation]:
    """The ops of a body `block` that `values` are computed by (directly or not)."""
    ops: set[Operation] = set()
    stack = list(values)
    while stack:
        x = stack.pop()
        if isinstance(x.owner, Operation) and x.owner.parent_block() is block and x.owner not in ops:
            ops.add(x.owner)
            stack.extend(x.owner.operands)
    return ops


def body_args(values: Sequence[SSAValue], block: Block) -> set[SSAValue]:
    """The arguments of a body `block` that `values` depend on."""
    used = {x for o in body_slice(values, block) for x in o.operands} | set(values)
    return {a for a in block.args if a in used}


def constant_fill(op: Operation | None) -> arith.ConstantOp | None:
    """The constant a te.compute yields at every point (zeros, full), or None."""
    if not isinstance(op, ComputeOp):
        return None
    body = list(op.body.block.ops)
    term = body[-1]
    if isinstance(term, YieldOp) and isinstance(c := term.value.owner, arith.ConstantOp) and all(
            isinstance(o, arith.ConstantOp) for o in body[:-1]):
        return c
    return None


def slice_assignment(op: ScatterOp, whole: Sequence[SSAValue]) -> list[tuple[SSAValue, int, int | None]] | None:
    """How a scatter writes a block of its base (`out[:, a:b] = ...`): per base dim d,
    (the body argument indexing it, offset, extent), where the update index is a
    running index (an argument, or `u * C + m` of two arguments, m running over
    [0, C): a dim split-dims split) or one plus a constant offset, each argument used
    in one index; the extent is None when the index runs over the whole dim
    (`whole[d]`, offset 0), else a constant (a block [offset, offset + extent) of d).
    None for any other scatter (an index from data, a diagonal, ...)."""
    block = op.body.block
    term = block.last_op
    assert isinstance(term, UpdateOp)
    if len(whole) != len(term.indices):
        return None
    out: list[tuple[SSAValue, int, int | None]] = []
    used: list[SSAValue] = []
    for d, index in enumerate(term.indices):
        base, offset = index, 0
        shifted = plus_constant(index)
        if shifted is not None and _running(op, shifted[0]) is not None:
            base, offset = shifted
        running = _running(op, base)
        if running is None or any(a in used for a in running[0]):
            return None
        args, extent = running
        used.extend(args)
        n = static_extent(extent) if isinstance(extent, SSAValue) else extent
        if offset == 0 and (extent is whole[d] or n is not None and n == static_extent(whole[d])):
            out.append((args[0], 0, None))
        elif n is None:
            return None
        else:
            out.append((args[0], offset, n))
    return out if len(used) == len(block.args) else None


def _running(op: ScatterOp, v: SSAValue) -> tuple[list[SSAValue], SSAValue | int] | None:
    """The body arguments an update index runs over, and its extent: an argument and
    its extent, or `u * C + m` (m over [0, C), u over a static extent U) and U * C."""
    block = op.body.block
    if v.owner is block:
        return [v], op.extents[v.index]  # type: ignore[attr-defined]
    owner = v.owner
    if not isinstance(owner, arith.AddiOp):
        return None
    for scaled, m in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
        product = times_constant(scaled)
        if m.owner is not block or product is None:
            continue
        u, c = product
        inner = static_extent(op.extents[m.index])  # type: ignore[attr-defined]
        if u.owner is block and u is not m and inner is not None and c == inner:
            outer = static_extent(op.extents[u.index])  # type: ignore[attr-defined]
            return ([u, m], outer * inner) if outer is not None else None
    return None


def _check_body(op: IRDLOperation, block: Block, n_args: int, what: str) -> None:
    if len(block.args) != n_args or any(
        not isinstance(a.type, IndexType) for a in block.args
    ):
        raise VerifyException(f"{op.name}: body must take {n_args} index arguments ({what})")


def _check_extents(op: IRDLOperation, extents: Sequence[SSAValue], t: TensorType) -> None:
    """Constant extents must agree with the static dims of the result type."""
    for k, (e, d) in enumerate(zip(extents, t.get_shape())):
        owner = e.owner
        if d != DYNAMIC_INDEX and isinstance(owner, arith.ConstantOp) and isinstance(
            owner.value, IntegerAttr
        ) and owner.value.value.data != d:
            raise VerifyException(
                f"{op.name}: extent {owner.value.value.data} of dim {k} contradicts the "
                f"static size {d} of {t}"
            )


def _check_yield(op: IRDLOperation, block: Block, elem: Attribute) -> None:
    last = block.last_op
    if not isinstance(last, YieldOp):
        raise VerifyException(f"{op.name}: body must end with te.yield")
    if last.value.type != elem:
        raise VerifyException(
            f"{op.name}: body yields {last.value.type}, the element type is {elem}"
        )


class _ReduceCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from dialects.tensorexpr_canonicalization import DropUnitReductionExtents

        return (DropUnitReductionExtents(),)


class _ScatterCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from dialects.tensorexpr_canonicalization import AssignEverywhereIsCompute

        return (AssignEverywhereIsCompute(),)


class _ComputeCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from dialects.tensorexpr_canonicalization import AddOfPaddedBlockIsScatterAdd, CopyIsItsSource

        return (CopyIsItsSource(), AddOfPaddedBlockIsScatterAdd())


class _DefinesTensor(IRDLOperation):
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    result = result_def(TensorType[Attribute])
    body = region_def("single_block")
    traits = traits_def(Pure(), RecursivelySpeculatable())

    def rank(self) -> int:
        assert isinstance(self.result.type, TensorType)
        return self.result.type.get_num_dims()

    def element_type(self) -> Attribute:
        assert isinstance(self.result.type, TensorType)
        return self.result.type.get_element_type()

    def space(self) -> list[SSAValue]:
        """The extents of the body's index arguments, in order."""
        return list(self.operands[len(self.operands) - len(self.body.block.args):])


@irdl_op_definition
class ComputeOp(_DefinesTensor):
    """A tensor of the given extents, one element per body evaluation."""

    name = "te.compute"
    traits = traits_def(Pure(), RecursivelySpeculatable(), _ComputeCanonicalization())
    extents = var_operand_def(IndexType)
    assembly_format = "` ` `[` $extents `]` attr-dict `:` type($result) $body"

    def __init__(self, extents: list[SSAValue], result_type: TensorType, body: Region):
        super().__init__(
            operands=[extents], result_types=[result_type], regions=[body],
            properties={"operandSegmentSizes": _segments(len(extents))},
        )

    def verify_(self) -> None:
        if len(self.extents) != self.rank():
            raise VerifyException(f"{self.name}: {len(self.extents)} extents for rank {self.rank()}")
        _check_extents(self, self.extents, self.result.type)  # type: ignore[arg-type]
        _check_body(self, self.body.block, self.rank(), "one per dim")
        _check_yield(self, self.body.block, self.element_type())


@irdl_op_definition
class ReduceOp(_DefinesTensor):
    """out[i] = combine over r of body(i, r); `kind` is add, mul, max or min."""

    name = "te.reduce"
    traits = traits_def(Pure(), RecursivelySpeculatable(), _ReduceCanonicalization())
    kind = prop_def(StringAttr)
    extents = var_operand_def(IndexType)
    reduce_extents = var_operand_def(IndexType)
    assembly_format = (
        "$kind ` ` `[` $extents `]` `over` ` ` `[` $reduce_extents `]` attr-dict `:` "
        "type($result) $body"
    )

    def __init__(
        self, kind: str, extents: list[SSAValue], reduce_extents: list[SSAValue],
        result_type: TensorType, body: Region,
    ):
        super().__init__(
            operands=[extents, reduce_extents], result_types=[result_type], regions=[body],
            properties={
                "kind": StringAttr(kind),
                "operandSegmentSizes": _segments(len(extents), len(reduce_extents)),
            },
        )

    def verify_(self) -> None:
        if self.kind.data not in REDUCE_KINDS:
            raise VerifyException(f"{self.name}: kind must be one of {', '.join(REDUCE_KINDS)}")
        if len(self.extents) != self.rank():
            raise VerifyException(f"{self.name}: {len(self.extents)} extents for rank {self.rank()}")
        _check_extents(self, self.extents, self.result.type)  # type: ignore[arg-type]
        _check_body(self, self.body.block, self.rank() + len(self.reduce_extents),
                    "output dims, then reduction dims")
        _check_yield(self, self.body.block, self.element_type())


@irdl_op_definition
class ScatterOp(_DefinesTensor):
    """`base` updated at every point of the space `extents`: `te.update` in the
    body names where and what; `kind` add, mul, max or min combines with the old value, assign overwrites."""

    name = "te.scatter"
    traits = traits_def(Pure(), RecursivelySpeculatable(), _ScatterCanonicalization())
    kind = prop_def(StringAttr)
    base = operand_def(TensorType[Attribute])
    extents = var_operand_def(IndexType)
    assembly_format = (
        "$kind $base `over` ` ` `[` $extents `]` attr-dict `:` type($base) `->` "
        "type($result) $body"
    )

    def __init__(self, kind: str, base: SSAValue, extents: list[SSAValue], body: Region):
        super().__init__(
            operands=[base, extents], result_types=[base.type], regions=[body],
            properties={"kind": StringAttr(kind), "operandSegmentSizes": _segments(1, len(extents))},
        )

    def verify_(self) -> None:
        if self.kind.data not in SCATTER_KINDS:
            raise VerifyException(f"{self.name}: kind must be one of {', '.join(SCATTER_KINDS)}")
        if self.base.type != self.result.type:
            raise VerifyException(f"{self.name}: result type must be the base type")
        _check_body(self, self.body.block, len(self.extents), "one per dim of the update space")
        last = self.body.block.last_op
        if not isinstance(last, UpdateOp):
            raise VerifyException(f"{self.name}: body must end with te.update")
        if len(last.indices) != self.rank():
            raise VerifyException(f"{self.name}: te.update needs {self.rank()} indices")
        if last.value.type != self.element_type():
            raise VerifyException(f"{self.name}: te.update value must be {self.element_type()}")


@irdl_op_definition
class LoadOp(IRDLOperation):
    """One element of a tensor."""

    name = "te.load"
    tensor = operand_def(TensorType[Attribute])
    indices = var_operand_def(IndexType)
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$tensor `[` $indices `]` attr-dict `:` type($tensor) `->` type($result)"

    def __init__(self, tensor: SSAValue, indices: list[SSAValue]):
        assert isinstance(tensor.type, TensorType)
        super().__init__(operands=[tensor, indices], result_types=[tensor.type.get_element_type()])

    def verify_(self) -> None:
        t = self.tensor.type
        assert isinstance(t, TensorType)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException(f"{self.name}: {len(self.indices)} indices for rank {t.get_num_dims()}")
        if self.result.type != t.get_element_type():
            raise VerifyException(f"{self.name}: result must be the element type {t.get_element_type()}")


@irdl_op_definition
class IndexOp(IRDLOperation):
    """An integer read from data, as an index into a dim of size `extent`.

    Out-of-range values are a run-time error reported with `site`; `wrap` makes
    negative values count from the end, as Python indexing does."""

    name = "te.index"
    value = operand_def(IntegerType)
    extent = operand_def(IndexType)
    site = prop_def(IntegerAttr[I64])
    wrap = opt_prop_def(UnitAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value `in` $extent attr-dict `:` type($value)"

    def verify_(self) -> None:
        if self.site.value.data < 1:
            raise VerifyException(f"{self.name}: site must be >= 1 (0 means no error)")

    def __init__(self, value: SSAValue, extent: SSAValue, site: int, wrap: bool = False):
        props: dict[str, Attribute] = {"site": IntegerAttr(site, 64)}
        if wrap:
            props["wrap"] = UnitAttr()
        super().__init__(operands=[value, extent], result_types=[IndexType()], properties=props)


@irdl_op_definition
class WeightOp(IRDLOperation):
    """A named constant tensor held beside the module (parameters, buffers)."""

    name = "te.weight"
    weight_name = prop_def(StringAttr)
    result = result_def(TensorType[Attribute])
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$weight_name attr-dict `:` type($result)"

    def __init__(self, name: str, result_type: TensorType):
        super().__init__(properties={"weight_name": StringAttr(name)}, result_types=[result_type])


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The element a te.compute / te.reduce body defines."""

    name = "te.yield"
    value = operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])


@irdl_op_definition
class UpdateOp(IRDLOperation):
    """Where (`indices` into the base) and what a te.scatter body writes."""

    name = "te.update"
    indices = var_operand_def(IndexType)
    value = operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "` ` `[` $indices `]` `,` $value attr-dict `:` type($value)"

    def __init__(self, indices: list[SSAValue], value: SSAValue):
        super().__init__(operands=[indices, value])


@irdl_op_definition
class CompactOp(IRDLOperation):
    """The positions of the nonzero elements of a 1-d tensor, in order, and their
    count: the one te op whose result size depends on data. The positions tensor
    is sized by its bound (the input's extent); `count` is its extent for readers."""

    name = "te.compact"
    flags = operand_def(TensorType[Attribute])
    extent = operand_def(IndexType)
    positions = result_def(TensorType[Attribute])
    count = result_def(IndexType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$flags `over` $extent attr-dict `:` type($flags) `->` type($positions)"

    def __init__(self, flags: SSAValue, extent: SSAValue):
        super().__init__(operands=[flags, extent], result_types=[TensorType(IntegerType(64), [DYNAMIC_INDEX]), IndexType()])

    def verify_(self) -> None:
        t, p = self.flags.type, self.positions.type
        assert isinstance(t, TensorType) and isinstance(p, TensorType)
        if t.get_num_dims() != 1 or not isinstance(t.get_element_type(), IntegerType):
            raise VerifyException(f"{self.name}: flags must be a 1-d integer (or i1) tensor")
        if p.get_shape() != (DYNAMIC_INDEX,) or p.get_element_type() != IntegerType(64):
            raise VerifyException(f"{self.name}: positions must be tensor<?xi64>")


@irdl_op_definition
class ScanOp(IRDLOperation):
    """Inclusive prefix combination along `dim` (cumsum for kind add): out[.., i, ..] =
    in[.., 0, ..] (+) ... (+) in[.., i, ..]. One sequential pass along the dim."""

    name = "te.scan"
    input = operand_def(TensorType[Attribute])
    kind = prop_def(StringAttr)
    dim = prop_def(IntegerAttr[I64])
    result = result_def(TensorType[Attribute])
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$kind $input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, kind: str, input: SSAValue, dim: int):
        super().__init__(operands=[input], result_types=[input.type],
                         properties={"kind": StringAttr(kind), "dim": IntegerAttr(dim, 64)})

    def verify_(self) -> None:
        t = self.input.type
        assert isinstance(t, TensorType)
        if self.result.type != t:
            raise VerifyException(f"{self.name}: the result has the input's type")
        if self.kind.data not in REDUCE_KINDS:
            raise VerifyException(f"{self.name}: kind must be one of {', '.join(REDUCE_KINDS)}")
        if not 0 <= self.dim.value.data < t.get_num_dims():
            raise VerifyException(f"{self.name}: dim {self.dim.value.data} out of range for rank {t.get_num_dims()}")


@irdl_op_definition
class CheckOp(IRDLOperation):
    """A run-time assertion of the captured graph (torch's _assert_async): when the
    0-d `condition` is false the call fails with the message of `site`. It writes the
    status, so it has an effect: nothing removes or reorders it."""

    name = "te.check"
    condition = operand_def(TensorType[Attribute])
    site = prop_def(IntegerAttr[I64])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$condition attr-dict `:` type($condition)"

    def __init__(self, condition: SSAValue, site: int):
        super().__init__(operands=[condition], properties={"site": IntegerAttr(site, 64)})

    def verify_(self) -> None:
        t = self.condition.type
        assert isinstance(t, TensorType)
        if t.get_num_dims() != 0 or not isinstance(t.get_element_type(), IntegerType):
            raise VerifyException(f"{self.name}: the condition must be a 0-d integer (or i1) tensor")
        if self.site.value.data < 1:
            raise VerifyException(f"{self.name}: site must be >= 1 (0 means no error)")


def _segments(*sizes: int) -> Attribute:
    from xdsl.dialects.builtin import DenseArrayBase, i32

    return DenseArrayBase.from_list(i32, list(sizes))


TensorExpr = Dialect(
    "te",
    [ComputeOp, ReduceOp, ScatterOp, LoadOp, IndexOp, WeightOp, YieldOp, UpdateOp, CompactOp, CheckOp, ScanOp],
    [],
)
