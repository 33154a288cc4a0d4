"""What BLEU is, as plain data: its name, its options and which settings
change only the score.

The command line and the config file learn BLEU's options here without
loading its counting and scores (``bleustream.metrics.bleu``, the
``IMPLEMENTATION``), which a run loads only when it scores BLEU.  The
metric module gives the same names (``bleu.OPTIONS``...).
"""

from __future__ import annotations

from bleustream.metrics.protocol import OptionSpec
from bleustream.metrics.smoothing import SMOOTH_DEFAULTS
from bleustream.tokenizers.registry import DEFAULT_TOKENIZER, TOKENIZERS, default_tokenizer

SMOOTH_METHODS = ("exp", "floor", "add-k", "none")
DEFAULT_SMOOTH = "exp"
DEFAULT_MAX_ORDER = 4


# Bounds that keep absurd values from failing deep inside (an order that
# would not fit in memory, a smoothing value past any use).
MAX_ORDER = 100
MAX_SMOOTH_VALUE = 1_000_000

NAME = "bleu"
TITLE = "BLEU"
IMPLEMENTATION = "bleustream.metrics.bleu"

OPTIONS = (
    OptionSpec(
        ("-tok", "--tokenize"),
        "tokenize",
        DEFAULT_TOKENIZER,
        kind="choice",
        # nltk: NLTK's word_tokenize, for Texygen's Self-BLEU only.
        choices=(*sorted(TOKENIZERS), "nltk"),
        help=f"tokenizer (default: {DEFAULT_TOKENIZER}; nltk: --self-bleu texygen only)",
        default_from=("language_pair", default_tokenizer),
    ),
    OptionSpec(
        ("-l", "--language-pair"),
        "language_pair",
        None,
        metavar="SRC-TRG",
        help="the language pair: without --tokenize, BLEU tokenizes as SacreBLEU "
        "does for the target language (zh: zh, ja: ja-mecab, ko: ko-mecab, else 13a); "
        "nothing else changes",
    ),
    OptionSpec(
        ("-lc", "--lowercase"),
        "lowercase",
        False,
        kind="bool",
        help="lowercase hypotheses and references for BLEU (default: no)",
    ),
    OptionSpec(
        ("-s", "--smooth-method"),
        "smooth_method",
        DEFAULT_SMOOTH,
        kind="choice",
        choices=tuple(SMOOTH_METHODS),
        help="smoothing: exp, floor, add-k or none (default: exp)",
    ),
    OptionSpec(
        ("-sv", "--smooth-value"),
        "smooth_value",
        None,
        kind="float",
        minimum=0,
        maximum=MAX_SMOOTH_VALUE,
        metavar="X",
        help=f"value for floor (default {SMOOTH_DEFAULTS['floor']}) "
        f"and add-k (default {SMOOTH_DEFAULTS['add-k']})",
        yields_to="smooth_method",
    ),
    OptionSpec(
        ("--max-ngram-order",),
        "max_ngram_order",
        DEFAULT_MAX_ORDER,
        kind="int",
        minimum=1,
        maximum=MAX_ORDER,
        metavar="N",
        help=f"longest n-gram counted (default: {DEFAULT_MAX_ORDER})",
        field="max_order",
    ),
    OptionSpec(
        ("--bleu-orders",),
        "bleu_orders",
        False,
        kind="bool",
        help="also BLEU-1 to BLEU-N (N: --max-ngram-order), each SacreBLEU's BLEU with "
        "that max n-gram order, from the same statistics",
        field="orders",
    ),
    OptionSpec(
        ("--effective-order",),
        "effective_order",
        False,
        kind="bool",
        help="leave out n-gram orders with no n-grams (default: no; "
        "always on for --sentence-level records)",
    ),
)

# Smoothing and effective order act on summed statistics only.
SCORE_ONLY = frozenset({"smooth_method", "smooth_value", "effective_order", "orders"})
SCORE_ONLY_ONE_REF: frozenset[str] = frozenset()
