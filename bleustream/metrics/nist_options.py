"""What NIST is, as plain data: its name, its loop, its options and which
settings change only the score.

The command line and the config file learn NIST's options here without
loading its tables and scores (``bleustream.metrics.nist``, the
``IMPLEMENTATION``), which a run loads only when it scores NIST.  The
metric module gives the same names (``nist.OPTIONS``...).
"""

from __future__ import annotations

from bleustream.metrics.protocol import OptionSpec

DEFAULT_ORDER = 5
MAX_ORDER = 9  # mteval counts n-grams up to 9 ($max_Ngram)

NAME = "nist"
TITLE = "NIST (mteval-v13a; takes -tok 13a, intl or none)"
LOOP = "corpus"
IMPLEMENTATION = "bleustream.metrics.nist"

OPTIONS = (
    OptionSpec(
        ("--nist-case-sensitive",),
        "nist_case_sensitive",
        False,
        kind="bool",
        help="keep case for NIST, as mteval's -c (default: lowercase, ASCII letters only)",
        field="case_sensitive",
    ),
    OptionSpec(
        ("--nist-docs",),
        "nist_docs",
        None,
        metavar="FILE",
        help="NIST of each document too, as mteval's -d report: FILE holds the document "
        "id of each input line, in step (sacrebleu --echo docid writes one)",
        config=False,
    ),
    OptionSpec(
        ("--nist-order",),
        "nist_order",
        DEFAULT_ORDER,
        kind="int",
        minimum=1,
        maximum=MAX_ORDER,
        metavar="N",
        help=f"longest n-gram NIST sums (default: {DEFAULT_ORDER}, as mteval prints)",
        field="order",
    ),
)

SCORE_ONLY: frozenset[str] = frozenset()
SCORE_ONLY_ONE_REF: frozenset[str] = frozenset()
