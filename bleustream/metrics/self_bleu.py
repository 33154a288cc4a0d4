"""Self-BLEU (Zhu et al. 2018, Texygen): the diversity of a set of sentences.

Each sentence is scored by sentence BLEU against all the other sentences of
the set as its references; Self-BLEU is the mean.  Scored pair by pair that
is O(n²) sentence BLEUs.  Here it is O(total n-grams):

* **Clipping.**  Sentence BLEU clips a hypothesis n-gram at its largest count
  in any one reference.  ``OthersTable`` keeps, for every n-gram of the set,
  its highest count in one sentence (``top``), how many sentences have that
  count (``tops``) and the highest count below it (``second``).  For a
  sentence whose count is ``c``, the largest count among the others is
  ``top`` if ``c < top`` or another sentence also has ``top``, else
  ``second``.
* **Brevity penalty.**  The closest reference length (ties to the shorter:
  NLTK's ``min`` by ``(|r - h|, r)`` and SacreBLEU's loop choose alike) over
  the other sentences' lengths: the distinct lengths, sorted, with how many
  sentences have each, and a bisection for the neighbours of ``h``.

Two conventions, each reproduced to the last bit:

* ``texygen``: Texygen's ``SelfBleu`` (each sentence against ``reference[:i]
  + reference[i+1:]``), that is NLTK's ``sentence_bleu(others, hyp,
  weights=(1/N,)*N, smoothing_function=SmoothingFunction().method1)`` on
  token lists, scores in [0, 1].  NLTK's arithmetic: ``p_n = matches /
  max(1, hypothesis n-grams)``; no unigram match (an empty sentence too)
  scores 0 before any smoothing; ``method1`` puts ``0.1 / denominator``
  where a numerator is 0; ``BP * exp(fsum(w * log(p_n)))`` with ``BP = 1``
  when the sentence is longer than the closest length, 0 when it is empty,
  else ``exp(1 - r / h)``.
* ``sacrebleu``: SacreBLEU's ``sentence_bleu(hyp, others)`` with bleustream's
  BLEU tokenizers, lowercasing and smoothing (effective order on, as in
  every sentence BLEU), on SacreBLEU's 0 to 100 scale.

The set must be whole before any sentence is scored, so the sentences (as
token ids) and the table are kept: memory grows with the tokens and the
distinct n-grams (docs/self-bleu.md gives the figures).
"""

from __future__ import annotations

import math
import operator
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, Callable

from bleustream._version import __version__
from bleustream.frozen import Frozen
from bleustream.metrics import bleu
from bleustream.metrics.protocol import Row, is_number
from bleustream.metrics.self_bleu_options import (  # noqa: F401 (the metric's surface)
    CONVENTIONS,
    DEFAULT_CONVENTION,
    DEFAULT_SEED,
    LOOP,
    NAME,
    OPTIONS,
    SCORE_ONLY,
    SCORE_ONLY_ONE_REF,
    TITLE,
)

# Texygen's tokenizations: white space, or NLTK's word_tokenize (as Texygen).
TEXYGEN_TOKENIZERS = ("none", "nltk")
TEXYGEN_EPSILON = 0.1  # NLTK's SmoothingFunction().method1
MAX_ORDER = bleu.MAX_ORDER

Ids = Sequence[int]


class Settings(Frozen):
    """Everything that decides a Self-BLEU score.

    ``bleu`` is the sentence BLEU of the ``sacrebleu`` convention (its
    tokenizer, case and smoothing; unused by ``texygen``); ``tokenize`` is the ``texygen``
    convention's (``none``: white space, ``nltk``: NLTK's ``word_tokenize``).
    ``sample`` sentences drawn with ``seed`` stand for the set (0: every
    sentence), as Texygen scores its first 500.
    """

    convention: str = DEFAULT_CONVENTION
    max_order: int = bleu.DEFAULT_MAX_ORDER
    tokenize: str = "none"
    bleu: bleu.Settings = bleu.DEFAULT_SETTINGS
    sample: int = 0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise ValueError(
                f"Self-BLEU's conventions are {' and '.join(CONVENTIONS)}, not {self.convention!r}"
            )
        order = self.max_order
        if not (isinstance(order, int) and 1 <= order <= MAX_ORDER):
            raise ValueError(f"the maximum n-gram order must be from 1 to {MAX_ORDER}: {order!r}")
        if self.convention == "texygen" and self.tokenize not in TEXYGEN_TOKENIZERS:
            raise ValueError(
                "Texygen's Self-BLEU splits on white space (-tok none) or with NLTK's "
                f"word_tokenize (-tok nltk), not -tok {self.tokenize}"
            )
        if self.convention == "sacrebleu" and self.bleu.max_order != order:
            raise ValueError("the sentence BLEU's order must be Self-BLEU's")
        if not (isinstance(self.sample, int) and self.sample >= 0):
            raise ValueError(f"the sample must be a whole number of sentences: {self.sample!r}")


DEFAULT_SETTINGS = Settings()


