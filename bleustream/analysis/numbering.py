"""Running counts by number, the layout the analyses' counting shares.

A key (a word, an n-gram) has a number, the order in which it was first
seen (``ids``: key to number; ``keys``: the keys by number), and ``width``
counts in one flat list from ``number * width`` on.  So a key costs one
lookup however many counts it has.  The compiled twins keep the same
layout (``key_number`` in ``_native/analysis.c``).
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Sequence
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)


def number_of(ids: dict[K, int], keys: list[K], counts: list[Any], width: int, key: K) -> int:
    """The number of ``key``; a new one, with ``width`` zero counts, when it has none."""
    number = ids.get(key)
    if number is None:
        number = ids[key] = len(keys)
        keys.append(key)
        counts += [0] * width
    return number


def add_at(counts: list[Any], at: int, numbers: Sequence[Any]) -> None:
    """``counts[at + j] += numbers[j]`` for each j."""
    end = at + len(numbers)
    counts[at:end] = map(operator.add, counts[at:end], numbers)


def merge_into(
    ids: dict[K, int],
    keys: list[K],
    counts: list[Any],
    width: int,
    other_keys: Sequence[K],
    other_counts: Sequence[Any],
) -> list[int]:
    """Adds another table's counts (its keys numbered here, new ones
    appended in its order); its numbers as they are here."""
    remap = [number_of(ids, keys, counts, width, key) for key in other_keys]
    for theirs, mine in enumerate(remap):
        add_at(counts, mine * width, other_counts[theirs * width : (theirs + 1) * width])
    return remap
