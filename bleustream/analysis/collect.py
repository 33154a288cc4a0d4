"""The analysis of a stream: segments in, every analysis's running state kept.

``Analyzer.add`` takes one segment (every system's hypothesis, its
references, its source when known) and updates:

* each system's summed statistics of every metric, and the running score;
* the sentence buckets (by reference length, by the baseline's length
  minus the reference's, by the baseline's sentence BLEU): per bucket the
  segments and each system's summed statistics; compare-mt's own count per
  system (each system bucketed by its own hypothesis) beside them;
* word accuracy by frequency (``words.WordTally``), n-gram matches
  (``ngrams.NgramMatches``) and the top examples (``examples.TopExamples``).

With intervals asked for (``samples > 0``), each segment's statistics and
bucket numbers are kept as well (``SegmentStore``'s compact arrays), as
``-ci`` keeps them: the bootstrap resamples segments.

The sums are kept flat: one row of every system's and metric's numbers
(``RowLayout``), so a segment is added to the totals and to each kind's
bucket by one ``add_rows`` each, the same additions in the same order
as summing row by row; ``totals`` and ``bucket_rows`` give them per system
and metric.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import accumulate
from typing import Any, Callable

from bleustream.analysis.examples import TopExamples
from bleustream.analysis.ngrams import NgramMatches
from bleustream.analysis.running import RunningScores, from_rows, step_for
from bleustream.analysis.settings import SENTENCE_KINDS, AnalysisSettings
from bleustream.analysis.words import WordTally
from bleustream.metrics import bleu
from bleustream.metrics.counting import SegmentCounter
from bleustream.metrics.protocol import Row, add_rows
from bleustream.metrics.registry import Spec
from bleustream.significance.resampling import SegmentStore

Flat = Row  # every system's rows, one after another, summed by add_rows


class RowLayout:
    """Where each system's and metric's row lies in a flat list."""

    def __init__(self, specs: Sequence[Spec], systems: int) -> None:
        widths = [len(spec.zero()) for spec in specs] * systems
        self.metrics = len(specs)
        self.width = sum(widths)
        self.cuts = [0, *accumulate(widths)]

    def flat(self, rows: Sequence[Sequence[Row]]) -> Flat:
        """One segment's rows (per system, per metric) as one flat row."""
        out = tuple([x for per_system in rows for row in per_system for x in row])
        if len(out) != self.width:
            raise ValueError(f"{len(out)} statistics, not {self.width}")
        return out

    def nested(self, flat: Sequence[Any]) -> list[tuple[Row, ...]]:
        """A flat list as rows, per system and metric."""
        cuts, k = self.cuts, self.metrics
        rows = [tuple(flat[a:b]) for a, b in zip(cuts, cuts[1:])]
        return [tuple(rows[i : i + k]) for i in range(0, len(rows), k)]


def _bucket_values(
    ref_words: Sequence[str], hyp_words: Sequence[Sequence[str]], sentence: Sequence[float]
) -> tuple[Sequence[float], ...]:
    """Each system's value for each kind of sentence bucket (SENTENCE_KINDS's order)."""
    ref_len = len(ref_words)
    return (
        [ref_len] * len(hyp_words),
        [len(h) - ref_len for h in hyp_words],
        sentence,
    )


def _sentence_values(
    settings: bleu.Settings, at: int
) -> Callable[[Sequence[Sequence[Row]]], Sequence[float]]:
    """Each system's sentence BLEU from one segment's rows (BLEU's at
    ``at``), as ``Spec.sentence_score`` gives it: in one C call where the
    kernels score these settings, else row by row."""
    settings = bleu.sentence_settings(settings)
    values = bleu.score_values_batch(settings)
    return lambda rows: values([r[at] for r in rows])


def bleu_index(specs: Sequence[Spec]) -> int:
    """Where BLEU is among the metrics: sentence scores and words need it."""
    for index, spec in enumerate(specs):
        if spec.name == bleu.NAME:
            return index
    raise ValueError("the analyses need BLEU among the metrics (-m bleu ...)")


