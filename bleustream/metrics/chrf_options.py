"""What chrF is, as plain data: its name, its options and which settings
change only the score.

The command line and the config file learn chrF's options here without
loading its character and word n-gram counting (``bleustream.metrics.chrf``, the
``IMPLEMENTATION``), which a run loads only when it scores chrF.  The
metric module gives the same names (``chrf.OPTIONS``...).
"""

from __future__ import annotations

from bleustream.metrics.protocol import OptionSpec

NAME = "chrf"
TITLE = "chrF"
IMPLEMENTATION = "bleustream.metrics.chrf"

DEFAULT_CHAR_ORDER = 6
DEFAULT_WORD_ORDER = 0  # 2 is chrF++
DEFAULT_BETA = 2

# Bounds that keep absurd values from failing deep inside: an n-gram order
# past any sentence length, a beta whose square loses all precision.
MAX_ORDER = 100
MAX_BETA = 1000


OPTIONS = (
    OptionSpec(
        ("-cc", "--chrf-char-order"),
        "chrf_char_order",
        DEFAULT_CHAR_ORDER,
        kind="int",
        minimum=0,
        maximum=MAX_ORDER,
        metavar="N",
        help=f"chrF character n-gram order (default: {DEFAULT_CHAR_ORDER})",
    ),
    OptionSpec(
        ("-cw", "--chrf-word-order"),
        "chrf_word_order",
        DEFAULT_WORD_ORDER,
        kind="int",
        minimum=0,
        maximum=MAX_ORDER,
        metavar="N",
        help=f"chrF word n-gram order; 2 is chrF++ (default: {DEFAULT_WORD_ORDER})",
    ),
    OptionSpec(
        ("--chrf-beta",),
        "chrf_beta",
        DEFAULT_BETA,
        kind="int",
        minimum=0,
        maximum=MAX_BETA,
        metavar="N",
        help=f"weight of recall against precision in chrF (default: {DEFAULT_BETA})",
        field="beta",
    ),
    OptionSpec(
        ("--chrf-whitespace",),
        "chrf_whitespace",
        False,
        kind="bool",
        help="keep white space in chrF character n-grams (default: no)",
    ),
    OptionSpec(
        ("--chrf-lowercase",),
        "chrf_lowercase",
        False,
        kind="bool",
        help="lowercase hypotheses and references for chrF (default: no)",
    ),
    OptionSpec(
        ("--chrf-eps-smoothing",),
        "chrf_eps_smoothing",
        False,
        kind="bool",
        help="epsilon smoothing as chrF++.py, NLTK and Moses, instead of "
        "effective order (default: no)",
        field="eps_smoothing",
    ),
)

# beta and eps_smoothing act on summed statistics only where each segment
# has one reference.  SacreBLEU keeps the statistics of the reference with
# the best f-score, and that f-score is computed with beta and the
# smoothing: with several references, changing either can change which
# reference's statistics a segment gets, and statistics counted under one
# beta, rescored under another, would not be SacreBLEU's.
SCORE_ONLY: frozenset[str] = frozenset()
SCORE_ONLY_ONE_REF = frozenset({"beta", "eps_smoothing"})
