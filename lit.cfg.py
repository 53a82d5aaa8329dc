"""lit configuration: FileCheck tests of every stage, under test/."""

import os
import shutil

import lit.formats

config.name = "pipeline"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "__init__.py", "__pycache__"]
root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(root, ".lit_out")

python = os.environ.get("PIPELINE_PYTHON", "python")
config.substitutions.append(("pipeline-opt", f"{python} -m pipeline opt"))
config.substitutions.append(("%pipeline", f"{python} -m pipeline"))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
config.environment["PYTHONPATH"] = root
config.environment["PATH"] = os.environ["PATH"]
for var in ("HOME", "OMP_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# System tools some tests run (`REQUIRES: cc, nm`): pip does not bring them.
if any(shutil.which(c.split()[0]) for c in (os.environ.get("CC", ""), "cc", "gcc") if c):
    config.available_features.add("cc")
for tool in ("nm",):
    if shutil.which(tool):
        config.available_features.add(tool)
