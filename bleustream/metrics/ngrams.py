"""Count n-grams of one segment into its sufficient statistics.

The hypothesis n-grams of each order are counted and every count is clipped
at the highest count of that n-gram in any one reference.  The reference
length is the closest to the hypothesis length, ties going to the shorter.

Several references of a segment are prepared once (``reference_ngrams``),
however many systems are scored against them, as SacreBLEU does: per order,
the highest count of each n-gram in any reference.  A single reference's
n-grams are made order by order as each hypothesis needs them.  An order in
which no reference repeats an n-gram (most orders past unigrams) is matched
without counting the hypothesis: its clipped count is the number of
distinct hypothesis n-grams the references hold, one C-level set
intersection.  Elsewhere the hypothesis n-grams are counted: each common
n-gram matches once, and only the n-grams that can match more are looked
at: against several references those the references repeat
(``clipped_with_repeats``), against one those the
hypothesis repeats, often none.  Past unigrams a single reference's
n-grams go into a set first, cheaper than counting them, and are counted
only when the set shows a repeat.

The hot loops run in C: the n-gram tuples come from ``zip``, they are
counted by the C helper behind ``collections.Counter``, and the common
n-grams are one set intersection, with no Python call per n-gram.  An
n-gram of order n matches only if its (n-1)-grams do, so once an order has
no match the higher orders are not counted at all.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence
from typing import Any, Callable, NamedTuple

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
    _count_into(counts, _grams(columns))
    return counts


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``; ties go to the shorter."""
    return min(ref_lens, key=lambda r: (abs(hyp_len - r), r))


def _grams(columns: list[list[str]]) -> Iterable:
    return columns[0] if len(columns) == 1 else zip(*columns)


def repeated_counts(counts: dict) -> dict:
    """The n-grams counted more than once, with their counts."""
    return {gram: count for gram, count in counts.items() if count > 1}


def clipped_with_repeats(hyp_counts: dict, ref_counts: Any, ref_repeated: dict) -> int:
    """The sum, over the n-grams both hold, of the smaller count, given the
    reference's repeated n-grams (``ref_repeated``: each n-gram whose count
    in ``ref_counts`` is above 1, with that count).

    Each common n-gram matches once, one C-level intersection of the keys;
    only an n-gram that both sides repeat can match more, up to the smaller
    count, and the reference repeats few.  ``ref_counts`` only needs keys.
    """
    return len(hyp_counts.keys() & ref_counts.keys()) + matches_past_once(hyp_counts, ref_repeated)


def matches_past_once(hyp_counts: dict, ref_repeated: dict) -> int:
    """What the n-grams the reference repeats (``ref_repeated``, with their
    counts) match beyond once each: the smaller count less one, where the
    hypothesis repeats them too."""
    matched = 0
    get = hyp_counts.get
    for gram, ref_count in ref_repeated.items():
        count = get(gram, 0)
        if count > 1:
            matched += (count if count < ref_count else ref_count) - 1
    return matched


class RefNgrams(NamedTuple):
    """A segment's references, prepared for any number of hypotheses.

    Against several references, ``orders[n - 1]`` is ``(lookup, repeated)``
    for order n: when ``repeated`` is empty, no reference repeats an n-gram
    of that order and ``lookup`` is the set of them all; otherwise it maps
    each n-gram to its highest count in one reference, and ``repeated``
    holds those above 1.  A single reference is
    kept as its tokens (``orders`` is None): its n-grams are made as each
    hypothesis asks for them, so that a hypothesis that matches nothing of
    order n makes none of the reference's above it.
    """

    lens: tuple[int, ...]
    refs: Sequence[list[str]]
    orders: tuple[tuple[Any, dict], ...] | None


def one_reference(tokens: list[str]) -> RefNgrams:
    """A segment's one tokenized reference, prepared for matching."""
    return RefNgrams((len(tokens),), (tokens,), None)


