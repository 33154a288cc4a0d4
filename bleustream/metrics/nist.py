"""NIST, as Moses' mteval-v13a.pl computes it: statistics, weights and scores.

NIST weighs each matched n-gram by its information, read from the
references of the whole corpus::

    info(w1..wn) = -log2(count(w1..wn) / count(w1..wn-1))

with counts summed over every reference of every segment (for unigrams the
denominator is the number of reference words).  A segment credits each
distinct hypothesis n-gram found in one of its references
``min(hypothesis count, largest count in any one reference)`` times; the
score sums, per order up to ``order``, the weighted matches over the
hypothesis n-grams, times mteval's length penalty
``exp(-beta * log(r)**2)`` (``r`` = hypothesis words over the mean
reference length, capped at 1; ``beta = -log(0.5) / log(1.5)**2``).

The weights need every reference of the corpus, so NIST does not fit the
fixed-size rows of the other metrics while counting.  Its sufficient
statistics are two parts that add:

* ``RefTable``: the count of every reference n-gram over the corpus and
  the number of reference words (tables of shards merge by addition);
* ``SegmentCounts``: per segment and system, the hypothesis length, the
  words of its references, and each distinct matched n-gram's clipped
  count.

Once the table is complete, ``weighted_row`` turns a segment's counts into a
fixed-size row ``(ref_words, *hyp_ngrams[1..order], *info[1..order])`` that
adds like the other metrics' rows, and ``score`` is a pure function of a
summed row.

mteval's quirks are kept (see docs/nist.md): Perl's truth of the string
``"0"`` (a bigram ``0 x`` is weighed against all reference words, as a
unigram is), its tokenizers (``bleustream.tokenizers.mteval``), documents
summed in the string order of their ids, and no score where all of a
segment's references are empty (mteval dies dividing by zero).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from bleustream._version import __version__
from bleustream.errors import UsageError
from bleustream.frozen import Frozen
from bleustream.metrics.nist_options import (  # noqa: F401 (the metric's surface)
    DEFAULT_ORDER,
    LOOP,
    MAX_ORDER,
    NAME,
    OPTIONS,
    SCORE_ONLY,
    SCORE_ONLY_ONE_REF,
    TITLE,
)
from bleustream.metrics.protocol import Row, is_number, is_whole, whole_counts

# NIST takes BLEU's -tok: 13a (the default) is mteval's own rules, which
# 13a was written after; intl its --international-tokenization; none splits
# at white space only.
TOKENIZE = {"13a": "mteval-13a", "intl": "mteval-intl", "none": "none"}

_LOG2 = math.log(2)

# Where mteval-v13a dies dividing by zero, bleustream stops with this (65).
EMPTY_REFERENCES = (
    "every reference of this segment is empty: NIST is undefined "
    "(mteval-v13a dies here, dividing by zero)"
)
_BETA = -math.log(0.5) / math.log(1.5) / math.log(1.5)


class Settings(Frozen):
    """Everything that decides a NIST score.

    ``nrefs`` (references per segment) enters the length penalty; a run
    sets it once the first segment is read.
    """

    case_sensitive: bool = False
    tokenize: str = "13a"
    order: int = DEFAULT_ORDER
    nrefs: int = 1

    def __post_init__(self) -> None:
        if self.tokenize not in TOKENIZE:
            raise ValueError(
                f"NIST tokenizes as mteval: 13a (its rules), intl or none, not {self.tokenize!r}"
            )
        if not (isinstance(self.order, int) and 1 <= self.order <= MAX_ORDER):
            raise ValueError(f"the NIST order must be from 1 to {MAX_ORDER}, not {self.order!r}")
        if not (isinstance(self.nrefs, int) and self.nrefs >= 1):
            raise ValueError(f"the number of references must be at least 1, not {self.nrefs!r}")


DEFAULT_SETTINGS = Settings()


def words_of(settings: Settings) -> Callable[[str], list[str]]:
    """A line to the words NIST counts, as the settings tokenize."""
    # Imported here: its Unicode tables take a while to compile, and only a
    # run that scores NIST needs them.
    from bleustream.tokenizers.mteval import mteval_words, whitespace_words

    keep = settings.case_sensitive
    if settings.tokenize == "none":
        return lambda line: whitespace_words(line, keep)
    international = settings.tokenize == "intl"
    return lambda line: mteval_words(line, keep, international)


def ngram_counts(words: Sequence[str], order: int) -> dict[str, int]:
    """The n-grams of ``words`` (n = 1..order) as space-joined strings,
    mteval's hash keys, with their counts."""
    counts: dict[str, int] = {}
    length = len(words)
    for i in range(length):
        gram = words[i]
        counts[gram] = counts.get(gram, 0) + 1
        for j in range(i + 1, min(i + order, length)):
            gram = gram + " " + words[j]
            counts[gram] = counts.get(gram, 0) + 1
    return counts


