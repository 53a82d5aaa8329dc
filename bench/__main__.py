"""`python -m bench` (from the repository root): the benchmark, see bench/README.md."""

import sys

from bench.cli import main

sys.exit(main(sys.argv[1:]))
