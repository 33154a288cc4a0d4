"""The chrF metric (Popović 2015) and chrF++ (Popović 2017), as SacreBLEU 2.x.

A metric module (see ``bleustream.metric``).  A segment's statistics are
SacreBLEU's row: one ``(hyp, ref, match)`` triplet per order, character
orders 1..``char_order`` first, then word orders 1..``word_order``, taken
from the reference whose f-score is best.  ``f_score`` performs the same
floating-point operations in the same order as SacreBLEU's
``CHRF._compute_f_score``, so scores agree to the last bit.

SacreBLEU's quirks kept on purpose:

* character n-grams are taken after deleting all white space (``str.split``
  white space) unless ``whitespace`` is set;
* chrF++ words are the white-space split words with one ASCII punctuation
  mark split off the end, or else off the start, of words longer than one
  character (so ``"(hi)"`` gives ``"(hi"`` and ``")"``);
* an order whose reference has no n-grams counts no hypothesis n-grams
  either (``hyp`` is 0 in that triplet);
* the best reference is the first with the highest f-score (strict ``>``).

Speed: SacreBLEU builds each n-gram with a Python-level slice, counts them
in a ``Counter`` and matches them in a Python loop.  Here no Python code
runs per n-gram:

* the n-grams of order n are those of order n-1 with the next item
  appended, by ``map`` (one string concatenation per character n-gram);
* they are counted by the C helper behind ``Counter`` into plain dicts, but
  only while some n-gram repeats: once the n-grams of an order are
  distinct, so are those of every higher order (distinct prefixes), and a
  reference keeps them as a set, a hypothesis as a list;
* when either side has no repeated n-gram, each common n-gram matches
  exactly once, so the clipped count is the number of hypothesis n-grams
  the reference holds (C-level membership tests) or the size of a key
  intersection; only when both repeat is it ``map(min, ...)`` over counts;
* an n-gram can only match if its prefix of order n-1 does, so once an
  order has no match the higher orders are not built at all;
* the hypothesis n-grams are built once, however many references there
  are, and the references once per segment, however many systems.

The hashing and allocation of every n-gram remain, and they are most of
the cost.
"""

from __future__ import annotations

import argparse
import collections
import operator
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import repeat
from typing import Any, Callable

from bleustream import __version__
from bleustream.argtypes import whole_number
from bleustream.errors import UsageError
from bleustream.metric import Option, Row

NAME = "chrf"
TITLE = "chrF"

DEFAULT_CHAR_ORDER = 6
DEFAULT_WORD_ORDER = 0  # 2 is chrF++
DEFAULT_BETA = 2

# Bounds that keep absurd values from failing deep inside: an n-gram order
# past any sentence length, a beta whose square loses all precision.
MAX_ORDER = 100
MAX_BETA = 1000

# SacreBLEU's chrF++ word splitter looks at ASCII punctuation only
# (string.punctuation).
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

# SacreBLEU's smoothing constant for orders without n-grams.
_EPS = 1e-16