@dataclass
class RefTable:
    """Reference n-gram counts over the whole corpus: the source of the weights."""

    order: int = DEFAULT_ORDER
    counts: dict[str, int] = field(default_factory=dict)
    words: int = 0

    def add(self, refs: Sequence[Sequence[str]]) -> None:
        """One segment's references, as words."""
        counts = self.counts
        for ref in refs:
            self.words += len(ref)
            for gram, k in ngram_counts(ref, self.order).items():
                counts[gram] = counts.get(gram, 0) + k

    def __add__(self, other: RefTable) -> RefTable:
        if other.order != self.order:
            raise ValueError("reference tables of different orders")
        counts = dict(self.counts)
        for gram, k in other.counts.items():
            counts[gram] = counts.get(gram, 0) + k
        return RefTable(self.order, counts, self.words + other.words)

    def info(self, gram: str) -> float:
        """mteval's ``-log($mgram ? c/c{$mgram} : c/$tot_wrds) / log 2``.

        ``$mgram ?`` is Perl's truth of the prefix: false for "" (a unigram)
        and for the string "0", so a bigram ``0 x`` is divided by the
        reference words too.
        """
        prefix, _, _ = gram.rpartition(" ")
        count = self.counts[gram]
        if prefix and prefix != "0":
            return -math.log(count / self.counts[prefix]) / _LOG2
        return -math.log(count / self.words) / _LOG2


class SegmentCounts(NamedTuple):
    """One hypothesis against its references, before the weights are known."""

    hyp_len: int
    ref_len: int  # words in all of the segment's references
    matched: dict[str, int]  # distinct matched hypothesis n-gram: its clipped count


def segment_counts(
    hyp: Sequence[str], refs: Sequence[Sequence[str]], order: int = DEFAULT_ORDER
) -> SegmentCounts:
    """Each hypothesis n-gram clipped at its largest count in any one reference."""
    if len(refs) == 1:
        most = ngram_counts(refs[0], order)
    else:
        most = {}
        for ref in refs:
            for gram, k in ngram_counts(ref, order).items():
                if k > most.get(gram, 0):
                    most[gram] = k
    matched = {g: min(k, most[g]) for g, k in ngram_counts(hyp, order).items() if g in most}
    return SegmentCounts(len(hyp), sum(map(len, refs)), matched)


def weighted_row(
    counts: SegmentCounts, table: RefTable, cache: dict[str, float] | None = None
) -> Row:
    """A segment's row ``(ref_words, *hyp_ngrams, *info)``, the weights read
    from the complete ``table`` (``cache`` keeps weights already computed)."""
    order = table.order
    info = [0.0] * order
    weights = {} if cache is None else cache
    for gram, k in counts.matched.items():
        weight = weights.get(gram)
        if weight is None:
            weight = weights[gram] = table.info(gram)
        info[gram.count(" ")] += weight * k
    hyp_len = counts.hyp_len
    totals = [max(hyp_len - n, 0) for n in range(order)]
    return (counts.ref_len, *totals, *info)


def info_sums(matched: Mapping[str, int], table: RefTable, order: int) -> list[float]:
    """The information of matched n-grams (each with its clipped count,
    summed over segments), per order: added in the n-grams' sorted order, so
    that the sums do not depend on how the segments were split or merged."""
    info = [0.0] * order
    for gram in sorted(matched):
        info[gram.count(" ")] += table.info(gram) * matched[gram]
    return info


