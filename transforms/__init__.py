"""Passes over the aten and tensorexpr stages, one per file."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def _lower_aten() -> type[ModulePass]:
    from transforms.lower_aten_to_tensorexpr import LowerAtenToTensorExprPass

    return LowerAtenToTensorExprPass


def _lower_te() -> type[ModulePass]:
    from transforms.lower_tensorexpr_to_loops import LowerTensorExprToLoopsPass

    return LowerTensorExprToLoopsPass


def _fuse_elementwise() -> type[ModulePass]:
    from transforms.fuse_elementwise import FuseElementwisePass

    return FuseElementwisePass


def _simplify_indices() -> type[ModulePass]:
    from transforms.simplify_indices import SimplifyIndicesPass

    return SimplifyIndicesPass


def _split_dims() -> type[ModulePass]:
    from transforms.split_dims import SplitDimsPass

    return SplitDimsPass


def _rows_first() -> type[ModulePass]:
    from transforms.rows_first import RowsFirstPass

    return RowsFirstPass


def _pack_operands() -> type[ModulePass]:
    from transforms.pack_operands import PackOperandsPass

    return PackOperandsPass


def _sparse_contractions() -> type[ModulePass]:
    from transforms.sparse_contractions import SparseContractionsPass

    return SparseContractionsPass


def _schedule() -> type[ModulePass]:
    from transforms.schedule import SchedulePass

    return SchedulePass


def _profile_loops() -> type[ModulePass]:
    from transforms.profile_loops import ProfileLoopsPass

    return ProfileLoopsPass


def _fuse_sibling_loops() -> type[ModulePass]:
    from transforms.fuse_sibling_loops import FuseSiblingLoopsPass

    return FuseSiblingLoopsPass


def _approximate_math() -> type[ModulePass]:
    from transforms.approximate_math import ApproximateMathPass

    return ApproximateMathPass


def _plan_memory() -> type[ModulePass]:
    from transforms.plan_memory import PlanMemoryPass

    return PlanMemoryPass


TRANSFORM_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "lower-aten-to-tensorexpr": _lower_aten,
    "lower-tensorexpr-to-loops": _lower_te,
    "fuse-elementwise": _fuse_elementwise,
    "simplify-indices": _simplify_indices,
    "split-dims": _split_dims,
    "rows-first": _rows_first,
    "pack-operands": _pack_operands,
    "sparse-contractions": _sparse_contractions,
    "schedule": _schedule,
    "fuse-sibling-loops": _fuse_sibling_loops,
    "profile-loops": _profile_loops,
    "approximate-math": _approximate_math,
    "plan-memory": _plan_memory,
}
