"""`python3 -m pycore.bench`: the benchmark in this process (see cli.py)."""

import sys

from pycore.bench.cli import main

sys.exit(main())
