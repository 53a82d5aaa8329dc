"""The checked te.index, and the guard of an index into an extent that may be 0.

A te.index stores its site into status when out of range and reads index 0
instead, which is no element when the extent is 0 (`pos[edge_index[0]]` with N = 0
and E > 0): such a read, or a scatter's write, must never run. The entry tests once
whether a check into an extent that may be 0 would run (`%empty_index`: N = 0 while
every loop around the check runs, E > 0); if so the loops over E run to `%E_run` = 0
and the function ends storing that check's site. The hot loops keep their shape:
nothing is added inside them, so sibling fusion and LLVM's vectorizer see the same
nests (a guard inside each loop body made Lennard-Jones 1.5x slower). A check under
no loop over a size, or into a count computed from data, is guarded in its block
instead (see `guard_empty_extents`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, func, scf, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr, VectorType, i1, i32
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from dialects import tensorexpr as te
from transforms.lower_aten_to_tensorexpr.scalars import LoweringError, scalar_attr
from transforms.lower_tensorexpr_to_loops.base import NestBuilder


@dataclass
class _Guard:
    """A te.index into an extent that may be 0 (a size symbol, a data-dependent
    count), checked from `first` on (its index_cast): when `empty` holds, every
    value it reads is out of range and there is no element to clamp it to."""

    first: Operation
    extent: SSAValue
    empty: SSAValue
    site: int


@dataclass
class _EmptyIndex:
    """A te.index into `extent` inside loops over `loops` (their extents that may be
    0, outermost first): it reads an index, out of range and with no element to
    clamp it to, exactly when `extent` is 0 and every one of those loops runs."""

    extent: SSAValue
    loops: tuple[SSAValue, ...]
    site: int


class IndexChecks(NestBuilder):
    """The checked te.index of a body (see `compute.emit`) and the guards of the checks
    a te op's nests made; the entry's test once the function is built."""

    def __init__(self, fn: func.FuncOp):
        super().__init__(fn)
        self.guards: list[_Guard] = []  # the te op being lowered's checks into extents that may be 0
        self.empty_indices: list[_EmptyIndex] = []  # the checks the function's entry tests
        self.empties: dict[SSAValue, SSAValue] = {}  # extent -> i1 `extent == 0`, at the top
        self.guarded: dict[scf.IfOp, set[SSAValue]] = {}  # the guards made, and the `empty`s each tests

    def checked_index(self, b: Builder, op: te.IndexOp, mapping: dict[SSAValue, SSAValue]) -> SSAValue:
        """status = site when i is out of range, and i clamped to 0 (in range, unless
        the extent is 0: see `guard_empty_extents`)."""
        extent = mapping[op.extent]
        empty = self.empty(extent) if te.static_extent(extent) in (None, 0) else None
        i = b.insert(arith.IndexCastOp(mapping[op.value], IndexType())).result
        if empty is not None:
            self.guards.append(_Guard(i.owner, extent, empty, op.site.value.data))  # type: ignore[arg-type]
        if op.wrap is not None:
            neg = b.insert(arith.CmpiOp(i, self.zero, "slt")).result
            i = b.insert(arith.SelectOp(neg, b.insert(arith.AddiOp(i, extent)).result, i)).result
        # one unsigned compare catches both i < 0 and i >= extent
        bad = b.insert(arith.CmpiOp(i, extent, "uge")).result
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        code = tb.insert(arith.ConstantOp(IntegerAttr(op.site.value.data, i32))).result
        self.fail(tb, code)
        tb.insert(scf.YieldOp())
        b.insert(scf.IfOp(bad, [], Region(then)))
        return b.insert(arith.SelectOp(bad, self.zero, i)).result

    def empty(self, extent: SSAValue) -> SSAValue:
        """`extent == 0` (i1), once per extent, at the top of the function (extents
        are sizes, or counts computed before the nests that use them)."""
        if extent not in self.empties:
            if te.static_extent(extent) == 0:
                self.empties[extent] = self.constant(IntegerAttr(1, i1))
            else:
                top = self.b.insertion_point.block
                if not (extent.owner is top or (isinstance(extent.owner, Operation)
                                                 and extent.owner.parent_block() is top)):
                    raise LoweringError(f"lower-tensorexpr-to-loops: the extent {extent} of a te.index "
                                        "is computed inside a loop nest; it must be known before the nest")
                cmp = self.b.insert(arith.CmpiOp(extent, self.zero, "eq")).result
                cmp.name_hint = f"{extent.name_hint}_empty" if extent.name_hint else "empty"
                self.empties[extent] = cmp
        return self.empties[extent]

    def guard_empty_extents(self) -> None:
        """After a te op's nests: the checks into extents that may be 0 (`select(bad,
        0, i)` has nothing to clamp to there: `pos` with N = 0 under a loop over
        E > 0) inside loops whose extents are known at the entry go to the entry's
        test (`empty_index_test`: no loop changes shape, the hot loops stay as they
        were); the others (a check outside any loop over a size, an extent counted
        from data) are guarded where they are (`guard_block`)."""
        guards, self.guards = self.guards, []
        local: dict[Block, list[_Guard]] = {}
        for g in guards:
            block = g.first.parent_block()
            assert block is not None
            loops = _enclosing_extents(block)
            if loops is not None and any(te.static_extent(e) == 0 for e in loops):
                continue  # a loop that never runs
            sizes = tuple(dict.fromkeys(e for e in loops or () if not _nonzero(e)))
            if loops is not None and _nonzero_when(g.extent, sizes):
                continue  # in a loop over the extent itself (or a factor of it): never read when it is 0
            if loops is not None and sizes and all(self.at_entry(v) for v in (g.extent, *sizes)):
                self.empty_indices.append(_EmptyIndex(g.extent, sizes, g.site))
            else:
                local.setdefault(block, []).append(g)
        for block in sorted(local, key=_depth):  # outer blocks first: an inner guard may be implied
            self.guard_block(block, local[block])

    def at_entry(self, v: SSAValue) -> bool:
        """Whether v can be computed at the function's entry: a size, a constant, or
        index arithmetic on them (wherever the top level computes it)."""
        top = self.b.insertion_point.block
        owner = v.owner
        if isinstance(v, BlockArgument):
            return owner is top
        if isinstance(owner, arith.ConstantOp):
            return True
        return (isinstance(owner, Operation) and owner.parent_block() is top and owner.dialect_name() == "arith"
                and all(self.at_entry(o) for o in owner.operands))

    def empty_index_test(self) -> None:
        """At the entry, `%empty_index`: some check would read an index into an empty
        dim (its extent is 0 and every loop around it runs). Then the loops around
        such checks run no iteration: the outermost one's extent E becomes `%E_run =
        select %empty_index, 0, E` in every loop over E (siblings stay fusible, no
        loop changes shape), and the function ends storing the first such check's
        site into status, over whatever else it stored. Otherwise nothing changes."""
        block = self.b.insertion_point.block
        if self.empty_indices:
            self._test_empty_indices(block)
        for empty in self.empties.values():
            if isinstance(empty.owner, arith.CmpiOp) and not empty.uses:
                block.erase_op(empty.owner)  # a check inside a loop over its own extent, or that never runs

    def _test_empty_indices(self, block: Block) -> None:
        first = next((o for o in block.ops if not isinstance(o, arith.ConstantOp)), None)
        last = [first.prev_op if first is not None else block.last_op]  # the constants, then what is placed
        placed: set[Operation] = set()

        def place(op: Operation) -> SSAValue:
            """op, right after the constants and what is placed already."""
            if (last[0].next_op if last[0] is not None else block.first_op) is not op:
                if op.parent is not None:
                    op.detach()
                at = InsertPoint.after(last[0]) if last[0] is not None else InsertPoint.at_start(block)
                Rewriter.insert_op(op, at)
            last[0] = op
            placed.add(op)
            return op.results[0]

        def hoist(v: SSAValue) -> None:
            """v's computation (index arithmetic on sizes, or a te.index's `empty`) at the entry."""
            owner = v.owner
            if isinstance(owner, Operation) and not isinstance(owner, arith.ConstantOp) and owner not in placed:
                for o in owner.operands:
                    hoist(o)
                place(owner)

        nonzero: dict[SSAValue, SSAValue] = {}
        terms: dict[tuple[SSAValue, tuple[SSAValue, ...]], tuple[SSAValue, int]] = {}  # -> (condition, site)
        for e in self.empty_indices:
            if (e.extent, e.loops) in terms:
                continue  # the first site
            for v in (e.extent, *e.loops):
                hoist(v)
            empty = self.empties[e.extent]
            cond = None if te.static_extent(e.extent) == 0 else empty
            if cond is not None:
                hoist(cond)
            for n in e.loops:
                if n not in nonzero:
                    nonzero[n] = place(arith.CmpiOp(n, self.zero, "ne"))
                    nonzero[n].name_hint = f"{n.name_hint}_nonzero" if n.name_hint else None
                cond = nonzero[n] if cond is None else place(arith.AndIOp(cond, nonzero[n]))
            assert cond is not None
            terms[(e.extent, e.loops)] = (cond, e.site)
        conditions = [c for c, _ in terms.values()]
        fail = conditions[0]
        for c in conditions[1:]:
            fail = place(arith.OrIOp(fail, c))
        fail.name_hint = "empty_index"
        for n in dict.fromkeys(loops[0] for _, loops in terms):
            run = place(arith.SelectOp(fail, self.zero, n))
            run.name_hint = f"{n.name_hint}_run" if n.name_hint else "run"
            for use in list(n.uses):
                loop = use.operation
                if isinstance(loop, scf.ForOp) and use.index == 1 or (
                        isinstance(loop, scf.ParallelOp) and use.index == len(loop.lowerBound)):
                    loop.operands[use.index] = run
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        self.fail(tb, _first_site(tb, list(terms.values())))
        tb.insert(scf.YieldOp())
        self.b.insert(scf.IfOp(fail, [], Region(then)))

    def guard_block(self, block: Block, guards: list[_Guard]) -> None:
        """`scf.if %N_empty { status = site } else { the block from the first check on }`,
        the values its terminator uses yielded (zeros when empty: nothing reads them,
        the call fails). The block runs exactly when the checks would: the error is
        raised exactly when an index is read. One test for the checks of a block (an
        `ori` of their `empty`s, the first one's site); none for an extent that an
        enclosing guard tested."""
        known: set[SSAValue] = set()  # extents an enclosing guard found nonzero
        parent = block.parent_op()
        while parent is not None:
            known |= self.guarded.get(parent, set())  # type: ignore[arg-type]
            parent = parent.parent_op()
        position = {o: k for k, o in enumerate(block.ops)}
        sites: dict[SSAValue, int] = {}
        for g in sorted(guards, key=lambda g: position[g.first]):
            if g.empty not in known and g.empty not in sites:
                sites[g.empty] = g.site
        if not sites:
            return
        first = min((g.first for g in guards if g.empty in sites), key=lambda o: position[o])
        for empty in self.empties.values():  # (at the top level: an extent compared after the first check)
            if isinstance(empty.owner, arith.CmpiOp) and position.get(empty.owner, -1) > position[first]:
                empty.owner.detach()
                Rewriter.insert_op(empty.owner, InsertPoint.before(first))
        last = block.last_op
        end = last if last is not None and last.has_trait(IsTerminator) else None
        moved: list[Operation] = []
        op: Operation | None = first
        while op is not None and op is not end:
            moved.append(op)
            op = op.next_op
        inside = set(moved)

        def outside(use_op: Operation) -> bool:
            while use_op.parent_block() is not block:
                use_op = use_op.parent_op()  # type: ignore[assignment]
            return use_op not in inside

        escaping = [r for o in moved for r in o.results if any(outside(u.operation) for u in r.uses)]
        conditions = list(sites)
        b = Builder(InsertPoint.before(first))
        cond = conditions[0]
        for other in conditions[1:]:
            cond = b.insert(arith.OrIOp(cond, other)).result
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        code = _first_site(tb, [(empty, sites[empty]) for empty in conditions])
        self.fail(tb, code)
        tb.insert(scf.YieldOp(*[self.zero_of(tb, v.type) for v in escaping]))
        otherwise = Block()
        guard = b.insert(scf.IfOp(cond, [v.type for v in escaping], Region(then), Region(otherwise)))
        for o in moved:
            o.detach()
            otherwise.add_op(o)
        otherwise.add_op(scf.YieldOp(*escaping))
        for v, r in zip(escaping, guard.results):
            v.replace_uses_with_if(r, lambda use: not guard.is_ancestor(use.operation))
        self.guarded[guard] = known | set(sites)
        self.computed = {k: v for k, v in self.computed.items()
                         if not (isinstance(v.owner, Operation) and guard.is_ancestor(v.owner))}

    def zero_of(self, b: Builder, t: Attribute) -> SSAValue:
        """A value of type t (what a skipped block yields: it never reaches an output)."""
        if isinstance(t, IndexType):
            return self.zero
        if isinstance(t, VectorType):
            return self.once(b, vector.BroadcastOp, self.constant(scalar_attr(0, t.element_type)), t)
        return self.constant(scalar_attr(0, t))


def _enclosing_extents(block: Block) -> list[SSAValue] | None:
    """The extents of the loops around `block` (all from 0 by 1), outermost first;
    None when a loop starts elsewhere."""
    extents: list[SSAValue] = []
    op = block.parent_op()
    while op is not None:
        if isinstance(op, scf.ForOp):
            bounds = (op.lb, op.ub, op.step)
        elif isinstance(op, scf.ParallelOp):
            if len(op.lowerBound) != 1:
                return None
            bounds = (op.lowerBound[0], op.upperBound[0], op.step[0])
        else:
            op = op.parent_op()
            continue
        if te.static_extent(bounds[0]) != 0 or te.static_extent(bounds[2]) != 1:
            return None
        extents.insert(0, bounds[1])
        op = op.parent_op()
    return extents


def _nonzero(v: SSAValue) -> bool:
    """Whether an extent is never 0: a constant >= 1, or max(x, k >= 1) (a team count)."""
    n = te.static_extent(v)
    if n is not None:
        return n > 0
    owner = v.owner
    return isinstance(owner, (arith.MaxSIOp, arith.MaxUIOp)) and any(
        (te.static_extent(o) or 0) > 0 for o in owner.operands)


def _nonzero_when(v: SSAValue, extents: Sequence[SSAValue]) -> bool:
    """Whether v is not 0 when none of `extents` is: one of them, a constant >= 1, or
    a product of such (N * 3 inside a loop over N)."""
    if v in extents or _nonzero(v):
        return True
    owner = v.owner
    return isinstance(owner, arith.MuliOp) and all(_nonzero_when(o, extents) for o in owner.operands)


def _depth(block: Block) -> int:
    """How many ops enclose `block`."""
    depth, op = 0, block.parent_op()
    while op is not None:
        depth, op = depth + 1, op.parent_op()
    return depth


def _first_site(b: Builder, checks: list[tuple[SSAValue, int]]) -> SSAValue:
    """The site of the first check whose condition holds (the last one's if none before
    it does), as canonicalize leaves it: no select between two equal sites."""
    *rest, (_, site) = checks
    code, constant = b.insert(arith.ConstantOp(IntegerAttr(site, i32))).result, site
    for c, site in reversed(rest):
        if site != constant:
            code = b.insert(arith.SelectOp(c, b.insert(arith.ConstantOp(IntegerAttr(site, i32))).result, code)).result
            constant = None
    return code