@dataclass
class SystemCounts:
    """One system's counts over some segments, before the weights are known:
    the words of all references, hypothesis n-grams per order, and per
    distinct matched hypothesis n-gram its clipped count, summed."""

    order: int = DEFAULT_ORDER
    ref_len: int = 0
    totals: list[int] = field(default_factory=list)
    matched: dict[str, int] = field(default_factory=dict)
    segments: int = 0

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = [0] * self.order

    def add(self, counts: SegmentCounts) -> None:
        self.segments += 1
        self.ref_len += counts.ref_len
        for n in range(self.order):
            self.totals[n] += max(counts.hyp_len - n, 0)
        matched = self.matched
        for gram, k in counts.matched.items():
            matched[gram] = matched.get(gram, 0) + k

    def merge(self, other: SystemCounts) -> None:
        """Adds ``other``'s counts into these (in place)."""
        self.segments += other.segments
        self.ref_len += other.ref_len
        self.totals = [a + b for a, b in zip(self.totals, other.totals)]
        matched = self.matched
        for gram, k in other.matched.items():
            matched[gram] = matched.get(gram, 0) + k

    def row(self, table: RefTable) -> Row:
        """``(ref_words, *hyp_ngrams, *info)``, weighed by the complete table."""
        return (self.ref_len, *self.totals, *info_sums(self.matched, table, self.order))


@dataclass
class NistCorpus:
    """What NIST keeps of a corpus: the reference table and each system's
    counts.  Corpora merge (``merge``), in any order, to the same scores:
    the statistics of shards, of ``-j`` blocks, or of ``-f stats`` records."""

    order: int
    systems: list[SystemCounts]
    table: RefTable
    segments: int = 0
    nrefs: int | None = None

    @classmethod
    def empty(cls, order: int, systems: int) -> NistCorpus:
        return cls(order, [SystemCounts(order) for _ in range(systems)], RefTable(order))

    def add(
        self, hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]
    ) -> list[SegmentCounts]:
        """One segment: every system's words and the references' words."""
        self.table.add(refs)
        self.segments += 1
        if self.nrefs is None:
            self.nrefs = len(refs)
        out = []
        for system, hyp in zip(self.systems, hyps):
            counts = segment_counts(hyp, refs, self.order)
            system.add(counts)
            out.append(counts)
        return out

    def merge(self, other: NistCorpus) -> None:
        """Adds ``other`` (a later part of the corpus) into this one, in place."""
        if other.order != self.order or len(other.systems) != len(self.systems):
            raise ValueError("cannot merge NIST statistics of other settings or systems")
        counts = self.table.counts
        for gram, k in other.table.counts.items():
            counts[gram] = counts.get(gram, 0) + k
        self.table.words += other.table.words
        for mine, theirs in zip(self.systems, other.systems):
            mine.merge(theirs)
        self.segments += other.segments
        self.nrefs = self.nrefs if self.nrefs is not None else other.nrefs

    def rows(self) -> list[Row]:
        """Each system's summed row, the weights from the whole table."""
        return [system.row(self.table) for system in self.systems]


# ``-f stats`` of NIST: one corpus record per system, whose ``stats`` is an
# object of tables, not a row (docs/stats-record.md).


def stats_object(corpus: NistCorpus, index: int) -> dict[str, Any]:
    """The ``stats`` of system ``index``'s record: the reference table and its counts."""
    system = corpus.systems[index]
    return {
        "ref_words": corpus.table.words,
        "ref_ngrams": dict(sorted(corpus.table.counts.items())),
        "ref_len": system.ref_len,
        "hyp_ngrams": list(system.totals),
        "matched": dict(sorted(system.matched.items())),
    }


def _counts(value: Any, what: str) -> dict[str, int]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and is_whole(v) and v > 0 for k, v in value.items()
    ):
        raise ValueError(f"{what} must map n-grams to whole numbers above 0")
    return value


