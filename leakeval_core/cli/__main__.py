import sys

from leakeval_core.cli import main

sys.exit(main())
