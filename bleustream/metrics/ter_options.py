"""What TER is, as plain data: its name, its options and which settings
change only the score.

The command line and the config file learn TER's options here without
loading its edit distance (``bleustream.metrics.ter``, the
``IMPLEMENTATION``), which a run loads only when it scores TER.  The
metric module gives the same names (``ter.OPTIONS``...).
"""

from __future__ import annotations

from bleustream.metrics.protocol import OptionSpec

NAME = "ter"
TITLE = "TER"
IMPLEMENTATION = "bleustream.metrics.ter"

OPTIONS = (
    OptionSpec(
        ("--ter-case-sensitive",),
        "ter_case_sensitive",
        False,
        kind="bool",
        help="enables case sensitivity for TER (default: no)",
    ),
    OptionSpec(
        ("--ter-asian-support",),
        "ter_asian_support",
        False,
        kind="bool",
        help="enables special treatment of Asian characters for TER; acts with "
        "--ter-normalized or --ter-no-punct (default: no)",
    ),
    OptionSpec(
        ("--ter-no-punct",),
        "ter_no_punct",
        False,
        kind="bool",
        help="removes punctuation for TER (default: no)",
    ),
    OptionSpec(
        ("--ter-normalized",),
        "ter_normalized",
        False,
        kind="bool",
        help="applies basic normalization and tokenization for TER (default: no)",
    ),
)

# Every TER setting changes the tokens, and so the statistics.
SCORE_ONLY: frozenset[str] = frozenset()
SCORE_ONLY_ONE_REF: frozenset[str] = frozenset()
