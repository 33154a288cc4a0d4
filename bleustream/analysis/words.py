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
from itertools import chain
from typing import Any

from bleustream.analysis.buckets import Edges
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


def py_add_words(
    ref: Sequence[str],
    hyps: Sequence[Sequence[str]],
    ref_total: dict[str, int],
    outs: Sequence[dict[str, int]],
    matches: Sequence[dict[str, int]],
    ids: dict[str, int] | None = None,
    words: list[str] | None = None,
) -> list[int] | None:
    """One segment's words added to the running counts: the reference's to
    ``ref_total``; per system, its words to ``outs`` and its matches to
    ``matches`` (per word, the fewer of its count in the hypothesis and in
    the reference), as many systems as all three have.

    With ``ids`` and ``words`` (a word's number and the words by number,
    new words added), the segment's row is returned: per distinct word, in
    the order words first occur (the reference's, then each system's), its
    number, its reference count, then each system's count and matches.
    """
    ref_counts = Counter(ref)
    _add(ref_total, ref_counts)
    per_system = []
    for out, kept, hyp in zip(outs, matches, hyps):
        counts = Counter(hyp)
        _add(out, counts)
        _add(kept, {w: min(c, ref_counts[w]) for w, c in counts.items() if w in ref_counts})
        per_system.append(counts)
    if ids is None or words is None:
        return None
    row = []
    for word in dict.fromkeys(chain(ref, *hyps[: len(per_system)])):
        word_id = ids.get(word)
        if word_id is None:
            word_id = ids[word] = len(words)
            words.append(word)
        ref_count = ref_counts.get(word, 0)
        row += (word_id, ref_count)
        for counts in per_system:
            count = counts.get(word, 0)
            row += (count, min(count, ref_count))
    return row


def _add(total: dict[Any, int], counts: Mapping[Any, int]) -> None:
    """``total[key] += count`` for each key of counts, as Counter.update adds."""
    for key, count in counts.items():
        total[key] = total.get(key, 0) + count


class WordTally:
    """Per distinct word: reference count, and per system hypothesis count and matches."""

    def __init__(self, systems: int, keep_segments: bool) -> None:
        self.systems = systems
        self.ref: Counter[str] = Counter()
        self.out: list[Counter[str]] = [Counter() for _ in range(systems)]
        self.matches: list[Counter[str]] = [Counter() for _ in range(systems)]
        # With segments kept: per segment its distinct words, each an id
        # (``words``) followed by ref, then out and matches of each system.
        self.width = 1 + 2 * systems
        self.ids: dict[str, int] = {}
        self.words: list[str] = []
        self.segment_rows: array[int] | None = array("q") if keep_segments else None
        self.segment_ends: array[int] | None = array("q") if keep_segments else None

    def add(self, ref: Sequence[str], hyps: Sequence[Sequence[str]]) -> None:
        """One segment: its (first) reference's words and each system's."""
        if self.segment_rows is None or self.segment_ends is None:
            add_words(ref, hyps, self.ref, self.out, self.matches)
            return
        row = add_words(ref, hyps, self.ref, self.out, self.matches, self.ids, self.words)
        self.segment_rows.extend(row)
        self.segment_ends.append(len(self.segment_rows))

    def merge(self, other: WordTally) -> None:
        """Adds another tally's words (segments after this one's)."""
        self.ref.update(other.ref)
        for mine, theirs in zip(self.out + self.matches, other.out + other.matches):
            mine.update(theirs)
        if self.segment_rows is None or other.segment_rows is None:
            return
        assert self.segment_ends is not None and other.segment_ends is not None
        remap = []
        for word in other.words:
            word_id = self.ids.get(word)
            if word_id is None:
                word_id = self.ids[word] = len(self.words)
                self.words.append(word)
            remap.append(word_id)
        base = len(self.segment_rows)
        rows, step = other.segment_rows, self.width + 1
        for at in range(0, len(rows), step):
            self.segment_rows.append(remap[rows[at]])
            self.segment_rows.extend(rows[at + 1 : at + step])
        self.segment_ends.extend(end + base for end in other.segment_ends)

    def reference_counts(self) -> Mapping[str, int]:
        return self.ref

    def bucket_of(self, edges: Edges, counts: Mapping[str, int] | None) -> Any:
        """A word's bucket: its frequency in ``counts`` (or the references)."""
        table = self.ref if counts is None else counts
        cache: dict[str, int] = {}

        def bucket(word: str) -> int:
            found = cache.get(word)
            if found is None:
                found = cache[word] = edges.index(table.get(word, 0))
            return found

        return bucket

    def bucket_totals(self, bucket: Any, nbuckets: int) -> list[list[int]]:
        """Per bucket: ref, then out and matches of each system."""
        out = [[0] * self.width for _ in range(nbuckets)]
        for word, count in self.ref.items():
            out[bucket(word)][0] += count
        for s in range(self.systems):
            for word, count in self.out[s].items():
                out[bucket(word)][1 + 2 * s] += count
            for word, count in self.matches[s].items():
                out[bucket(word)][2 + 2 * s] += count
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
        """As plain JSON data (``from_state`` reads it back)."""
        kept = self.segment_rows is not None and self.segment_ends is not None
        return {
            "ref": dict(self.ref),
            "out": [dict(c) for c in self.out],
            "matches": [dict(c) for c in self.matches],
            "words": self.words,
            "segment_rows": self.segment_rows.tolist() if kept else None,  # type: ignore[union-attr]
            "segment_ends": self.segment_ends.tolist() if kept else None,  # type: ignore[union-attr]
        }

    def load(self, state: Mapping[str, Any]) -> None:
        self.ref = Counter(state["ref"])
        self.out = [Counter(c) for c in state["out"]]
        self.matches = [Counter(c) for c in state["matches"]]
        self.words = list(state["words"])
        self.ids = {word: i for i, word in enumerate(self.words)}
        if self.segment_rows is not None and self.segment_ends is not None:
            self.segment_rows.extend(state["segment_rows"])
            self.segment_ends.extend(state["segment_ends"])


# The compiled twin where the C kernels were built (bleustream.kernels).
c_add_words = None if native is None else native.add_words
add_words: Any = c_add_words or py_add_words
