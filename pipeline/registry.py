"""The one place where dialects and passes are registered, for the driver and tests."""

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def our_dialects() -> dict[str, Callable[[], Dialect]]:
    def aten() -> Dialect:
        from dialects.aten import Aten

        return Aten

    def te() -> Dialect:
        from dialects.tensorexpr import TensorExpr

        return TensorExpr

    def llvm() -> Dialect:
        from codegen.llvm_ext import dialect

        return dialect()

    return {"aten": aten, "te": te, "llvm": llvm}


def our_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Our passes by name; each is defined in its own file under transforms/ or codegen/."""
    from codegen import CODEGEN_PASSES
    from transforms import TRANSFORM_PASSES

    return {**TRANSFORM_PASSES, **CODEGEN_PASSES}


def all_dialects() -> dict[str, Callable[[], Dialect]]:
    return {**Universe.get_multiverse().all_dialects, **our_dialects()}


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {**Universe.get_multiverse().all_passes, **our_passes()}


def context() -> Context:
    """A context that knows every xDSL dialect and ours."""
    ctx = Context()
    for name, factory in all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx
