"""Word accuracy by frequency bucket: precision, recall and F-measure of
the words whose frequency falls in each bucket, as compare-mt counts them.

A hypothesis word matches when the reference (the first, with several)
still has an unmatched copy of it, left to right: per segment and word,
``min(hypothesis count, reference count)`` matches.  A word's bucket is its
frequency: in the test references (the default, known only once every
segment is read) or in a training corpus or counts file given up front.

What is kept: one number per distinct word and a row of its counts (its
reference count, and per system its hypothesis count and matches), so
memory follows the vocabulary, not the number of segments.  For intervals, each segment's
distinct words with their counts are kept too (a few integers per token),
since the bootstrap resamples segments.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Any

from bleustream.analysis.buckets import Edges
from bleustream.analysis.numbering import add_at, merge_into, number_of
from bleustream.kernels import native


def f_measure(matches: float, ref: float, out: float) -> tuple[float, float, float]:
    """(precision, recall, F-measure) of one bucket; all 0 with no match."""
    if matches == 0:
        return 0.0, 0.0, 0.0
    recall = matches / float(ref)
    precision = matches / float(out)
    return precision, recall, 2 * precision * recall / (precision + recall)


def count_lines(lines: Iterable[str], split: Any = str.split) -> dict[str, int]:
    """Word frequencies of a training corpus (one segment a line)."""
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(split(line))
    return dict(counts)


def py_add_words(
    ref: Sequence[str],
    hyps: Sequence[Sequence[str]],
    systems: int,
    ids: dict[str, int],
    words: list[str],
    counts: list[int],
    row: bool = False,
) -> list[int] | None:
    """One segment's words added to the running counts of the first
    ``systems`` hypotheses.

    Each distinct word has a number (``ids``; ``words`` by number, a new
    word appended) and ``1 + 2 * systems`` numbers in ``counts`` from
    ``number * width`` on: its count in the references, then per system its
    count in the hypotheses and its matches (per segment, the fewer of its
    count in the hypothesis and in the reference).  So a word costs one
    lookup a segment, however many systems there are.

    With ``row``, the segment's own numbers are returned: per distinct
    word, in the order words first occur (the reference's, then each
    system's), its number, then its ``width`` numbers.
    """
    if len(hyps) < systems:
        raise ValueError(f"{len(hyps)} hypotheses for {systems} systems")
    width = 1 + 2 * systems
    hyps = hyps[:systems]
    ref_counts = Counter(ref)
    hyp_counts = [Counter(hyp) for hyp in hyps]
    out: list[int] | None = [] if row else None
    for word in dict.fromkeys(chain(ref, *hyps)):
        word_id = number_of(ids, words, counts, width, word)
        ref_count = ref_counts.get(word, 0)
        numbers = [ref_count]
        for per_system in hyp_counts:
            count = per_system.get(word, 0)
            numbers += (count, min(count, ref_count))
        add_at(counts, word_id * width, numbers)
        if out is not None:
            out.append(word_id)
            out += numbers
    return out


class WordTally:
    """Per distinct word: reference count, and per system hypothesis count and matches."""

    def __init__(self, systems: int, keep_segments: bool) -> None:
        self.systems = systems
        # Per word (its number in ``ids``, ``words``), ``width`` numbers in
        # ``counts``: ref, then out and matches of each system.
        self.width = 1 + 2 * systems
        self.ids: dict[str, int] = {}
        self.words: list[str] = []
        self.counts: list[int] = []
        # With segments kept: per segment its distinct words, each a number
        # followed by its ``width`` numbers in that segment.
        self.segment_rows: array[int] | None = array("q") if keep_segments else None
        self.segment_ends: array[int] | None = array("q") if keep_segments else None

    def add(self, ref: Sequence[str], hyps: Sequence[Sequence[str]]) -> None:
        """One segment: its (first) reference's words and each system's."""
        keep = self.segment_rows is not None and self.segment_ends is not None
        row = add_words(ref, hyps, self.systems, self.ids, self.words, self.counts, keep)
        if keep:
            self.segment_rows.extend(row)  # type: ignore[union-attr]
            self.segment_ends.append(len(self.segment_rows))  # type: ignore[union-attr,arg-type]

    def merge(self, other: WordTally) -> None:
        """Adds another tally's words (segments after this one's)."""
        width = self.width
        remap = merge_into(self.ids, self.words, self.counts, width, other.words, other.counts)
        if self.segment_rows is None or other.segment_rows is None:
            return
        assert self.segment_ends is not None and other.segment_ends is not None
        base = len(self.segment_rows)
        rows, step = other.segment_rows, width + 1
        for at in range(0, len(rows), step):
            self.segment_rows.append(remap[rows[at]])
            self.segment_rows.extend(rows[at + 1 : at + step])
        self.segment_ends.extend(end + base for end in other.segment_ends)

    def column(self, k: int) -> dict[str, int]:
        """Column ``k`` of the counts (0: ref, 1 + 2s: out, 2 + 2s: matches
        of system s), as a word's count, words with none left out."""
        width, counts = self.width, self.counts
        return {w: counts[i * width + k] for i, w in enumerate(self.words) if counts[i * width + k]}

    def reference_counts(self) -> Mapping[str, int]:
        return self.column(0)

    def bucket_of(self, edges: Edges, counts: Mapping[str, int] | None) -> Any:
        """A word's bucket: its frequency in ``counts`` (or the references)."""
        table = self.reference_counts() if counts is None else counts
        cache: dict[str, int] = {}

        def bucket(word: str) -> int:
            found = cache.get(word)
            if found is None:
                found = cache[word] = edges.index(table.get(word, 0))
            return found

        return bucket

    def bucket_totals(self, bucket: Any, nbuckets: int) -> list[list[int]]:
        """Per bucket: ref, then out and matches of each system."""
        width, counts = self.width, self.counts
        out = [[0] * width for _ in range(nbuckets)]
        for i, word in enumerate(self.words):
            b = bucket(word)
            add_at(out[b], 0, counts[i * width : (i + 1) * width])
        return out

    def segment_matrix(self, np: Any, bucket: Any, nbuckets: int) -> Any:
        """Per segment and bucket, the width numbers: (segments, buckets, width)."""
        assert self.segment_rows is not None and self.segment_ends is not None
        width = self.width
        rows = np.frombuffer(self.segment_rows, dtype=np.int64).reshape(-1, width + 1)
        ends = np.frombuffer(self.segment_ends, dtype=np.int64) // (width + 1)
        segments = len(ends)
        counts = np.diff(np.concatenate([[0], ends]))
        segment_of = np.repeat(np.arange(segments), counts)
        buckets = np.asarray([bucket(word) for word in self.words], dtype=np.int64)
        matrix = np.zeros((segments, nbuckets, width), dtype=np.int64)
        np.add.at(matrix, (segment_of, buckets[rows[:, 0]]), rows[:, 1:])
        return matrix

    def state(self) -> dict[str, Any]:
        """As plain JSON data (``from_state`` reads it back): per word its
        counts by column, and the words by number where segment rows (which
        name words by number) are kept."""
        kept = self.segment_rows is not None and self.segment_ends is not None
        return {
            "ref": self.column(0),
            "out": [self.column(1 + 2 * s) for s in range(self.systems)],
            "matches": [self.column(2 + 2 * s) for s in range(self.systems)],
            "words": self.words if kept else [],
            "segment_rows": self.segment_rows.tolist() if kept else None,  # type: ignore[union-attr]
            "segment_ends": self.segment_ends.tolist() if kept else None,  # type: ignore[union-attr]
        }

    def load(self, state: Mapping[str, Any]) -> None:
        self.ids, self.words, self.counts = {}, [], []
        columns = [state["ref"]]
        for out, matches in zip(state["out"], state["matches"]):
            columns += (out, matches)
        # The numbers the segment rows use first, then every other word.
        for word in chain(state["words"], *columns):
            number_of(self.ids, self.words, self.counts, self.width, word)
        for k, column in enumerate(columns):
            for word, count in column.items():
                self.counts[self.ids[word] * self.width + k] += count
        if self.segment_rows is not None and self.segment_ends is not None:
            self.segment_rows.extend(state["segment_rows"])
            self.segment_ends.extend(state["segment_ends"])


# The compiled twin where the C kernels were built (bleustream.kernels).
c_add_words = None if native is None else native.add_words
add_words: Any = c_add_words or py_add_words
