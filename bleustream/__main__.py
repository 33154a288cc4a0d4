"""``python -m bleustream``: the same as the ``bleustream`` command."""

import sys

from bleustream.cli import main

sys.exit(main())