def corpus_of_stats(stats: Any, order: int, segments: int, nrefs: int) -> NistCorpus:
    """A one-system ``NistCorpus`` from a record's ``stats``; a ValueError says what is wrong."""
    if not isinstance(stats, dict):
        raise ValueError("NIST's stats are an object of tables")
    missing = {"ref_words", "ref_ngrams", "ref_len", "hyp_ngrams", "matched"} - set(stats)
    if missing:
        raise ValueError(f"NIST's stats lack {', '.join(sorted(missing))}")
    table = RefTable(order, _counts(stats["ref_ngrams"], "ref_ngrams"))
    table.words = stats["ref_words"]
    matched = _counts(stats["matched"], "matched")
    totals = stats["hyp_ngrams"]
    if not (isinstance(totals, list) and len(totals) == order and not whole_counts(totals)):
        raise ValueError(f"hyp_ngrams must be {order} whole numbers")
    for name in ("ref_words", "ref_len"):
        if not (is_whole(stats[name]) and stats[name] >= 0):
            raise ValueError(f"{name} must be a whole number")
    if any(gram.count(" ") >= order or gram not in table.counts for gram in matched):
        raise ValueError("a matched n-gram is not in the reference table")
    system = SystemCounts(order, stats["ref_len"], list(totals), dict(matched), segments)
    return NistCorpus(order, [system], table, segments, nrefs)


def length_penalty(ratio: float) -> float:
    """mteval's ``nist_length_penalty``."""
    if ratio >= 1:
        return 1.0
    if ratio <= 0:
        return 0.0
    return math.exp(-_BETA * math.log(ratio) * math.log(ratio))


@dataclass
class NistResult:
    """A NIST score with its parts; ``cumulative[n-1]`` is NIST up to order n."""

    score: float
    cumulative: tuple[float, ...]
    individual: tuple[float, ...]
    lp: float
    ratio: float
    row: Row

    @property
    def ref_len(self) -> int:
        return self.row[0]

    @property
    def hyp_len(self) -> int:
        return self.row[1]


def nist_of_row(row: Sequence[Any], settings: Settings = DEFAULT_SETTINGS) -> NistResult:
    """NIST of a summed row, in mteval's floating-point order.  A row with no
    reference words (no segments) scores 0."""
    order = settings.order
    if len(row) != 1 + 2 * order:
        raise ValueError(f"NIST statistics of order {(len(row) - 1) // 2} scored with {order}")
    ref_len = row[0]
    totals, info = row[1 : 1 + order], row[1 + order :]
    if ref_len == 0:
        zeros = (0.0,) * order
        return NistResult(0.0, zeros, zeros, 0.0, 0.0, tuple(row))
    ratio = totals[0] / (ref_len / settings.nrefs)
    lp = length_penalty(ratio)
    cumulative, individual, total = [], [], 0.0
    for weighted, count in zip(info, totals):
        part = weighted / max(count, 1)
        total += part
        cumulative.append(total * lp)
        individual.append(part * lp)
    return NistResult(cumulative[-1], tuple(cumulative), tuple(individual), lp, ratio, tuple(row))


def add_row(a: Sequence[Any], b: Sequence[Any]) -> Row:
    return tuple(map(operator.add, a, b))


# ----------------------------------------------------------------------------
# A corpus at once (the library's entry, and what the tests compare)
# ----------------------------------------------------------------------------


@dataclass
class NistCorpusResult:
    """System, document and segment scores of one system."""

    system: NistResult
    docs: dict[str, NistResult]
    segments: list[NistResult]


class EmptyReferences(ValueError):
    """A segment whose references are all empty: mteval dies dividing by zero."""

    def __init__(self, index: int) -> None:
        super().__init__(f"segment {index + 1}: every reference is empty; NIST is undefined")
        self.index = index


