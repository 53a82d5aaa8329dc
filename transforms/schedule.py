"""schedule: choose each te op's loop order and its parallel loop.

The decisions are attributes that lower-tensorexpr-to-loops follows (without them
the loops run in the body's argument order, on one thread):

- `te.order = array<i64: ...>`: the body's index arguments, outermost loop first
  (set only when it is not the argument order);
- `te.parallel = K : i64`: the outermost loop runs on several threads, each taking
  chunks of at least K iterations, enough work to pay for waking the threads.

Loop order. A te.reduce accumulates into its output (loops: dynamic output dims,
reduction dims, static output dims; the i-k-j order of a matmul, whose innermost
loop runs along contiguous output elements and vectorizes) when the last output dim
is static and at least `MIN_ROW` long, the reduction is not a short static one (a
norm over xyz), and its loads run along the last output dim at least as often as
along a reduction dim (`x @ B`, column sums; `x @ W.T` reads both operands along
k and stays a dot product per output element).

Vectors. The innermost loop is the contiguous one, and LLVM's loop vectorizer
picks its width for the host CPU (16 x f32 on AVX-512). An accumulating `x @ B`
with a static row of J outputs is register-blocked instead (`te.vector = w`, w
the widest lane count dividing J that fits a register; `te.tile = [R, C]`): a tile
of R rows x C w-lane slices of J stays in registers across the whole reduction,
where LLVM would load and store the row at every step; each step loads R scalars
of x and C slices of B for R x C multiply-adds (the 2-d register tile of a GEMM
micro-kernel; B is a small weight, already contiguous along J: no packing).

Parallel loop. The outermost loop, when it is an output dim sized by a symbol (N,
E; static dims are short): never a reduction loop, which carries its accumulator;
and only when an iteration does at least MIN_PARALLEL_WORK / MAX_CHUNK units of
work: a lighter loop (a bias add) saves a fraction of a percent on threads, while
each parallel loop costs an outlined function and a launcher at compile time.
A scatter's updates may collide, so its threads split the base instead
(`te.partition = d`: dim d, indexed by data and sized by a symbol, in one row
block per thread); each thread scans the whole update space and applies the
updates landing in its block, so every row sums in the sequential order. A
scatter whose update lands in row i of the base at iteration i of its outermost
loop (a slice assignment: `out[e, j + 32] = ...` over [E, 96]) cannot collide
across that loop, which then runs on threads as a compute's does.

Measured choices. An op marked `te.tuned` (by `pipeline/tune.py`, which timed the
candidates of `tile_candidates`) keeps the te.order, te.vector and te.tile it
carries (none of the last two: no register tile); only its parallel loop is chosen.
So does a reduction unrolled over its nonzero terms (`te.sparse`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.passes import ModulePass

from dialects import tensorexpr as te
from transforms.cost_model import body_cost

MIN_ROW = 8  # a vector of f32 at least
SHORT_REDUCTION = 8  # static reductions shorter than this stay innermost
MIN_PARALLEL_WORK = 20_000  # cost units per thread (~10 us) before threads pay off
MAX_CHUNK = 512  # a loop needing more iterations per thread is too light to be worth its code


def loop_order(op: te.ComputeOp | te.ReduceOp | te.ScatterOp) -> list[int]:
    """The body's arguments, outermost loop first."""
    n = len(op.body.block.args)
    if not isinstance(op, te.ReduceOp):
        return list(range(n))
    extents = list(op.extents)
    rank = len(extents)
    red = list(op.reduce_extents)
    if not extents or (te.static_extent(extents[-1]) or 0) < MIN_ROW:
        return list(range(n))
    if all((r := te.static_extent(e)) is not None and r < SHORT_REDUCTION for e in red):
        return list(range(n))
    block = op.body.block
    last_out, reduction = block.args[rank - 1], block.args[rank:]
    lasts = [o.indices[-1] for o in block.walk() if isinstance(o, te.LoadOp) and o.indices]
    along_out = sum(1 for v in lasts if te.unit_stride(v, last_out, block))
    along_red = sum(1 for v in lasts if any(te.unit_stride(v, r, block) for r in reduction))
    if along_out == 0 or along_out < along_red:
        return list(range(n))
    static = [d for d, e in enumerate(extents) if te.static_extent(e) is not None]
    dynamic = [d for d in range(rank) if d not in static]
    return dynamic + list(range(rank, n)) + static


VECTOR_OPS = ("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
              "arith.maximumf", "arith.minimumf", "arith.constant")