def ngram_counts(ids: Ids, max_order: int) -> Counter[tuple[int, ...]]:
    """The n-grams of a sentence (n = 1..max_order), as tuples, with counts."""
    return Counter(
        chain.from_iterable(zip(*[ids[i:] for i in range(n)]) for n in range(1, max_order + 1))
    )


class OthersTable:
    """Per n-gram of a set: ``[top, tops, second]``; and the set's lengths."""

    def __init__(self, max_order: int) -> None:
        self.max_order = max_order
        self.counts: dict[tuple[int, ...], list[int]] = {}
        self.lengths: dict[int, int] = {}
        self.sentences = 0
        self._sorted: list[int] | None = None

    def add(self, ids: Ids) -> None:
        """One sentence of the set."""
        self.sentences += 1
        self.lengths[len(ids)] = self.lengths.get(len(ids), 0) + 1
        self._sorted = None
        counts = self.counts
        for gram, c in ngram_counts(ids, self.max_order).items():
            entry = counts.get(gram)
            if entry is None:
                counts[gram] = [c, 1, 0]
            elif c == entry[0]:
                entry[1] += 1
            elif c > entry[0]:
                entry[0], entry[1], entry[2] = c, 1, entry[0]
            elif c > entry[2]:
                entry[2] = c

    def matches(self, ids: Ids) -> list[int]:
        """A sentence's clipped matches at orders 1..max_order against the
        other sentences of the set (``ids`` is one of them)."""
        matched = [0] * (self.max_order + 1)
        counts = self.counts
        for gram, c in ngram_counts(ids, self.max_order).items():
            top, tops, second = counts[gram]
            most = top if c < top or tops > 1 else second
            matched[len(gram)] += c if c < most else most
        return matched[1:]

    def closest_length(self, length: int) -> int:
        """The other sentences' length closest to ``length``, the shorter on a tie."""
        if self.lengths.get(length, 0) > 1:
            return length
        if self._sorted is None:
            self._sorted = sorted(self.lengths)
        values = self._sorted
        below = bisect_left(values, length) - 1  # the longest shorter length
        above = bisect_right(values, length)  # the shortest longer length
        best: tuple[int, int] | None = None
        if below >= 0:
            best = (length - values[below], values[below])
        if above < len(values) and (best is None or values[above] - length < best[0]):
            best = (values[above] - length, values[above])
        if best is None:
            raise ValueError("a sentence has no other sentence to be scored against")
        return best[1]


def texygen_value(matched: Sequence[int], length: int, closest: int, max_order: int) -> float:
    """NLTK's ``sentence_bleu`` with uniform weights and ``method1``, from
    the clipped matches, the sentence's length and the closest length."""
    if matched[0] == 0:
        return 0  # NLTK's int 0, before any smoothing
    weight = 1.0 / max_order
    logs = []
    for n in range(1, max_order + 1):
        denominator = max(1, length - n + 1)
        numerator = matched[n - 1]
        p = numerator / denominator if numerator else TEXYGEN_EPSILON / denominator
        logs.append(weight * math.log(p))
    # A sentence with a unigram match has words: length > 0.
    bp = 1.0 if length > closest else math.exp(1 - closest / length)
    return bp * math.exp(math.fsum(logs))


def sacrebleu_value(matched: Sequence[int], length: int, closest: int, settings: Settings) -> float:
    """SacreBLEU's ``sentence_bleu`` from the same counts: BLEU's row, scored by BLEU."""
    order = settings.max_order
    totals = [max(0, length - n + 1) for n in range(1, order + 1)]
    row = (length, closest, *matched, *totals)
    return bleu.sentence_score(row, settings.bleu).score


def words_of(settings: Settings) -> Callable[[str], list[str]]:
    """A line to the words the settings' convention counts."""
    if settings.convention == "sacrebleu":
        return bleu.preprocess(settings.bleu)
    if settings.tokenize == "nltk":
        from bleustream.tokenizers.nltk_words import nltk_tokenizer

        return nltk_tokenizer()
    return str.split


def values_of(sentences: Sequence[Ids], table: OthersTable, settings: Settings) -> list[float]:
    """Each sentence's value against the others of the set (all in ``table``)."""
    if table.sentences < 2:
        raise ValueError(
            "Self-BLEU needs at least two sentences: each is scored against the others"
        )
    order = settings.max_order
    out = []
    for ids in sentences:
        matched = table.matches(ids)
        closest = table.closest_length(len(ids))
        if settings.convention == "texygen":
            out.append(texygen_value(matched, len(ids), closest, order))
        else:
            out.append(sacrebleu_value(matched, len(ids), closest, settings))
    return out


def sample(lines: Iterable[tuple[int, str]], size: int, seed: int | None) -> list[tuple[int, str]]:
    """``size`` of the lines, drawn uniformly (reservoir sampling with
    ``random.Random(seed)``; ``None``: fresh entropy), in input order; all
    of them when there are no more."""
    import random

    draw = random.Random(seed)
    kept: list[tuple[int, str]] = []
    for seen, line in enumerate(lines):
        if seen < size:
            kept.append(line)
        else:
            slot = draw.randrange(seen + 1)
            if slot < size:
                kept[slot] = line
    kept.sort()
    return kept


