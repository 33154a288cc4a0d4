"""Token ids chosen to collide in the compiled token-ID matcher's hash.

The matcher's first probe (``first_probe`` in ``bleustream/_native/kernels.h``)
is the top bits of ``id * NGRAM_MUL mod 2**64``, a fixed odd multiplier.  So
``(number << shift) * NGRAM_MUL^-1 mod 2**64`` has the probe
``(number << shift) >> (64 - bits)`` in a table of ``2**bits`` slots: with
shift 0, slot 0 in every table (each insertion walked past all the ids
before it, quadratic in their number); with shift ``64 - bits``, slot
``number``: a run of slots from 0, whose start absent ids then walk.  The
tests, the benchmark and the tools feed these to the kernel and its pure
twin (which must give SacreBLEU's numbers on them, at the speed of any ids).
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
