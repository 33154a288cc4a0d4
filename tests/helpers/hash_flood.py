"""Token ids chosen to collide in the compiled token-ID matcher's hash.

The matcher's first probe (``first_probe`` in ``bleustream/_native/kernels.h``)
is the top bits of ``id * NGRAM_MUL mod 2**64``, a fixed odd multiplier.  So
``(number << shift) * NGRAM_MUL^-1 mod 2**64`` has the probe
``(number << shift) >> (64 - bits)`` in a table of ``2**bits`` slots: with
shift 0, slot 0 in every table (each insertion walked past all the ids
before it, quadratic in their number); with shift ``64 - bits``, slot
``number``: a run of slots from 0, whose start absent ids then walk.

The pure twin's sets and dicts hash n-gram tuples with Python's tuple hash,
a fixed function of its items' hashes (an int's is the int, mod 2**61 - 1),
whose every step can be undone: ``tuple_colliding_ids`` are pairs ``a, b``
whose tuples ``(a, b)`` all have one hash.  The tests, the benchmark and
the tools feed these to the kernel and its pure twin (which must give
SacreBLEU's numbers on them, at the speed of any ids).
"""

from __future__ import annotations

import re

from tests.helpers.paths import ROOT


def probe_multiplier() -> int:
    """NGRAM_MUL, read from kernels.h."""
    header = (ROOT / "bleustream" / "_native" / "kernels.h").read_text(encoding="utf-8")
    found = re.search(r"#define NGRAM_MUL (0x[0-9A-Fa-f]+)ULL", header)
    assert found is not None, "kernels.h defines no NGRAM_MUL"
    return int(found.group(1), 16)


def unigram_bits(count: int) -> int:
    """The bits of the matcher's unigram table for ``count`` reference ids
    (id_ngrams.c's table_bits: at most an eighth full up to 2**16 slots,
    else at most half full)."""
    want = 8 * count + 1 if 8 * count + 1 <= 2**16 else max(2 * count + 1, 2**16)
    return max(3, (want - 1).bit_length())


def colliding_ids(numbers: range, shift: int = 0) -> list[int]:
    """``(number << shift) * NGRAM_MUL^-1 mod 2**64`` for each number, as int64."""
    inverse = pow(probe_multiplier(), -1, 2**64)
    ids = [(number << shift) * inverse % 2**64 for number in numbers]
    return [x - 2**64 if x >= 2**63 else x for x in ids]


# CPython's tuple hash (Objects/tupleobject.c, 64-bit): xxHash's primes
_XX_1, _XX_2, _XX_5 = 11400714785074694791, 14029467366897019727, 2870177450012600261
_M64 = 2**64


def _rotate(x: int, bits: int) -> int:
    return ((x << bits) | (x >> (64 - bits))) % _M64


def tuple_colliding_ids(count: int, target: int = 12345) -> list[int]:
    """``count`` ids, pairs ``a, b`` whose tuples ``(a, b)`` share one hash:
    for each ``a``, the ``b`` whose hash takes the tuple hash's state to
    ``target`` (when that ``b`` is an int's hash; about one ``a`` in eight)."""
    inverse_1, inverse_2 = pow(_XX_1, -1, _M64), pow(_XX_2, -1, _M64)
    before_b = _rotate(target * inverse_1 % _M64, 64 - 31)
    ids: list[int] = []
    a = 1
    while len(ids) < count:
        after_a = _rotate((_XX_5 + hash(a) % _M64 * _XX_2) % _M64, 31) * _XX_1 % _M64
        b = (before_b - after_a) * inverse_2 % _M64
        if b < 2**61 - 1 and b != a:
            ids += [a, b]
        a += 1
    return ids[:count]