def corpus_nist(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    settings: Settings | None = None,
    docids: Sequence[str] | None = None,
) -> NistCorpusResult:
    """NIST of a system's lines against reference streams (``refs[k][i]`` is
    reference k of line i, as SacreBLEU takes them).

    Documents (``docids``, one per line; one document by default) are
    summed in the string order of their ids, segments in input order, as
    mteval sums them.  Raises ``EmptyReferences`` where mteval dies.
    """
    settings = (settings or DEFAULT_SETTINGS)._replace(nrefs=len(refs))
    n = len(hyps)
    if any(len(stream) != n for stream in refs):
        raise ValueError("every reference stream needs one line per hypothesis")
    words = words_of(settings)
    table = RefTable(settings.order)
    counted = []
    for i, hyp in enumerate(hyps):
        ref_words = [words(stream[i]) for stream in refs]
        if not any(ref_words):
            raise EmptyReferences(i)
        table.add(ref_words)
        counted.append(segment_counts(words(hyp), ref_words, settings.order))
    cache: dict[str, float] = {}
    rows = [weighted_row(c, table, cache) for c in counted]
    by_doc: dict[str, SystemCounts] = {}
    whole = SystemCounts(settings.order)
    for i, counts in enumerate(counted):
        doc = "doc1" if docids is None else docids[i]
        by_doc.setdefault(doc, SystemCounts(settings.order)).add(counts)
        whole.add(counts)
    return NistCorpusResult(
        nist_of_row(whole.row(table), settings),
        {doc: nist_of_row(c.row(table), settings) for doc, c in sorted(by_doc.items())},
        [nist_of_row(row, settings) for row in rows],
    )


# ----------------------------------------------------------------------------
# The metric surface (see bleustream.metrics.protocol).  NIST is scored at
# the end of a run from tables of the whole input: its loop is "corpus".
# ----------------------------------------------------------------------------


def settings_from(options: Mapping[str, Any]) -> Settings:
    tokenize = options.get("tokenize") or "13a"
    if tokenize not in TOKENIZE:
        raise UsageError(
            f"-m nist tokenizes as mteval-v13a: -tok 13a (its own rules, the default), "
            f"intl (its --international-tokenization) or none, not {tokenize}"
        )
    return Settings(
        case_sensitive=bool(options.get("nist_case_sensitive", False)),
        tokenize=tokenize,
        order=int(options.get("nist_order") or DEFAULT_ORDER),
    )


def label(settings: Settings) -> str:
    return "NIST"


def row_size(settings: Settings) -> int:
    return 1 + 2 * settings.order


def check_row(row: Sequence[Any], settings: Settings) -> str | None:
    order = settings.order
    problem = whole_counts(row[: 1 + order])
    if problem is not None:
        return problem
    for value in row[1 + order :]:
        if not is_number(value) or not value >= 0:
            return f"information sums must be numbers of at least 0, not {value!r}"
    return None


def score(row: Sequence[Any], settings: Settings) -> NistResult:
    return nist_of_row(row, settings)


def sentence_score(row: Sequence[Any], settings: Settings) -> NistResult:
    """A segment's NIST, as mteval -d 2 prints it: the same formula."""
    return nist_of_row(row, settings)


def signature(settings: Settings, nrefs: int | str) -> dict[str, str]:
    return {
        "nrefs": str(nrefs),
        "case": "mixed" if settings.case_sensitive else "lc",
        "tok": TOKENIZE[settings.tokenize],
        "order": str(settings.order),
        "version": f"bleustream-{__version__}",
    }


def json_fields(nist: NistResult, settings: Settings) -> dict[str, Any]:
    order = settings.order
    return {
        "cumulative": list(nist.cumulative),
        "individual": list(nist.individual),
        "lp": nist.lp,
        "ratio": nist.ratio,
        "hyp_len": nist.hyp_len,
        "ref_len": nist.ref_len,
        "totals": list(nist.row[1 : 1 + order]),
        "info": list(nist.row[1 + order :]),
    }


def tsv_fields(nist: NistResult, settings: Settings) -> list[tuple[str, str]]:
    orders = range(1, settings.order + 1)
    return [
        ("nist", repr(nist.score)),
        *((f"nist{n}", repr(c)) for n, c in zip(orders, nist.cumulative)),
        ("nist_lp", repr(nist.lp)),
        ("nist_ratio", repr(nist.ratio)),
        ("nist_hyp_len", str(nist.hyp_len)),
        ("nist_ref_len", str(nist.ref_len)),
    ]


def verbose(nist: NistResult, settings: Settings, width: int = 1) -> str:
    """The cumulative n-gram scores (to ``width`` decimals, as the score), then
    the length penalty."""
    cumulative = "/".join(f"{c:.{width}f}" for c in nist.cumulative)
    return (
        f"{cumulative} (LP = {nist.lp:.3f} ratio = {nist.ratio:.3f} "
        f"hyp_len = {nist.hyp_len:d} ref_len = {nist.ref_len:d})"
    )
