"""Count n-grams of one segment into its sufficient statistics.

The hypothesis n-grams of each order are counted and every count is clipped
at the highest count of that n-gram in any one reference.  The reference
length is the closest to the hypothesis length, ties going to the shorter.

The hot loops run in C: the n-gram tuples come from ``zip``, they are
counted by the C helper behind ``collections.Counter``, and clipping is
``map(min, ...)`` over dict lookups, with no Python call per n-gram.
Against one reference, an order whose reference n-grams are all distinct
(as they mostly are past unigrams) needs no hypothesis counts at all: its
clipped count is the number of distinct hypothesis n-grams the reference
holds, one C-level set intersection.  An
n-gram of order n matches only if its (n-1)-grams do, so once an order has
no match the higher orders are not counted at all.
"""

from __future__ import annotations

import collections
import operator
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


def _grams(columns: list[list[str]]) -> Iterable:
    return columns[0] if len(columns) == 1 else zip(*columns)


def _clipped_matches(
    hyp_columns: list[list[str]], ref_columns: list[list[str]], ref_distinct: bool
) -> int:
    """The sum over n-grams of the smaller of the hypothesis and reference
    counts, ``n = len(columns)``; ``-1 - sum`` when this order is the first
    without a repeated reference n-gram (nor will any higher order have one:
    distinct prefixes make distinct n-grams).

    Where the reference repeats nothing, the sum is the number of distinct
    hypothesis n-grams the reference holds, and the hypothesis is not
    counted; where both repeat, it is taken over the common n-grams only,
    as ``(sum a + sum b - sum |a - b|) / 2``.
    """
    if ref_distinct:
        return len(set(_grams(ref_columns)).intersection(_grams(hyp_columns)))
    ref_counts = ngram_counts(ref_columns)
    if len(ref_counts) == len(ref_columns[-1]):
        return -1 - len(ref_counts.keys() & _grams(hyp_columns))
    hyp_counts = ngram_counts(hyp_columns)
    common = hyp_counts.keys() & ref_counts.keys()
    size = len(common)
    hyp_common = list(map(hyp_counts.__getitem__, common))
    hyp_sum = sum(hyp_common)
    if hyp_sum == size:
        return size
    ref_common = list(map(ref_counts.__getitem__, common))
    ref_sum = sum(ref_common)
    if ref_sum == size:
        return size
    return (hyp_sum + ref_sum - sum(map(abs, map(operator.sub, hyp_common, ref_common)))) // 2


def segment_stats(hyp: list[str], refs: Sequence[list[str]], max_order: int) -> Stats:
    """The sufficient statistics of one tokenized segment (see ``segment_row``)."""
    return Stats.from_row(segment_row(hyp, refs, max_order), 1)


def segment_row(hyp: list[str], refs: Sequence[list[str]], max_order: int) -> tuple[int, ...]:
    """The sufficient statistics of one tokenized segment, as SacreBLEU's row
    ``(hyp_len, ref_len, *matches, *totals)``.

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
        ref_distinct = False  # no n-gram of this order repeats in the reference
        for n in range(min(max_order, hyp_len, ref_len)):
            if n:
                hyp_columns.append(hyp[n:])
                ref_columns.append(ref[n:])
            if ref_distinct:
                matched = len(set(zip(*ref_columns)).intersection(zip(*hyp_columns)))
            else:
                matched = _clipped_matches(hyp_columns, ref_columns, ref_distinct)
                if matched < 0:  # the reference has no repeats from this order on
                    ref_distinct = True
                    matched = -matched - 1
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
    return (
        hyp_len,
        ref_len,
        *matches,
        *[hyp_len - n if hyp_len > n else 0 for n in range(max_order)],
    )
