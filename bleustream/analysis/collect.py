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
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

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


def _summed(
    totals: Sequence[Sequence[Row]], rows: Sequence[Sequence[Row]]
) -> list[tuple[Row, ...]]:
    """Per system, its summed rows with one segment's added."""
    return [tuple(map(add_rows, t, r)) for t, r in zip(totals, rows)]


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
        self.tokenize = bleu.preprocess(bleu_settings)
        self._sentence_settings = bleu.sentence_settings(bleu_settings)
        systems = len(self.names)
        self.counter = SegmentCounter(self.specs, systems)
        # Segments of the whole stream before this part's first (-j N's
        # workers know it; a shard read back does not, and counts from 0).
        self.offset = offset
        self.segments = 0
        self.nrefs: set[int] = set()
        zero = tuple(spec.zero() for spec in self.specs)
        self.totals: list[tuple[Row, ...]] = [zero] * systems
        self.edges = {kind: settings.edges(kind) for kind in SENTENCE_KINDS}
        # Per kind, per bucket: segments, and per system summed rows.
        self.bucket_segments = {k: [0] * len(e) for k, e in self.edges.items()}
        self.bucket_rows = {
            k: [[zero] * systems for _ in range(len(e))] for k, e in self.edges.items()
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

    def add(
        self,
        hyps: Sequence[str],
        refs: Sequence[str],
        src: str | None = None,
        line: int = 0,
        rows: Sequence[Sequence[Row]] | None = None,
    ) -> None:
        """One segment; ``rows`` are its statistics when counted elsewhere."""
        if rows is None:
            rows = self.counter.count(hyps, refs)
        index = self.offset + self.segments
        self.segments += 1
        self.nrefs.add(len(refs))
        self.totals = _summed(self.totals, rows)
        tokenize = self.tokenize
        ref_words = tokenize(refs[0])
        hyp_words = [tokenize(hyp) for hyp in hyps]
        # Sentence BLEU, as Spec.sentence_score gives it, with its settings made once.
        at, settings = self.bleu, self._sentence_settings
        sentence = [bleu.with_orders(r[at], settings).score for r in rows]
        for kind, per_system in zip(SENTENCE_KINDS, _bucket_values(ref_words, hyp_words, sentence)):
            index_of = self.edges[kind].index
            own = self.own_counts[kind]
            for s, value in enumerate(per_system):
                own[s][index_of(value)] += 1
            bucket = index_of(per_system[0])
            self.bucket_segments[kind][bucket] += 1
            summed = self.bucket_rows[kind]
            summed[bucket] = _summed(summed[bucket], rows)
            if self.keys is not None:
                self.keys[kind].append(bucket)
        if self.store is not None:
            self.store.add(rows)
        self.words.add(ref_words, hyp_words)
        self.ngrams.add(ref_words, hyp_words)
        for s, kept in enumerate(self.examples, start=1):
            kept.add(index, line, (sentence[0], sentence[s]), (src, refs[0], hyps[0], hyps[s]))
        self.running.add(self.offset + self.segments, self.totals)

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
        self.totals = [tuple(map(add_rows, a, b)) for a, b in zip(self.totals, other.totals)]
        for kind in SENTENCE_KINDS:
            for b, count in enumerate(other.bucket_segments[kind]):
                self.bucket_segments[kind][b] += count
                mine, theirs = self.bucket_rows[kind][b], other.bucket_rows[kind][b]
                self.bucket_rows[kind][b] = [
                    tuple(map(add_rows, a, c)) for a, c in zip(mine, theirs)
                ]
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
        matrices = [[m.tolist() for m in per] for per in self.store.matrices(self.specs)]
        zero = tuple(spec.zero() for spec in self.specs)
        totals = [zero] * self.systems
        buckets = {k: [[zero] * self.systems for _ in range(len(e))] for k, e in self.edges.items()}
        for i in range(self.segments):
            rows = [[per[k][i] for k in range(len(self.specs))] for per in matrices]
            totals = [tuple(map(add_rows, t, r)) for t, r in zip(totals, rows)]
            for kind, keys in self.keys.items():
                summed = buckets[kind][keys[i]]
                buckets[kind][keys[i]] = [tuple(map(add_rows, t, r)) for t, r in zip(summed, rows)]
        self.totals, self.bucket_rows = totals, buckets
        self.running.points = from_rows(self.store.matrices(self.specs), self.segments)
        self.running.step = step_for(self.segments)

    def segment_matrices(self) -> list[list[Any]]:
        """Per system and metric, every segment's statistics (numpy arrays)."""
        assert self.store is not None
        return self.store.matrices(self.specs)
