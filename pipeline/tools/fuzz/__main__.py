"""`python -m pipeline.tools.fuzz`, the same as `python -m pipeline fuzz`."""

import sys

from pipeline.tools.fuzz.driver import main

sys.exit(main())
