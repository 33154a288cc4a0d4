"""``python -m bleustream``: the same as the ``bleustream`` command."""

import sys

from bleustream.cli.main import main

sys.exit(main())
