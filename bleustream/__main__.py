"""``python -m bleustream``: the same as the ``bleustream`` command, which
begins in ``bleustream.cli.entry`` (the signal handlers first)."""

import sys

from bleustream.cli.entry import main

sys.exit(main())