_count_into: Callable[[dict, Any], None] = collections._count_elements  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Settings:
    """Everything that decides a chrF score, as in SacreBLEU's signature."""

    char_order: int = DEFAULT_CHAR_ORDER
    word_order: int = DEFAULT_WORD_ORDER
    beta: int = DEFAULT_BETA
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False

    def __post_init__(self) -> None:
        for name in ("char_order", "word_order", "beta"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be a whole number, not {value!r}")
            if value < 0:
                raise ValueError(f"{name} must not be negative: {value}")
        if self.char_order + self.word_order == 0:
            raise ValueError("the character and word n-gram orders cannot both be 0")

    @property
    def order(self) -> int:
        """The number of orders, character and word: the triplets in a row."""
        return self.char_order + self.word_order


DEFAULT_SETTINGS = Settings()


@dataclass(frozen=True)
class ChrfScore:
    """A chrF score (a percentage) and the statistics it was computed from."""

    score: float
    row: Row


OPTIONS = (
    Option(
        ("-cc", "--chrf-char-order"),
        "chrf_char_order",
        DEFAULT_CHAR_ORDER,
        {
            "type": whole_number(0, MAX_ORDER),
            "metavar": "N",
            "help": f"chrF character n-gram order (default: {DEFAULT_CHAR_ORDER})",
        },
    ),
    Option(
        ("-cw", "--chrf-word-order"),
        "chrf_word_order",
        DEFAULT_WORD_ORDER,
        {
            "type": whole_number(0, MAX_ORDER),
            "metavar": "N",
            "help": f"chrF word n-gram order; 2 is chrF++ (default: {DEFAULT_WORD_ORDER})",
        },
    ),
    Option(
        ("--chrf-beta",),
        "chrf_beta",
        DEFAULT_BETA,
        {
            "type": whole_number(0, MAX_BETA),
            "metavar": "N",
            "help": f"weight of recall against precision in chrF (default: {DEFAULT_BETA})",
        },
    ),
    Option(
        ("--chrf-whitespace",),
        "chrf_whitespace",
        False,
        {
            "action": argparse.BooleanOptionalAction,
            "help": "keep white space in chrF character n-grams (default: no)",
        },
    ),
    Option(
        ("--chrf-lowercase",),
        "chrf_lowercase",
        False,
        {
            "action": argparse.BooleanOptionalAction,
            "help": "lowercase hypotheses and references for chrF (default: no)",
        },
    ),
    Option(
        ("--chrf-eps-smoothing",),
        "chrf_eps_smoothing",
        False,
        {
            "action": argparse.BooleanOptionalAction,
            "help": "epsilon smoothing as chrF++.py, NLTK and Moses, instead of "
            "effective order (default: no)",
        },
    ),
)

# Nothing.  beta and eps_smoothing look like score-only settings, and with
# one reference they are, but SacreBLEU keeps the statistics of the
# reference with the best f-score, and that f-score is computed with beta
# and the smoothing: with several references, changing either can change
# which reference's statistics a segment gets.  Statistics counted under one
# beta, rescored under another, would not be SacreBLEU's.
SCORE_ONLY: frozenset[str] = frozenset()


def settings_from(options: Mapping[str, Any]) -> Settings:
    """The chrF settings of resolved options, by dest (a missing or None value
    takes the option's default)."""
    values = {}
    for option in OPTIONS:
        value = options.get(option.dest)
        values[option.dest] = option.default if value is None else value
    if values["chrf_char_order"] + values["chrf_word_order"] == 0:
        raise UsageError("--chrf-char-order and --chrf-word-order cannot both be 0")
    try:
        return Settings(
            char_order=values["chrf_char_order"],
            word_order=values["chrf_word_order"],
            beta=values["chrf_beta"],
            lowercase=values["chrf_lowercase"],
            whitespace=values["chrf_whitespace"],
            eps_smoothing=values["chrf_eps_smoothing"],
        )
    except ValueError as e:
        raise UsageError(f"chrF: {e}") from None


def label(settings: Settings) -> str:
    """SacreBLEU's name of the score: ``chrF2``, ``chrF2++``, ``chrF1+``."""
    return f"chrF{settings.beta}" + "+" * settings.word_order


def row_size(settings: Settings) -> int:
    return 3 * settings.order


# ----------------------------------------------------------------------------
# Counting
# ----------------------------------------------------------------------------

# One order of one reference: its n-grams, their total, and whether no n-gram
# repeats.  The n-grams are a dict of counts, or a set once they are distinct.
OrderGrams = tuple[Any, int, bool]
# One reference: its character orders, then its word orders.
PreparedRef = tuple[tuple[OrderGrams, ...], tuple[OrderGrams, ...]]
# Appends one item to each n-gram, making the n-grams of the next order:
# strings for characters, nested pairs (("a", "b"), "c") for words (SacreBLEU
# joins words with a space; words hold no white space, so both are
# one-to-one).
Extend = Callable[[Any, Sequence[Any]], Iterator[Any]]
_EXTEND_CHARS: Extend = partial(map, operator.add)
_EXTEND_WORDS: Extend = zip


def split_words(line: str) -> list[str]:
    """SacreBLEU's chrF++ words (``CHRF._remove_punctuation``).

    A word longer than one character loses one ASCII punctuation mark at its
    end, or else at its start, which becomes a word of its own; only one
    mark, so ``"(hi)"`` gives ``"(hi"`` and ``")"``.
    """
    out: list[str] = []
    punctuation = _PUNCTUATION
    for word in line.split():
        if len(word) > 1:
            if word[-1] in punctuation:
                out += (word[:-1], word[-1])
                continue
            if word[0] in punctuation:
                out += (word[0], word[1:])
                continue
        out.append(word)
    return out


def _ngrams(items: Sequence[Any], extend: Extend, as_set: bool) -> Iterator[tuple[Any, bool]]:
    """The n-grams of ``items``, order 1, 2, ... ``len(items)``, as needed.

    Yields ``(grams, distinct)`` per order: ``grams`` is a dict of counts
    while some n-gram repeats, and once none does (then none does at any
    higher order: distinct (n-1)-gram prefixes make distinct n-grams) just
    the n-grams, as a set (``as_set``, to be looked up) or a list (to look
    up with).
    """
    counts: dict = {}
    _count_into(counts, items)
    distinct = len(counts) == len(items)
    yield counts, distinct
    grams: Any = items
    for n in range(1, len(items)):
        grams = list(extend(grams, items[n:]))
        if distinct:
            yield (set(grams) if as_set else grams), True
        else:
            counts = {}
            _count_into(counts, grams)
            distinct = len(counts) == len(grams)
            yield counts, distinct


def _prepared_orders(items: Sequence[Any], extend: Extend, orders: int) -> tuple[OrderGrams, ...]:
    length = len(items)
    grams = _ngrams(items, extend, as_set=True)
    out = []
    for n in range(1, orders + 1):
        total = length - n + 1
        if total > 0:
            lookup, distinct = next(grams)
            out.append((lookup, total, distinct))
        else:
            out.append(((), 0, True))
    return tuple(out)


def prepare_refs(settings: Settings) -> Callable[[Sequence[str]], tuple[PreparedRef, ...]]:
    """References to their n-grams (SacreBLEU's ``_extract_reference_info``)."""
    char_order, word_order = settings.char_order, settings.word_order
    lowercase, whitespace = settings.lowercase, settings.whitespace

    def prepare_one(ref: str) -> PreparedRef:
        if lowercase:
            ref = ref.lower()
        chars = ref if whitespace else "".join(ref.split())
        char_part = _prepared_orders(chars, _EXTEND_CHARS, char_order)
        word_part: tuple[OrderGrams, ...] = ()
        if word_order:
            word_part = _prepared_orders(split_words(ref), _EXTEND_WORDS, word_order)
        return char_part, word_part

    def prepare(refs: Sequence[str]) -> tuple[PreparedRef, ...]:
        if not refs:
            raise ValueError("a segment needs at least one reference")
        return tuple(map(prepare_one, refs))

    return prepare


def _order_stats(
    out: list[int],
    hyp_len: int,
    hyp_grams: list[tuple[Any, bool]],
    more_hyp_grams: Iterator[tuple[Any, bool]],
    ref_orders: tuple[OrderGrams, ...],
) -> None:
    """Appends the ``(hyp, ref, match)`` triplets of one kind of n-gram to ``out``.

    ``hyp_grams`` caches the hypothesis n-grams of the orders made so far
    (shared between references); ``more_hyp_grams`` yields the next ones.
    The clipped match count is the number of common n-grams when either
    side has no repeated n-gram, else the sum of the smaller counts.
    """
    alive = True  # may order n still match (did order n-1)?
    for n, (ref, ref_total, ref_distinct) in enumerate(ref_orders, 1):
        hyp_total = hyp_len - n + 1
        if hyp_total < 0:
            hyp_total = 0
        if alive and hyp_total and ref_total:
            if len(hyp_grams) < n:
                hyp_grams.append(next(more_hyp_grams))
            hyp, hyp_distinct = hyp_grams[n - 1]
            if hyp_distinct:
                match = sum(map(ref.__contains__, hyp))
            elif ref_distinct:
                match = len(hyp.keys() & ref)
            else:
                match = sum(map(min, hyp.values(), map(ref.get, hyp, repeat(0))))
            alive = match > 0
        else:
            match = 0
            alive = False
        # SacreBLEU counts no hypothesis n-grams against a reference without any.
        out += (hyp_total if ref_total else 0, ref_total, match)


def f_score(stats: Sequence[int], order: int, beta: int, eps_smoothing: bool) -> float:
    """SacreBLEU's ``CHRF._compute_f_score``, operation for operation."""
    eps = _EPS
    score = 0.0
    effective_order = 0
    factor = beta**2
    avg_prec, avg_rec = 0.0, 0.0

    for i in range(order):
        n_hyp, n_ref, n_match = stats[3 * i : 3 * i + 3]

        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps

        if eps_smoothing:  # the per-order sum is used by eps smoothing only
            denom = factor * prec + rec
            score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps

        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective_order += 1

    if eps_smoothing:
        return 100 * score / order

    if effective_order == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective_order
        avg_rec /= effective_order

    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100 * score
    return 0.0


def count(settings: Settings) -> Callable[[str, tuple[PreparedRef, ...]], Row]:
    """A hypothesis against its prepared references, to the best reference's row
    (SacreBLEU's ``_compute_segment_statistics``)."""
    word_order = settings.word_order
    lowercase, whitespace = settings.lowercase, settings.whitespace
    order, beta, eps_smoothing = settings.order, settings.beta, settings.eps_smoothing

    def hyp_row(hyp: str, refs: tuple[PreparedRef, ...]) -> Row:
        if lowercase:
            hyp = hyp.lower()
        chars = hyp if whitespace else "".join(hyp.split())
        char_grams: list[tuple[Any, bool]] = []
        more_char_grams = _ngrams(chars, _EXTEND_CHARS, as_set=False)
        words: list[str] = []
        word_grams: list[tuple[Any, bool]] = []
        if word_order:
            words = split_words(hyp)
        more_word_grams = _ngrams(words, _EXTEND_WORDS, as_set=False)

        best: list[int] = []
        best_f = -1.0
        for ref_chars, ref_words in refs:
            stats: list[int] = []
            _order_stats(stats, len(chars), char_grams, more_char_grams, ref_chars)
            if word_order:
                _order_stats(stats, len(words), word_grams, more_word_grams, ref_words)
            if len(refs) == 1:
                return tuple(stats)
            f = f_score(stats, order, beta, eps_smoothing)
            if f > best_f:
                best_f = f
                best = stats
        return tuple(best)

    return hyp_row


# ----------------------------------------------------------------------------
# Scores and their presentation
# ----------------------------------------------------------------------------


def score(row: Sequence[Any], settings: Settings) -> ChrfScore:
    """Corpus chrF of summed statistics."""
    if len(row) != row_size(settings):
        raise ValueError(f"a chrF row of {len(row)} numbers, {row_size(settings)} expected")
    value = f_score(row, settings.order, settings.beta, settings.eps_smoothing)
    return ChrfScore(value, tuple(row))


def sentence_score(row: Sequence[Any], settings: Settings) -> ChrfScore:
    """Sentence chrF: SacreBLEU's ``sentence_score`` is its corpus score of
    one segment, so the same computation."""
    return score(row, settings)


def signature(settings: Settings, nrefs: int | str) -> dict[str, str]:
    """SacreBLEU's ``CHRFSignature`` fields in its order, ``version`` last."""
    return {
        "nrefs": str(nrefs),
        "case": "lc" if settings.lowercase else "mixed",
        "eff": "no" if settings.eps_smoothing else "yes",
        "nc": str(settings.char_order),
        "nw": str(settings.word_order),
        "space": "yes" if settings.whitespace else "no",
        "version": f"bleustream-{__version__}",
    }


def _triplets(chrf: ChrfScore, settings: Settings) -> list[tuple[str, int, int, int]]:
    """(prefix, hyp, ref, match) per order: ``c1``..``cN``, then ``w1``..``wM``."""
    row = chrf.row
    names = [f"c{n}" for n in range(1, settings.char_order + 1)]
    names += [f"w{n}" for n in range(1, settings.word_order + 1)]
    return [(name, *row[3 * i : 3 * i + 3]) for i, name in enumerate(names)]  # type: ignore[misc]


def json_fields(chrf: ChrfScore, settings: Settings) -> dict[str, Any]:
    """The raw statistics, one list per kind, indexed by order - 1.

    ``char_hyp``, ``char_ref``, ``char_match``: character n-grams of the
    hypothesis, of the chosen reference, and matched (clipped); then
    ``word_hyp``, ``word_ref``, ``word_match`` likewise for words, only when
    ``word_order`` > 0.
    """
    row = list(chrf.row)
    chars, words = row[: 3 * settings.char_order], row[3 * settings.char_order :]
    fields = {"char_hyp": chars[0::3], "char_ref": chars[1::3], "char_match": chars[2::3]}
    if settings.word_order:
        fields.update(word_hyp=words[0::3], word_ref=words[1::3], word_match=words[2::3])
    return fields


def tsv_fields(chrf: ChrfScore, settings: Settings) -> list[tuple[str, str]]:
    """``chrf``, then ``chrf_c1_hyp``, ``chrf_c1_ref``, ``chrf_c1_match``, ...,
    ``chrf_w1_hyp``, ...: one column per statistic."""
    out = [("chrf", repr(chrf.score))]
    for name, hyp, ref, match in _triplets(chrf, settings):
        out += [
            (f"chrf_{name}_hyp", str(hyp)),
            (f"chrf_{name}_ref", str(ref)),
            (f"chrf_{name}_match", str(match)),
        ]
    return out


def verbose(chrf: ChrfScore, settings: Settings) -> str:
    """SacreBLEU prints nothing after a chrF score."""
    return ""


def score_rows(sums: Any, settings: Settings) -> Any:
    """Scores of many summed rows at once (numpy), with SacreBLEU's resampling arithmetic."""
    from bleustream.batch import chrf_rows

    return chrf_rows(sums, settings)