class Analyzer:
    """Every analysis of one stream of segments, one segment at a time."""

    def __init__(
        self,
        specs: Sequence[Spec],
        names: Sequence[str],
        settings: AnalysisSettings,
        offset: int = 0,
    ) -> None:
        if not names:
            raise ValueError("an analysis needs at least one system")
        self.specs = tuple(specs)
        self.names = list(names)
        self.settings = settings
        self.bleu = bleu_index(self.specs)
        bleu_settings = self.specs[self.bleu].settings
        # BLEU's preprocessing, run once a segment: its tokens are the words
        # of the analyses, and BLEU's row is counted from them.
        self.tokenize = bleu.preprocess(bleu_settings)
        self._ref_tokens = bleu.prepare_ref_tokens(bleu_settings)
        self._count_tokens = bleu.count_tokens(bleu_settings)
        systems = len(self.names)
        self.counter = SegmentCounter(self.specs, systems)
        self._others: SegmentCounter | None = None  # the other metrics' (made when needed)
        # Segments of the whole stream before this part's first (-j N's
        # workers know it; a shard read back does not, and counts from 0).
        self.offset = offset
        self.segments = 0
        self.nrefs: set[int] = set()
        self.layout = RowLayout(self.specs, systems)
        self._sentence_values = _sentence_values(bleu_settings, self.bleu)
        self._totals: Flat = (0,) * self.layout.width
        self.edges = {kind: settings.edges(kind) for kind in SENTENCE_KINDS}
        # Per kind, per bucket: segments, and the summed rows (flat).
        self.bucket_segments = {k: [0] * len(e) for k, e in self.edges.items()}
        self._buckets: dict[str, list[Flat]] = {
            k: [(0,) * self.layout.width for _ in range(len(e))] for k, e in self.edges.items()
        }
        # compare-mt's count: each system in the bucket of its own hypothesis.
        self.own_counts = {k: [[0] * len(e) for _ in range(systems)] for k, e in self.edges.items()}
        keep = settings.samples > 0
        self.store = SegmentStore(systems, len(self.specs)) if keep else None
        self.keys = {k: array("h") for k in SENTENCE_KINDS} if keep else None
        self.words = WordTally(systems, keep_segments=keep)
        low, high = settings.ngram_orders
        self.ngrams = NgramMatches(systems, low, high)
        self.examples = [TopExamples(settings.examples) for _ in range(systems - 1)]
        self.running = RunningScores()
        self.merged = False  # parts were merged into this one

    @property
    def systems(self) -> int:
        return len(self.names)

    @property
    def totals(self) -> list[tuple[Row, ...]]:
        """Per system, per metric, the summed statistics."""
        return self.layout.nested(self._totals)

    @totals.setter
    def totals(self, rows: Sequence[Sequence[Row]]) -> None:
        self._totals = self.layout.flat(rows)

    @property
    def bucket_rows(self) -> dict[str, list[list[tuple[Row, ...]]]]:
        """Per kind, per bucket, per system and metric, the summed statistics."""
        nested = self.layout.nested
        return {kind: [nested(b) for b in sums] for kind, sums in self._buckets.items()}

    def set_bucket_rows(self, kind: str, rows: Sequence[Sequence[Sequence[Row]]]) -> None:
        self._buckets[kind] = [self.layout.flat(b) for b in rows]

    def add(
        self,
        hyps: Sequence[str],
        refs: Sequence[str],
        src: str | None = None,
        line: int = 0,
        rows: Sequence[Sequence[Row]] | None = None,
    ) -> None:
        """One segment; ``rows`` are its statistics when counted elsewhere."""
        tokenize = self.tokenize
        hyp_words = [tokenize(hyp) for hyp in hyps]
        if rows is None:
            ref_tokens = [tokenize(ref) for ref in refs]
            rows = self._count(hyps, refs, hyp_words, ref_tokens)
            ref_words = ref_tokens[0]
        else:
            ref_words = tokenize(refs[0])
        index = self.offset + self.segments
        self.segments += 1
        self.nrefs.add(len(refs))
        flat = self.layout.flat(rows)
        self._totals = add_rows(self._totals, flat)
        sentence = self._sentence_values(rows)
        for kind, per_system in zip(SENTENCE_KINDS, _bucket_values(ref_words, hyp_words, sentence)):
            index_of = self.edges[kind].index
            own = self.own_counts[kind]
            for s, value in enumerate(per_system):
                own[s][index_of(value)] += 1
            bucket = index_of(per_system[0])
            self.bucket_segments[kind][bucket] += 1
            sums = self._buckets[kind]
            sums[bucket] = add_rows(sums[bucket], flat)
            if self.keys is not None:
                self.keys[kind].append(bucket)
        if self.store is not None:
            self.store.add(rows)
        self.words.add(ref_words, hyp_words)
        self.ngrams.add(ref_words, hyp_words)
        for s, kept in enumerate(self.examples, start=1):
            kept.add(index, line, (sentence[0], sentence[s]), (src, refs[0], hyps[0], hyps[s]))
        if self.running.due(self.offset + self.segments):
            self.running.add(self.offset + self.segments, self.totals)

    def _count(
        self,
        hyps: Sequence[str],
        refs: Sequence[str],
        hyp_words: Sequence[list[str]],
        ref_words: Sequence[list[str]],
    ) -> list[tuple[Row, ...]]:
        """Each system's rows of one segment: BLEU's counted from its words,
        the other metrics' by their own counting."""
        if len(hyps) != self.systems:
            raise ValueError(f"expected {self.systems} hypotheses, got {len(hyps)}")
        prepared = self._ref_tokens(ref_words)
        count, at = self._count_tokens, self.bleu
        others: Sequence[tuple[Row, ...]] = [()] * len(hyps)
        if len(self.specs) > 1:
            if self._others is None:
                rest = self.specs[:at] + self.specs[at + 1 :]
                self._others = SegmentCounter(rest, self.systems)
            others = self._others.count(hyps, refs)
        return [(*o[:at], count(w, prepared), *o[at:]) for o, w in zip(others, hyp_words)]

    def sentence_scores(self, rows: Sequence[Sequence[Row]]) -> Sequence[float]:
        """Each system's sentence score (BLEU's) of one segment's rows, as
        ``add`` gives the examples theirs."""
        return self._sentence_values(rows)

    def merge(self, other: Analyzer) -> None:
        """Adds the analysis of the segments that follow this one's (a worker's
        part, a shard read back), as if they had been added here."""
        if (other.specs, other.settings) != (self.specs, self.settings):
            raise ValueError("the parts were analyzed with other metrics or settings")
        if len(other.names) != len(self.names):  # the first part names the systems
            raise ValueError(f"{len(other.names)} systems, not {len(self.names)}")
        if (self.store is None) != (other.store is None):
            raise ValueError("one part kept each segment's statistics and the other did not")
        expected = self.offset + self.segments
        shift = expected - other.offset  # 0 when the part knew where it began
        before = self.totals
        self.segments += other.segments
        self.nrefs |= other.nrefs
        self._totals = add_rows(self._totals, other._totals)
        for kind in SENTENCE_KINDS:
            for b, count in enumerate(other.bucket_segments[kind]):
                self.bucket_segments[kind][b] += count
                self._buckets[kind][b] = add_rows(self._buckets[kind][b], other._buckets[kind][b])
            for s, counts in enumerate(other.own_counts[kind]):
                for b, count in enumerate(counts):
                    self.own_counts[kind][s][b] += count
            if self.keys is not None and other.keys is not None:
                self.keys[kind].extend(other.keys[kind])
        if self.store is not None and other.store is not None:
            self.store.extend(other.store)
        self.words.merge(other.words)
        self.ngrams.merge(other.ngrams)
        for mine_examples, theirs_examples in zip(self.examples, other.examples):
            mine_examples.merge(theirs_examples, shift)
        self.running.merge(other.running, shift, before)
        self.merged = True

    def resum(self) -> None:
        """With every segment's statistics kept: the sums made again from them
        in input order, as one process adds them (float statistics, TER's
        lengths, add up the same only in the same order)."""
        if self.store is None or self.keys is None or not self.segments:
            return
        matrices = [m.tolist() for per in self.store.matrices(self.specs) for m in per]
        width = self.layout.width
        totals: Flat = (0,) * width
        buckets = {k: [(0,) * width for _ in range(len(e))] for k, e in self.edges.items()}
        for i in range(self.segments):
            flat = [x for rows in matrices for x in rows[i]]
            totals = add_rows(totals, flat)
            for kind, keys in self.keys.items():
                sums = buckets[kind]
                sums[keys[i]] = add_rows(sums[keys[i]], flat)
        self._totals, self._buckets = totals, buckets
        self.running.points = from_rows(self.store.matrices(self.specs), self.segments)
        self.running.step = step_for(self.segments)

    def segment_matrices(self) -> list[list[Any]]:
        """Per system and metric, every segment's statistics (numpy arrays)."""
        assert self.store is not None
        return self.store.matrices(self.specs)
