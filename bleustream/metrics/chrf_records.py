"""chrF's statistics read back (``-f stats``): what is wrong with a row a
run could not have written.

``chrf.check_row`` is ``row_problem``; ``settings`` is a ``chrf.Settings``.
A row is the (hypothesis, reference, matching) n-gram counts of each
character order, then of each word order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bleustream.metrics.protocol import totals_problem, whole_counts


def row_problem(row: Sequence[Any], settings: Any, segments: int) -> str | None:
    """Counts with a run's structure, for the character and the word orders
    each (``_orders_problem``), and between them: words are made of the
    characters, one at least each, so no side has more words than
    characters; without ``whitespace``, a segment's side has words if and
    only if it has characters.
    """
    problem = whole_counts(row)
    if problem is not None:
        return problem
    counts = [int(x) for x in row]
    split = 3 * settings.char_order
    problem = _orders_problem(counts[:split], "character", segments, 0)
    if problem is None:
        problem = _orders_problem(counts[split:], "word", segments, settings.char_order)
    if problem is not None or not (settings.char_order and settings.word_order):
        return problem
    for side, at in (("reference", 1), ("hypothesis", 0)):
        chars, words = counts[at], counts[split + at]
        if words > chars:
            return f"{words} {side} words but {chars} {side} characters"
        # A hypothesis's lengths show only where the reference has n-grams.
        known = side == "reference" or counts[1]
        if segments == 1 and known and not settings.whitespace and bool(words) != bool(chars):
            return f"a {side} of {chars} characters and {words} words"
    return None


def _orders_problem(counts: list[int], kind: str, segments: int, before: int) -> str | None:
    """What is wrong with the (hyp, ref, match) triplets of one kind of
    n-gram, orders 1..N (``before`` orders of the row come before them), or None.

    A reference of R items has max(0, R - n + 1) n-grams of order n
    (``totals_problem``); a hypothesis of L items as many, but none at an
    order where the reference has none, as SacreBLEU counts.  Over several
    segments, neither side has more n-grams than at the order below.  No
    order matches more n-grams than either side has, nor more than the order
    below: the statistics are those of one reference, and an n-gram
    matches only where its first n - 1 items do.
    """
    if not counts:
        return None
    hyps, refs, matches = counts[0::3], counts[1::3], counts[2::3]
    for n, (hyp, ref, match) in enumerate(zip(hyps, refs, matches), 1):
        if match > hyp or match > ref:
            return (
                f"{match} matches at order {before + n}, of {hyp} hypothesis and {ref} "
                "reference n-grams"
            )
        if n > 1 and match > matches[n - 2]:
            return f"{match} matching {kind} {n}-grams but {matches[n - 2]} {n - 1}-grams"
        if hyp and not ref:
            return f"{hyp} hypothesis {kind} {n}-grams counted against no reference ones"
    problem = totals_problem(refs, refs[0], segments, f"reference {kind}s")
    if problem is not None:
        return problem
    if segments == 1:
        # A hypothesis of hyps[0] items, at the orders the reference has.
        sound = hyps == [max(0, hyps[0] - n) if ref else 0 for n, ref in enumerate(refs)]
    else:
        sound = all(a >= b for a, b in zip(hyps, hyps[1:]))
    if not sound:
        problem = (
            f"{'/'.join(map(str, hyps))} hypothesis {kind} n-grams of orders 1 to "
            f"{len(hyps)} against {'/'.join(map(str, refs))} reference ones"
            + (" in a segment" if segments == 1 else "")
        )
    return problem
