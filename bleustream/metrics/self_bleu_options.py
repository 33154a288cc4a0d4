"""What Self-BLEU is, as plain data: its name, its loop, its options and
which settings change only the score.

The command line and the config file learn Self-BLEU's options here
without loading its tables (``bleustream.metrics.self_bleu``, the
``IMPLEMENTATION``), which a run loads only when it scores Self-BLEU.  The
metric module gives the same names (``self_bleu.OPTIONS``...).
"""

from __future__ import annotations

from bleustream.metrics.protocol import OptionSpec

CONVENTIONS = ("texygen", "sacrebleu")
DEFAULT_SEED = 12345  # --seed's, SacreBLEU's
DEFAULT_CONVENTION = "texygen"

NAME = "self-bleu"
TITLE = "Self-BLEU (the set's diversity; with --self-bleu)"
LOOP = "set"
IMPLEMENTATION = "bleustream.metrics.self_bleu"

OPTIONS = (
    OptionSpec(
        ("--self-bleu",),
        "self_bleu",
        None,  # given, it chooses the metric: -m self-bleu
        kind="choice",
        choices=CONVENTIONS,
        metavar="CONV",
        help="score the Self-BLEU of one set of sentences (-i FILE or stdin, no references): "
        "texygen (NLTK's sentence_bleu, method1, white space or -tok nltk; 0 to 1) or "
        "sacrebleu (sentence_bleu with -tok, -lc, -s; 0 to 100)",
        field="convention",
    ),
    OptionSpec(
        ("--sample",),
        "self_bleu_sample",
        0,
        kind="int",
        minimum=0,
        maximum=1 << 40,
        metavar="N",
        help="Self-BLEU of N sentences drawn at random (--seed) instead of the whole set "
        "(default: 0, every sentence)",
        field="sample",
    ),
    OptionSpec(
        ("--self-bleu-column",),
        "self_bleu_column",
        0,
        kind="int",
        minimum=0,
        maximum=1 << 20,
        metavar="N",
        help="the sentences are field N (from 1) of tab-separated lines, as in a paste "
        "stream (default: 0, the whole line)",
    ),
)

SCORE_ONLY: frozenset[str] = frozenset()
SCORE_ONLY_ONE_REF: frozenset[str] = frozenset()