@functools.cache
def host_vector_bits() -> int:
    """The widest SIMD register of this CPU: 512 (AVX-512), 256 (AVX) or 128."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    features = llvm.get_host_cpu_features()
    return 512 if features.get("avx512f") else 256 if features.get("avx") else 128


def vector_registers(bits: int) -> int:
    """Architectural SIMD registers: 32 with AVX-512, 16 with AVX/AVX2 or SSE (x86-64)."""
    return 32 if bits >= 512 else 16


def vector_width(op: te.ComputeOp | te.ReduceOp | te.ScatterOp, order: list[int], bits: int) -> int | None:
    """Lanes of a register-blocked `x @ B` (`te.vector`): an accumulating te.reduce
    whose one static output dim J is innermost and whose values along J are loads
    along J (their last index J plus terms without J, and J nowhere else: unit
    stride) and float arithmetic; what does not vary along J may be anything (a
    fused activation of x, a checked gather).
    w: the widest lane count that divides J."""
    if not isinstance(op, te.ReduceOp) or not order or order[-1] != op.rank() - 1:
        return None
    t = op.element_type()
    width = {"f32": 32, "f64": 64}.get(str(t))
    j_extent = te.static_extent(op.extents[-1])
    if width is None or j_extent is None or order == sorted(order):
        return None
    if any(te.static_extent(op.extents[d]) is not None for d in order[:-1] if d < op.rank()):
        return None  # one static output dim only: the row
    block = op.body.block
    j = block.args[op.rank() - 1]
    along = te.dependents(block, j)
    for inner in block.ops:
        if isinstance(inner, te.YieldOp) or not any(v in along for v in inner.results):
            continue
        if isinstance(inner, te.LoadOp):
            if any(i in along for i in inner.indices[:-1]) or not te.unit_stride(inner.indices[-1], j, block):
                return None
        elif inner.name not in VECTOR_OPS and not (
            isinstance(inner, arith.AddiOp | arith.MuliOp) and isinstance(inner.result.type, IndexType)
        ):
            return None
    for lanes in (16, 8, 4, 2):
        if lanes * width <= bits and j_extent % lanes == 0:
            return lanes
    return None


MAX_TILE_ROWS = 8


def register_tile(op: te.ReduceOp, order: list[int], lanes: int, registers: int) -> tuple[int, int]:
    """(rows, vectors) of the register tile of a `te.vector` reduction: `rows`
    consecutive iterations of the loop just outside the reduction (the rows of x)
    times `vectors` w-lane slices of J accumulate in registers across the whole
    reduction. Per reduction step a tile loads `rows` scalars (broadcast) and
    `vectors` slices of B for rows x vectors multiply-adds, so the tile maximizes
    that ratio with rows x vectors accumulators + vectors + 1 registers; J is
    walked in tiles of `vectors` slices (which must divide J / w)."""
    slices = (te.static_extent(op.extents[-1]) or lanes) // lanes
    outer = next((k for k, d in enumerate(order) if d >= op.rank()), len(order))
    max_rows = MAX_TILE_ROWS if outer >= 1 and order[outer - 1] < op.rank() - 1 else 1
    best, best_score = (1, 1), 0.0
    for vectors in range(1, slices + 1):
        if slices % vectors:
            continue
        for rows in range(1, max_rows + 1):
            if rows * vectors + vectors + 1 > registers:
                break
            score = rows * vectors / (rows + vectors)
            if score > best_score + 1e-9:
                best, best_score = (rows, vectors), score
    return best


MAX_TILE_CANDIDATES = 6


def tile_candidates(op: te.ReduceOp, order: list[int], bits: int) -> list[tuple[int, int, int]]:
    """(lanes, rows, vectors) worth timing for a `te.vector` reduction: the widest lanes
    and half of them, each with its register tiles best by `register_tile`'s ratio
    (every tile that fits the registers, up to MAX_TILE_CANDIDATES per width), and
    (0, 0, 0): no register tile, LLVM's loop vectorizer on the same loop order.
    The heuristic's choice comes first."""
    widest = vector_width(op, order, bits)
    if widest is None:
        return []
    heuristic = (widest, *register_tile(op, order, widest, vector_registers(bits)))
    slices_of = (te.static_extent(op.extents[-1]) or widest) // widest
    outer = next((k for k, d in enumerate(order) if d >= op.rank()), len(order))
    max_rows = MAX_TILE_ROWS if outer >= 1 and order[outer - 1] < op.rank() - 1 else 1
    registers = vector_registers(bits)
    out = [heuristic]
    for lanes in (widest, widest // 2):
        if lanes < 2:
            continue
        slices = slices_of * widest // lanes
        tiles = [(rows * vectors / (rows + vectors), rows, vectors)
                 for vectors in range(1, slices + 1) if slices % vectors == 0
                 for rows in range(1, max_rows + 1) if rows * vectors + vectors + 1 <= registers]
        for _, rows, vectors in sorted(tiles, reverse=True)[:MAX_TILE_CANDIDATES]:
            if (lanes, rows, vectors) not in out:
                out.append((lanes, rows, vectors))
    return out + [(0, 0, 0)]


def partition_dim(op: te.ScatterOp) -> int | None:
    """The base dim a scatter's threads split (`te.partition`): one indexed by data
    (te.index), sized by a symbol, over an update space whose outermost loop is too."""
    update = op.body.block.last_op
    assert isinstance(update, te.UpdateOp)
    space = op.space()
    if not space or te.static_extent(space[0]) is not None:
        return None
    for d, (index, extent) in enumerate(zip(update.indices, _base_extents(op))):
        if isinstance(index.owner, te.IndexOp) and extent is None:
            return d
    return None


def rows_disjoint(op: te.ScatterOp) -> bool:
    """Iteration i of the outermost loop (sized by a symbol) updates row i of the
    base and no other: different iterations never touch the same element."""
    space = op.space()
    if not space or te.static_extent(space[0]) is not None:
        return False
    update = op.body.block.last_op
    assert isinstance(update, te.UpdateOp)
    return op.body.block.args[0] in update.indices


def _base_extents(op: te.ScatterOp) -> list[int | None]:
    t = op.base.type
    assert isinstance(t, TensorType)
    return [None if d == DYNAMIC_INDEX else d for d in t.get_shape()]


def min_chunk(op: te.ComputeOp | te.ReduceOp | te.ScatterOp, order: list[int]) -> int | None:
    """Iterations of the outermost loop per thread chunk, or None to stay sequential.
    (A partitioned scatter: the outermost iterations per thread worth a thread.)"""
    if not order:
        return None
    space = op.space()
    if isinstance(op, te.ScatterOp):
        if partition_dim(op) is None and not rows_disjoint(op):
            return None
    elif order[0] >= op.rank() or te.static_extent(space[order[0]]) is not None:
        return None
    work = max(body_cost(op), 1)
    for d in order[1:]:
        work *= te.static_extent(space[d]) or 1
    chunk = max(1, -(-MIN_PARALLEL_WORK // work))
    return chunk if chunk <= MAX_CHUNK else None


TUNED = "te.tuned"


@dataclass(frozen=True)
class SchedulePass(ModulePass):
    name = "schedule"

    vector_bits: int = 0
    """SIMD register width for `te.vector` (0: this CPU's)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp) or fn.is_declaration:
                continue
            for o in fn.body.block.ops:
                if not isinstance(o, (te.ComputeOp, te.ReduceOp, te.ScatterOp)):
                    continue
                if TUNED in o.attributes or te.SPARSE in o.attributes:  # measured, or unrolled over its nonzeros
                    self.parallel(o)
                    continue
                order = loop_order(o)
                if order != sorted(order):
                    o.attributes["te.order"] = DenseArrayBase.from_list(i64, order)
                bits = self.vector_bits or host_vector_bits()
                lanes = vector_width(o, order, bits)
                chunk = min_chunk(o, order)
                if lanes is not None:
                    assert isinstance(o, te.ReduceOp)
                    rows, vectors = register_tile(o, order, lanes, vector_registers(bits))
                    o.attributes["te.vector"] = IntegerAttr(lanes, 64)
                    o.attributes["te.tile"] = DenseArrayBase.from_list(i64, [rows, vectors])
                    if chunk is not None and order[1] >= o.rank():  # the parallel loop walks tiles of rows
                        chunk = -(-chunk // rows)
                if chunk is not None:
                    o.attributes["te.parallel"] = IntegerAttr(chunk, 64)
                if isinstance(o, te.ScatterOp) and chunk is not None and not rows_disjoint(o):
                    o.attributes["te.partition"] = IntegerAttr(partition_dim(o), 64)

    @staticmethod
    def parallel(o: te.ComputeOp | te.ReduceOp | te.ScatterOp) -> None:
        """The parallel loop of a `te.tuned` op, under the order and tile it carries."""
        given = o.attributes.get("te.order")
        order = list(given.get_values()) if isinstance(given, DenseArrayBase) else list(range(len(o.body.block.args)))
        chunk = min_chunk(o, order)
        tile = o.attributes.get("te.tile")
        if chunk is not None and isinstance(tile, DenseArrayBase) and len(order) > 1 and order[1] >= o.rank():
            chunk = -(-chunk // tile.get_values()[0])
        if chunk is not None:
            o.attributes["te.parallel"] = IntegerAttr(chunk, 64)
