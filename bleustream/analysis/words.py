"""Word accuracy by frequency bucket: precision, recall and F-measure of
the words whose frequency falls in each bucket, as compare-mt counts them.

A hypothesis word matches when the reference (the first, with several)
still has an unmatched copy of it, left to right: per segment and word,
``min(hypothesis count, reference count)`` matches.  A word's bucket is its
frequency: in the test references (the default, known only once every
segment is read) or in a training corpus or counts file given up front.

What is kept: one entry per distinct word (its reference count, and per
system its hypothesis count and matches), so memory follows the
vocabulary, not the number of segments.  For intervals, each segment's
distinct words with their counts are kept too (a few integers per token),
since the bootstrap resamples segments.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from bleustream.analysis.buckets import Edges


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


def read_counts(lines: Iterable[str], name: str) -> Iterator[tuple[str, int]]:
    """``word<TAB>count`` lines; raises ValueError naming the line that is not."""
    for number, line in enumerate(lines, 1):
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) != 2:
            raise ValueError(f"{name}:{number}: expected 'word<TAB>count'")
        try:
            yield fields[0], int(fields[1])
        except ValueError:
            raise ValueError(f"{name}:{number}: the count is not a whole number") from None


class WordTally:
    """Per distinct word: reference count, and per system hypothesis count and matches."""

    def __init__(self, systems: int, keep_segments: bool) -> None:
        self.systems = systems
        self.ids: dict[str, int] = {}
        self.words: list[str] = []
        # Per word id: ref, then out and matches of each system (1 + 2S numbers).
        self.width = 1 + 2 * systems
        self.totals = array("q")
        # Per segment, its distinct words: id followed by the width numbers.
        self.segment_rows: array[int] | None = array("q") if keep_segments else None
        self.segment_ends: array[int] | None = array("q") if keep_segments else None

    def _id(self, word: str) -> int:
        found = self.ids.get(word)
        if found is None:
            found = self.ids[word] = len(self.words)
            self.words.append(word)
            self.totals.extend((0,) * self.width)
        return found

    def add(self, ref: Sequence[str], hyps: Sequence[Sequence[str]]) -> None:
        """One segment: its (first) reference's words and each system's."""
        ref_counts = Counter(ref)
        width = self.width
        per_word: dict[str, list[int]] = {}
        for word, count in ref_counts.items():
            entry = per_word[word] = [0] * width
            entry[0] = count
        for s, hyp in enumerate(hyps):
            at = 1 + 2 * s
            for word, count in Counter(hyp).items():
                entry = per_word.get(word)
                if entry is None:
                    entry = per_word[word] = [0] * width
                entry[at] = count
                in_ref = entry[0]
                entry[at + 1] = count if count < in_ref else in_ref
        totals, kept, ids = self.totals, self.segment_rows, self.ids
        for word, entry in per_word.items():
            word_id = ids.get(word)
            if word_id is None:
                word_id = self._id(word)
            at = word_id * width
            totals[at : at + width] = array("q", map(int.__add__, totals[at : at + width], entry))
            if kept is not None:
                kept.append(word_id)
                kept.extend(entry)
        if self.segment_ends is not None and kept is not None:
            self.segment_ends.append(len(kept))

    def merge(self, other: WordTally) -> None:
        """Adds another tally's words (segments after this one's)."""
        width = self.width
        remap = [self._id(word) for word in other.words]
        for old, new in enumerate(remap):
            for j in range(width):
                self.totals[new * width + j] += other.totals[old * width + j]
        if self.segment_rows is not None and other.segment_rows is not None:
            assert self.segment_ends is not None and other.segment_ends is not None
            base = len(self.segment_rows)
            rows = other.segment_rows
            for at in range(0, len(rows), width + 1):
                self.segment_rows.append(remap[rows[at]])
                self.segment_rows.extend(rows[at + 1 : at + 1 + width])
            self.segment_ends.extend(end + base for end in other.segment_ends)

    def reference_counts(self) -> dict[str, int]:
        width = self.width
        return {word: self.totals[i * width] for i, word in enumerate(self.words)}

    def buckets_of_words(self, edges: Edges, counts: Mapping[str, int] | None) -> list[int]:
        """Each word id's bucket: its frequency in ``counts`` (or the references)."""
        if counts is None:
            counts = self.reference_counts()
        return [edges.index(counts.get(word, 0)) for word in self.words]

    def bucket_totals(self, buckets: Sequence[int], nbuckets: int) -> list[list[int]]:
        """Per bucket: ref, then out and matches of each system."""
        width = self.width
        out = [[0] * width for _ in range(nbuckets)]
        for word_id, bucket in enumerate(buckets):
            row = out[bucket]
            at = word_id * width
            for j in range(width):
                row[j] += self.totals[at + j]
        return out

    def segment_matrix(self, np: Any, buckets: Sequence[int], nbuckets: int) -> Any:
        """Per segment and bucket, the width numbers: (segments, buckets, width)."""
        assert self.segment_rows is not None and self.segment_ends is not None
        width = self.width
        rows = np.frombuffer(self.segment_rows, dtype=np.int64).reshape(-1, width + 1)
        ends = np.frombuffer(self.segment_ends, dtype=np.int64) // (width + 1)
        segments = len(ends)
        counts = np.diff(np.concatenate([[0], ends]))
        segment_of = np.repeat(np.arange(segments), counts)
        bucket_of = np.asarray(buckets, dtype=np.int64)[rows[:, 0]]
        matrix = np.zeros((segments, nbuckets, width), dtype=np.int64)
        np.add.at(matrix, (segment_of, bucket_of), rows[:, 1:])
        return matrix