def reference_ngrams(refs: Sequence[list[str]], max_order: int) -> RefNgrams:
    """A segment's tokenized references, prepared for matching up to ``max_order``."""
    if not refs:
        raise ValueError("a segment needs at least one reference")
    if len(refs) == 1:
        return one_reference(refs[0])
    lens = tuple(map(len, refs))
    refs_columns = [[ref] for ref in refs]
    # Per reference: from this order on no n-gram repeats (distinct
    # prefixes make distinct n-grams).
    distinct = [False] * len(refs)
    orders: list[tuple[Any, dict]] = []
    for n in range(min(max_order, max(lens))):
        sets: list[Any] = []
        counted: list[dict] = []
        for k, columns in enumerate(refs_columns):
            if n:
                columns.append(refs[k][n:])
            size = lens[k] - n  # n-grams of order n + 1
            if size <= 0:
                continue
            if distinct[k]:
                sets.append(_grams(columns))
                continue
            counts = ngram_counts(columns)
            if len(counts) == size:
                distinct[k] = True
                sets.append(counts)
            else:
                counted.append(counts)
        if not counted:
            orders.append((set().union(*sets), {}))
            continue
        # SacreBLEU's union of the references' Counters: the highest count
        merged = dict.fromkeys(set().union(*sets, *counted), 1)
        for counts in counted:
            for gram, count in counts.items():
                if count > merged[gram]:
                    merged[gram] = count
        orders.append((merged, repeated_counts(merged)))
    return RefNgrams(lens, refs, tuple(orders))


def _clipped_against(grams: Iterable, size: int, ref_counts: dict) -> int:
    """The clipped count of the ``size`` n-grams ``grams`` against one
    reference's counts, some of which are above 1.

    Each common n-gram matches once; only one the hypothesis repeats can
    match more, so a hypothesis that repeats none is done with one C-level
    intersection, and otherwise only its own counts are looked at.
    """
    counts: dict = {}
    _count_into(counts, grams)
    matched = len(counts.keys() & ref_counts.keys())
    if len(counts) == size:
        return matched
    get = ref_counts.get
    for gram, count in counts.items():
        if count > 1:
            ref_count = get(gram, 0)
            if ref_count > 1:
                matched += (count if count < ref_count else ref_count) - 1
    return matched


def hyp_row(hyp: list[str], refs: RefNgrams, max_order: int) -> tuple[int, ...]:
    """The sufficient statistics of one tokenized hypothesis against its
    prepared references, as SacreBLEU's row ``(hyp_len, ref_len, *matches,
    *totals)``."""
    hyp_len = len(hyp)
    matches = [0] * max_order
    columns = [hyp]
    grams: Iterable = hyp
    orders = refs.orders
    if orders is None:
        ref = refs.refs[0]
        ref_len = len(ref)
        ref_columns = [ref]
        ref_grams: Iterable = ref
        distinct = False  # the reference repeats no n-gram from this order on
        for n in range(min(max_order, hyp_len, ref_len)):
            if n:
                columns.append(hyp[n:])
                ref_columns.append(ref[n:])
                grams, ref_grams = zip(*columns), zip(*ref_columns)
            if distinct:
                matched = len(set(ref_grams).intersection(grams))
            elif n:
                # Past unigrams a reference seldom repeats an n-gram: a set,
                # cheaper to make than counts, tells whether it does.
                ref_set = set(ref_grams)
                distinct = len(ref_set) == ref_len - n
                if distinct:
                    matched = len(ref_set.intersection(grams))
                else:
                    matched = _clipped_against(grams, hyp_len - n, ngram_counts(ref_columns))
            else:
                ref_counts: dict = {}
                _count_into(ref_counts, ref_grams)
                distinct = len(ref_counts) == ref_len
                if distinct:
                    matched = len(ref_counts.keys() & grams)
                else:
                    matched = _clipped_against(grams, hyp_len, ref_counts)
            if not matched:
                break
            matches[n] = matched
    else:
        ref_len = closest_ref_len(hyp_len, refs.lens)
        for n in range(min(max_order, hyp_len, len(orders))):
            if n:
                columns.append(hyp[n:])
                grams = zip(*columns)
            lookup, repeated = orders[n]
            if not repeated:  # each n-gram a reference holds matches once
                matched = len(lookup.intersection(grams))
            else:
                counts = {}
                _count_into(counts, grams)
                matched = clipped_with_repeats(counts, lookup, repeated)
            if not matched:
                break
            matches[n] = matched
    # The totals: hyp_len - n n-grams of order n + 1, none past the hypothesis.
    if hyp_len >= max_order:
        return (hyp_len, ref_len, *matches, *range(hyp_len, hyp_len - max_order, -1))
    return (hyp_len, ref_len, *matches, *range(hyp_len, 0, -1), *[0] * (max_order - hyp_len))


def segment_row(hyp: list[str], refs: Sequence[list[str]], max_order: int) -> tuple[int, ...]:
    """The row of one tokenized segment; ``refs`` holds at least one reference."""
    return hyp_row(hyp, reference_ngrams(refs, max_order), max_order)
