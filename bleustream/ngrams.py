"""Count n-grams of one segment into its sufficient statistics.

The hypothesis n-grams of each order are counted and every count is clipped
at the highest count of that n-gram in any one reference.  The reference
length is the closest to the hypothesis length, ties going to the shorter.

The hot loops run in C: the n-gram tuples come from ``zip``, they are
counted by the C helper behind ``collections.Counter``, and clipping is
``map(min, ...)`` over dict lookups, with no Python call per n-gram.  An
n-gram of order n matches only if its (n-1)-grams do, so once an order has
no match the higher orders are not counted at all.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Callable

from bleustream.stats import Stats

CountFn = Callable[[dict, Iterable], None]
# The helper Counter.update counts with: C code in CPython, plain Python
# (in the same module) elsewhere.  Calling it on a plain dict skips
# Counter's per-call overhead, which is most of the cost on short segments.
_count_into: CountFn = collections._count_elements  # type: ignore[attr-defined]


def ngram_counts(columns: list[list[str]]) -> dict:
    """How often each n-gram occurs, for n = ``len(columns)``.

    ``columns[i]`` is the token list without its first ``i`` tokens, so that
    ``zip(*columns)`` yields the n-grams.  Unigrams are keyed by the token
    itself, longer n-grams by a tuple.
    """
    counts: dict = {}
    _count_into(counts, columns[0] if len(columns) == 1 else zip(*columns))
    return counts


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``; ties go to the shorter."""
    return min(ref_lens, key=lambda r: (abs(hyp_len - r), r))


def segment_stats(hyp: list[str], refs: Sequence[list[str]], max_order: int) -> Stats:
    """The sufficient statistics of one tokenized segment.

    ``refs`` holds at least one tokenized reference.  Each order's columns
    extend the previous order's by one shifted slice.
    """
    hyp_len = len(hyp)
    matches = [0] * max_order
    hyp_columns = [hyp]
    if len(refs) == 1:
        ref = refs[0]
        ref_len = len(ref)
        ref_columns = [ref]
        for n in range(min(max_order, hyp_len, ref_len)):
            if n:
                hyp_columns.append(hyp[n:])
                ref_columns.append(ref[n:])
            h = ngram_counts(hyp_columns)
            r = ngram_counts(ref_columns)
            matched = sum(map(min, h.values(), map(r.get, h, repeat(0))))
            if not matched:
                break
            matches[n] = matched
    else:
        ref_len = closest_ref_len(hyp_len, [len(ref) for ref in refs])
        longest = max(len(ref) for ref in refs)
        refs_columns = [[ref] for ref in refs]
        for n in range(min(max_order, hyp_len, longest)):
            if n:
                hyp_columns.append(hyp[n:])
                for ref, columns in zip(refs, refs_columns):
                    columns.append(ref[n:])
            h = ngram_counts(hyp_columns)
            gets = [ngram_counts(columns).get for columns in refs_columns]
            clips = map(max, *[map(get, h, repeat(0)) for get in gets])
            matched = sum(map(min, h.values(), clips))
            if not matched:
                break
            matches[n] = matched
    totals = [max(hyp_len - n, 0) for n in range(max_order)]
    return Stats(hyp_len, ref_len, matches, totals, 1)
