"""`pipeline opt`: xdsl-opt with our dialects and passes, for lit RUN lines."""

import dataclasses
from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain

from pipeline.registry import all_dialects, our_passes
from pipeline.verify import VerifyEachPass


class PipelineOpt(xDSLOptMain):
    """xdsl-opt, whose verification after each pass also checks SSA dominance and
    names the pass that broke it (unless --disable-verify)."""

    def register_all_dialects(self) -> None:  # xDSL's and ours (our llvm has casts xDSL's lacks)
        for name, factory in all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in our_passes().items():
            self.register_pass(name, factory)

    def setup_pipeline(self) -> None:
        super().setup_pipeline()
        if not self.args.disable_verify:  # ours verifies instead of xDSL's callback
            self.pipeline = dataclasses.replace(self.pipeline, callback=VerifyEachPass(self.pipeline.callback))
            self.args.disable_verify = True


def main(args: Sequence[str] | None = None) -> None:
    PipelineOpt("pipeline opt: run passes over MLIR text", args).run()
