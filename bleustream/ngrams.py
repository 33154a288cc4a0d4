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


def ngram_counts(tokens: list[str], order: int) -> dict:
    """How often each n-gram of one order occurs.

    Unigrams are keyed by the token itself, longer n-grams by a tuple.
    """
    counts: dict = {}
    if order == 1:
        _count_into(counts, tokens)
    else:
        _count_into(counts, zip(*[tokens[i:] for i in range(order)]))
    return counts


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``; ties go to the shorter."""
    return min(ref_lens, key=lambda r: (abs(hyp_len - r), r))


def segment_stats(hyp: list[str], refs: Sequence[list[str]], max_order: int) -> Stats:
    """The sufficient statistics of one tokenized segment.

    ``refs`` holds at least one tokenized reference.
    """
    hyp_len = len(hyp)
    matches = [0] * max_order
    if len(refs) == 1:
        ref = refs[0]
        ref_len = len(ref)
        for n in range(min(max_order, hyp_len, ref_len)):
            h = ngram_counts(hyp, n + 1)
            r = ngram_counts(ref, n + 1)
            matched = sum(map(min, h.values(), map(r.get, h, repeat(0))))
            if not matched:
                break
            matches[n] = matched
    else:
        ref_len = closest_ref_len(hyp_len, [len(ref) for ref in refs])
        longest = max(len(ref) for ref in refs)
        for n in range(min(max_order, hyp_len, longest)):
            h = ngram_counts(hyp, n + 1)
            per_ref = [ngram_counts(ref, n + 1).get for ref in refs]
            clips = map(max, *[map(get, h, repeat(0)) for get in per_ref])
            matched = sum(map(min, h.values(), clips))
            if not matched:
                break
            matches[n] = matched
    totals = [max(hyp_len - n, 0) for n in range(max_order)]
    return Stats(hyp_len, ref_len, matches, totals, 1)