class Vocabulary:
    """Words to small whole numbers: n-grams of ids hash faster, and compare alike."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, words: Iterable[str]) -> list[int]:
        ids = self.ids
        return [ids.setdefault(word, len(ids)) for word in words]


def self_bleu(sentences: Sequence[str], settings: Settings | None = None) -> list[float]:
    """Each sentence's Self-BLEU value (the library's entry; the mean is Self-BLEU)."""
    settings = settings or DEFAULT_SETTINGS
    words, vocabulary = words_of(settings), Vocabulary()
    table = OthersTable(settings.max_order)
    kept = []
    for sentence in sentences:
        ids = vocabulary(words(sentence))
        table.add(ids)
        kept.append(ids)
    return values_of(kept, table, settings)


# ----------------------------------------------------------------------------
# The metric surface (see bleustream.metrics.protocol).  Self-BLEU is scored
# at the end of a run, over the whole set: its loop is "set".  A row is
# ``(sum of values, sentences)``: a sentence's is ``(value, 1)``, and the
# corpus score is their mean, summed in input order as Texygen sums.
# ----------------------------------------------------------------------------

SIGNATURE_SHORT: Mapping[str, str] = {"conv": "cv", "case": "c", "tok": "tok", "smooth": "s"}


def settings_from(options: Mapping[str, Any]) -> Settings:
    """The settings of resolved options, by dest; the command line has
    checked that a ``texygen`` run gives no BLEU option it ignores."""
    convention = options.get("self_bleu") or DEFAULT_CONVENTION
    order = int(options.get("max_ngram_order") or bleu.DEFAULT_MAX_ORDER)
    tokenize = options.get("tokenize") or "none"
    from bleustream.metrics.seeds import parse_seed  # here: Self-BLEU is loaded with every run

    seed = parse_seed(str(options.get("seed", DEFAULT_SEED)))
    sentence_bleu = bleu.DEFAULT_SETTINGS
    if convention == "sacrebleu":
        sentence_bleu = bleu.Settings(
            tokenize=tokenize,
            lowercase=bool(options.get("lowercase", False)),
            smooth_method=options.get("smooth_method") or bleu.DEFAULT_SMOOTH,
            smooth_value=options.get("smooth_value"),
            effective_order=True,
            max_order=order,
        )
    return Settings(
        convention=convention,
        max_order=order,
        tokenize=tokenize,
        bleu=sentence_bleu,
        sample=int(options.get("self_bleu_sample") or 0),
        seed=seed,
    )


def label(settings: Settings) -> str:
    return "SelfBLEU"


def row_size(settings: Settings) -> int:
    return 2


def check_row(row: Sequence[Any], settings: Settings) -> str | None:
    total, sentences = row
    if not (is_number(total) and total >= 0) or not (isinstance(sentences, int) and sentences >= 0):
        return f"a Self-BLEU row is a sum of values and a number of sentences, not {row!r}"
    return None


@dataclass
class SelfBleuResult:
    """The mean value of ``sentences`` sentences (one for a sentence's own)."""

    score: float
    sentences: int
    row: Row


def score(row: Sequence[Any], settings: Settings) -> SelfBleuResult:
    total, sentences = row
    return SelfBleuResult(total / sentences if sentences else 0.0, sentences, tuple(row))


def sentence_score(row: Sequence[Any], settings: Settings) -> SelfBleuResult:
    return score(row, settings)


def add_row(a: Sequence[Any], b: Sequence[Any]) -> Row:
    return tuple(map(operator.add, a, b))


def signature(settings: Settings, nrefs: int | str) -> dict[str, str]:
    """The convention first, then what decides its sentence BLEU."""
    fields = {"conv": settings.convention}
    if settings.convention == "texygen":
        fields["tok"] = "nltk" if settings.tokenize == "nltk" else "white"
        fields["smooth"] = "method1"
    else:
        sacre = bleu.signature_fields(settings.bleu, 1)
        fields["case"] = sacre["case"]
        fields["tok"] = sacre["tok"]
        fields["smooth"] = sacre["smooth"]
    fields["order"] = str(settings.max_order)
    if settings.sample:
        fields["sample"] = str(settings.sample)
        fields["seed"] = str(settings.seed).lower()
    fields["version"] = f"bleustream-{__version__}"
    return fields


def json_fields(result: SelfBleuResult, settings: Settings) -> dict[str, Any]:
    return {"sentences": result.sentences}


def tsv_fields(result: SelfBleuResult, settings: Settings) -> list[tuple[str, str]]:
    return [("self_bleu", repr(result.score)), ("sentences", str(result.sentences))]


def verbose(result: SelfBleuResult, settings: Settings, width: int = 1) -> str:
    return f"(sentences = {result.sentences})" if result.sentences != 1 else ""
