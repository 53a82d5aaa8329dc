"""Verify the IR after every pass, so that a pass that breaks it fails as that pass.

xDSL's `verify()` checks each op's own constraints but not SSA dominance: a value
used before its definition (a loop moved above what it reads) passes it and only
surfaces later as a KeyError deep in LLVM translation. `verify_ir` adds that check;
`VerifyEachPass` runs it after every pass of a pipeline and names the pass.

Levels (`compile(verify=...)`, the environment variable PIPELINE_VERIFY):
`"pass"` runs everything after every pass; `"stage"` checks dominance after every
pass (a tenth of the cost) and xDSL's verifier at the end of each stage, which
keeps the test suite's compiles within ~1.5x (xDSL verifies ~75 us per op: after
each of ~30 passes, a 15,000-op module triples its compile time).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException


class PassBrokeIR(VerifyException):
    """A pass left a module that does not verify (a diagnostic: `pipeline-opt
    --verify-diagnostics` prints it)."""


LEVELS = ("off", "stage", "pass")


def verify_ir(module: Operation, *, ops: bool = True) -> None:
    """xDSL's verifier (unless `ops=False`), then: every use is dominated by its
    value's definition."""
    if ops:
        module.verify()
    _Dominance().check(module)


class _Dominance:
    def __init__(self) -> None:
        self.positions: dict[Block, dict[Operation, int]] = {}
        self.trees: dict[Region, _DominatorTree] = {}

    def check(self, root: Operation) -> None:
        for op in root.walk():
            for k, v in enumerate(op.operands):
                if not self.dominates(v, op):
                    raise VerifyException(
                        f"operand {k} of '{op.name}' is used where its definition "
                        f"({_describe(v)}) does not dominate it")

    def dominates(self, value: SSAValue, user: Operation) -> bool:
        block = value.owner if isinstance(value, BlockArgument) else value.owner.parent_block()  # type: ignore[union-attr]
        if block is None or block.parent is None:
            return False
        # the ancestor of user (or user itself) that lies in the defining block's region
        at: Operation | None = user
        while at is not None and (at.parent_block() is None or at.parent_block().parent is not block.parent):  # type: ignore[union-attr]
            at = at.parent_op()
        if at is None:
            return False  # used outside the region it is defined in
        at_block = at.parent_block()
        assert at_block is not None
        if at_block is not block:
            tree = self.trees.get(block.parent)
            if tree is None:
                tree = self.trees[block.parent] = _DominatorTree(block.parent)
            return tree.dominates(block, at_block)
        if isinstance(value, BlockArgument):
            return True
        positions = self.positions.get(block)
        if positions is None:
            positions = self.positions[block] = {o: k for k, o in enumerate(block.ops)}
        return positions[value.owner] < positions[at]  # type: ignore[index]


class _DominatorTree:
    """Immediate dominators of a region's blocks (Cooper, Harvey and Kennedy's
    iteration over reverse post-order): near-linear where xDSL's DominanceInfo
    intersects sets of blocks, which took seconds after scf became cf."""

    def __init__(self, region: Region) -> None:
        entry = region.blocks.first
        assert entry is not None
        order: list[Block] = []
        seen = {entry}
        stack = [(entry, iter(_successors(entry)))]
        while stack:  # post-order by an explicit DFS
            block, succ = stack[-1]
            nxt = next((s for s in succ if s not in seen), None)
            if nxt is None:
                order.append(block)
                stack.pop()
            else:
                seen.add(nxt)
                stack.append((nxt, iter(_successors(nxt))))
        order.reverse()
        self.rank = {b: k for k, b in enumerate(order)}
        preds: dict[Block, list[Block]] = {b: [] for b in order}
        for b in order:
            for s in _successors(b):
                preds[s].append(b)
        self.idom: dict[Block, Block] = {entry: entry}
        changed = True
        while changed:
            changed = False
            for b in order[1:]:
                done = [p for p in preds[b] if p in self.idom]
                new = done[0]
                for p in done[1:]:
                    new = self._meet(p, new)
                if self.idom.get(b) is not new:
                    self.idom[b] = new
                    changed = True

    def _meet(self, a: Block, b: Block) -> Block:
        while a is not b:
            while self.rank[a] > self.rank[b]:
                a = self.idom[a]
            while self.rank[b] > self.rank[a]:
                b = self.idom[b]
        return a

    def dominates(self, a: Block, b: Block) -> bool:
        """Whether a dominates b (unreachable blocks are dominated by nothing)."""
        if b not in self.idom or a not in self.idom:
            return False
        while b is not a:
            parent = self.idom[b]
            if parent is b:
                return False
            b = parent
        return True


def _successors(block: Block) -> tuple[Block, ...]:
    last = block.last_op
    return tuple(last.successors) if last is not None else ()


def _describe(value: SSAValue) -> str:
    name = f"%{value.name_hint}" if value.name_hint else "a value"
    if isinstance(value, BlockArgument):
        return f"{name}, a block argument"
    return f"{name}, result of '{value.owner.name}'"  # type: ignore[union-attr]


def verify_after(what: str | None, module: ModuleOp, *, ops: bool = True) -> None:
    """Verify `module`, blaming `what` (a pass, or a stage's passes) for what is
    wrong (None: the input, whose error is raised as the verifier gave it)."""
    try:
        verify_ir(module, ops=ops)
    except VerifyException as e:
        if what is None:
            raise
        raise PassBrokeIR(f"{what} produced invalid IR: {e}") from e


class VerifyEachPass:
    """A `PassPipeline` callback: verify after each pass (with `ops=False`, only
    dominance), naming the pass on failure, then run `then` (dumps)."""

    def __init__(self, then: object = None, *, ops: bool = True) -> None:
        self.then = then
        self.ops = ops

    def __call__(self, previous: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
        verify_after(f"pass '{previous.name}'" if previous is not None else None, module, ops=self.ops)
        if callable(self.then):
            self.then(previous, module, following)
