"""`python3 -m pycore.bench`: the benchmark in this process (see cli.py)."""

import sys

from .cli import main

sys.exit(main())
