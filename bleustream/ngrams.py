"""Count n-grams of one segment into its sufficient statistics.

The hypothesis n-grams of each order are counted and every count is clipped
at the highest count of that n-gram in any one reference.  The reference
length is the closest to the hypothesis length, ties going to the shorter.

The hot loops run in C: ``Counter`` counts the tuples that ``zip`` builds,
and the clipping is ``map(min, ...)`` over dict lookups, with no Python
function call per n-gram.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import repeat

from bleustream.stats import Stats


def count_ngrams(tokens: list[str], max_order: int) -> list[Counter]:
    """Counts of the n-grams of each order 1..max_order.

    Unigrams are keyed by the token itself, longer n-grams by a tuple.
    """
    counts: list[Counter] = [Counter(tokens)]
    for n in range(2, max_order + 1):
        counts.append(Counter(zip(*[tokens[i:] for i in range(n)])))
    return counts


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``; ties go to the shorter."""
    return min(ref_lens, key=lambda r: (abs(hyp_len - r), r))


def segment_stats(hyp: list[str], refs: Sequence[list[str]], max_order: int) -> Stats:
    """The sufficient statistics of one tokenized segment.

    ``refs`` holds at least one tokenized reference.
    """
    hyp_len = len(hyp)
    hyp_counts = count_ngrams(hyp, max_order)
    matches = []
    if len(refs) == 1:
        ref = refs[0]
        ref_len = len(ref)
        for h, r in zip(hyp_counts, count_ngrams(ref, max_order)):
            matches.append(sum(map(min, h.values(), map(r.get, h, repeat(0)))))
    else:
        ref_len = closest_ref_len(hyp_len, [len(ref) for ref in refs])
        per_ref = [count_ngrams(ref, max_order) for ref in refs]
        for n, h in enumerate(hyp_counts):
            clips = map(max, *[map(rc[n].get, h, repeat(0)) for rc in per_ref])
            matches.append(sum(map(min, h.values(), clips)))
    totals = [max(hyp_len - n, 0) for n in range(max_order)]
    return Stats(hyp_len, ref_len, matches, totals, 1)
