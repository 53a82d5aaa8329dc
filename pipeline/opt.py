"""`pipeline opt`: xdsl-opt with our dialects and passes, for lit RUN lines."""

from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain

from pipeline.registry import our_dialects, our_passes


class PipelineOpt(xDSLOptMain):
    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in our_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in our_passes().items():
            self.register_pass(name, factory)


def main(args: Sequence[str] | None = None) -> None:
    PipelineOpt("pipeline opt: run passes over MLIR text", args).run()
