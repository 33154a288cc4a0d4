"""The kernels of a reader's blocks of bytes: the sums of a block
(``sum_block``, BLEU's and chrF's), the C twin, which decodes each line
itself, against the pure twin, which decodes the block with
``bytes.decode``, and both against SacreBLEU; and paste lines cut into a
block per field (``paste_columns``).

A block is the UTF-8 of some lines joined by line ends.  Where a line is
not UTF-8 both twins give None (the reader then decodes the block itself
to say where): every byte sequence Python's strict decoder refuses, and
only those, is checked here by its class (stray continuation bytes,
overlong forms, surrogates, code points past U+10FFFF, sequences cut
short at the line's end or by a line end).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import pytest

from bleustream.inputs import blocks
from bleustream.metrics import bleu, bleu_batches, chrf, chrf_batches
from tests.helpers.adversarial import Adversary
from tests.helpers.native import NATIVE as N
from tests.helpers.native import needs_native
from tests.helpers.oracle import oracle_bleu, oracle_chrf

SETTINGS = [
    bleu.Settings(),
    bleu.Settings(max_order=2),
    bleu.Settings(tokenize="zh"),
    bleu.Settings(lowercase=True),  # decoded, then the compiled batch
    bleu.Settings(tokenize="intl"),  # the same
    chrf.Settings(),
    chrf.Settings(word_order=2),
    chrf.Settings(char_order=3, word_order=1, whitespace=True, beta=1),
    chrf.Settings(lowercase=True, word_order=2),  # decoded, then the compiled batch
    chrf.Settings(eps_smoothing=True, char_order=8),
]
# White space a line may end in (right-stripped as a line read alone is).
ENDS = ("", " ", "\t", "\r", " \r", "\u3000", "\x85", "\xa0 ", "\x1c")


def _twins(the_settings: Any) -> tuple[Any, Any]:
    """(pure, compiled) ``sum_block`` of the settings (BLEU's or chrF's)."""
    metric, batches = (
        (chrf, chrf_batches) if type(the_settings) is chrf.Settings else (bleu, bleu_batches)
    )
    saved = metric.native, batches.native
    metric.native = batches.native = N  # type: ignore[attr-defined]
    try:
        return metric.py_sum_block(the_settings), metric.c_sum_block(the_settings)
    finally:
        metric.native, batches.native = saved  # type: ignore[attr-defined]


def _oracle(the_settings: Any) -> Any:
    """SacreBLEU's metric of the same settings."""
    if type(the_settings) is bleu.Settings:
        return oracle_bleu(the_settings)
    return oracle_chrf(the_settings)


def _blocks(lines: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[bytes, list[bytes]]:
    return "\n".join(lines).encode(), ["\n".join(column).encode() for column in zip(*refs)]


def _corpus(seed: int, n: int, n_refs: int) -> tuple[list[str], list[list[str]]]:
    """Adversarial segments on one line each, with odd white space at their ends."""
    rng = random.Random(seed)
    hyps, refs = Adversary(seed).corpus(n, n_refs)
    flat = [[stream[i] for stream in refs] for i in range(n)]

    def line(text: str) -> str:
        return text.replace("\n", " ") + rng.choice(ENDS)

    return [line(h) for h in hyps], [[line(r) for r in texts] for texts in flat]


@needs_native
@pytest.mark.parametrize("the_settings", SETTINGS, ids=repr)
@pytest.mark.parametrize("n_refs", [1, 3])
def test_a_block_sums_as_sacrebleu(the_settings: Any, n_refs: int) -> None:
    pure, compiled = _twins(the_settings)
    oracle = _oracle(the_settings)
    for seed, n in ((1, 1), (2, 7), (3, 120)):
        hyps, refs = _corpus(seed + 10 * n_refs, n, n_refs)
        stats = oracle._extract_corpus_statistics(
            [h.rstrip() for h in hyps],
            [[texts[k].rstrip() for texts in refs] for k in range(n_refs)],
        )
        wanted = tuple(map(int, map(sum, zip(*stats))))
        tokenized = sum(h.rstrip().endswith(" .") for h in hyps)
        blocks = _blocks(hyps, refs)
        assert pure(*blocks) == (("sum", wanted), tokenized), (seed, n)
        assert compiled(*blocks) == (("sum", wanted), tokenized), (seed, n)


def _bad_and_good() -> list[bytes]:
    """Byte sequences around every class of malformed UTF-8, and well-formed ones."""
    seqs: list[bytes] = [bytes([b]) for b in range(256)]
    seqs += [
        bytes([a, b]) for a in range(0xC0, 0x100) for b in (0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0)
    ]
    for lead in range(0xE0, 0x100):
        for second in (0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0):
            seqs += [bytes([lead, second]), bytes([lead, second, 0x80])]
            seqs += [bytes([lead, second, 0x80, 0x80]), bytes([lead, second, 0x41, 0x80])]
    seqs += [b"\xef\xbf\xbf", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xed\x9f\xbf"]
    seqs += [b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xee\x80\x80", b"\xf0\x90\x80\x80"]
    return seqs


@needs_native
@pytest.mark.parametrize("the_settings", [bleu.Settings(), chrf.Settings(word_order=2)], ids=repr)
def test_a_line_not_utf8_gives_none_as_bytes_decode_refuses_it(the_settings: Any) -> None:
    pure, compiled = _twins(the_settings)
    for seq, (before, after) in itertools.product(
        _bad_and_good(), [(b"", b""), (b"a ", b" b"), (b"x" * 20, b""), (b"&amp; ", b"\n<z")]
    ):
        line = before + seq + after
        try:
            line.decode("utf-8")
            valid = True
        except UnicodeDecodeError:
            valid = False
        hyp = b"ok .\n" + line
        refs = [b"ok\n" + b"y\n" * line.count(b"\n") + b"ref"]
        got, want = compiled(hyp, refs), pure(hyp, refs)
        assert got == want, line
        assert (got is not None) is valid, line
        # in a reference too
        assert compiled(refs[0], [hyp]) == pure(refs[0], [hyp]), line


@needs_native
@pytest.mark.parametrize("the_settings", [bleu.Settings(), chrf.Settings()], ids=repr)
def test_long_ascii_runs_between_other_characters(the_settings: Any) -> None:
    """The C decoder widens sixteen ASCII bytes at a time: runs of every
    length around multi-byte characters, '<' and '&' inside and at the edges."""
    pure, compiled = _twins(the_settings)
    pieces = ("é", "中", "😀", "<skipped>", "&quot;", "&", "<", " ", ".", "x")
    rng = random.Random(3)
    for _ in range(300):
        hyp = "".join(rng.choice(pieces) + "a" * rng.randint(0, 40) for _ in range(5))
        ref = "".join(rng.choice(pieces) + "b" * rng.randint(0, 40) for _ in range(5))
        blocks = (hyp.encode(), [ref.encode()])
        assert compiled(*blocks) == pure(*blocks) is not None, (hyp, ref)


@needs_native
@pytest.mark.parametrize("the_settings", [bleu.Settings(), chrf.Settings()], ids=repr)
def test_the_blocks_of_one_batch_must_agree(the_settings: Any) -> None:
    pure, compiled = _twins(the_settings)
    width = 10 if type(the_settings) is bleu.Settings else 18
    for twin in (pure, compiled):
        with pytest.raises(ValueError, match="different numbers of lines"):
            twin(b"a\nb", [b"a"])
        with pytest.raises(ValueError, match="different numbers of lines"):
            twin(b"a", [b"a", b"a\n"])
        with pytest.raises(ValueError, match="at least one reference"):
            twin(b"a", [])
        with pytest.raises(TypeError):
            twin("a", [b"a"])
        with pytest.raises(TypeError):
            twin(b"a", ["a"])
        # an empty block is one empty line
        assert twin(b"", [b""]) == twin(b" ", [b"\t"]) == (("sum", (0,) * width), 0)
        # any bytes-like object, as the C twin takes its buffer
        got = twin(bytearray(b"a b ."), [memoryview(b"a b")])
        assert got == twin(b"a b .", [b"a b"]) and got is not None and got[1] == 1
        with pytest.raises(TypeError):
            twin(3, [b"a"])
    assert N is not None
    with pytest.raises(ValueError):
        N.bleu_sum_block_13a(b"a", [b"a"], 10**6)
    with pytest.raises(OverflowError):
        N.bleu_sum_block_13a(b"a", [b"a"], 10**30)
    assert N.bleu_sum_block_zh(bytearray(b"a"), [memoryview(b"a")], 1) == (("sum", (1, 1, 1, 1)), 0)
    with pytest.raises(OverflowError):
        N.chrf_sum_block(b"a", [b"a"], 101, 0, False, 2, False)
    with pytest.raises(ValueError):
        N.chrf_sum_block(b"a", [b"a"], -1, 0, False, 2, False)


def test_the_block_sums_are_bound_to_the_twin_the_kernels_chose() -> None:
    import bleustream.kernels

    compiled = bleustream.kernels.native is not None
    assert (bleu.sum_block is bleu.c_sum_block) is compiled
    assert (chrf.sum_block is chrf.c_sum_block) is compiled


@needs_native
def test_paste_lines_cut_into_fields_as_the_pure_code() -> None:
    """``paste_columns``: a block per field where every line has as many,
    else None; on blocks of tabs, line ends and text in every arrangement."""
    assert N is not None
    rng = random.Random(9)
    cases = [b"", b"\t", b"\n", b"\t\n\t", b"a\tb", b"a\tb\nc\td", b"a\tb\nc", b"a\t\tb\n\t\t"]
    for _ in range(3000):
        cases.append(bytes(rng.choice(b"ab\t\n\r\xff") for _ in range(rng.randint(0, 30))))
    for block in cases:
        for nfields in (1, 2, 3, 4):
            got = N.paste_columns(block, nfields)
            assert got == blocks.py_paste_columns(block, nfields), (block, nfields)
            if got is not None:
                assert [line.split(b"\t") for line in block.split(b"\n")] == [
                    list(fields) for fields in zip(*(column.split(b"\n") for column in got))
                ]
    for twin in (N.paste_columns, blocks.py_paste_columns):
        with pytest.raises(ValueError):
            twin(b"a", 0)
        with pytest.raises(TypeError):
            twin("a\tb", 2)
        assert twin(bytearray(b"a\tb"), 2) == [b"a", b"b"]
        assert twin(b"a\tb", 10**12) is None
        with pytest.raises(OverflowError):
            twin(b"a", 10**30)
        with pytest.raises(OverflowError):
            twin(b"a", -(10**30))
        with pytest.raises(TypeError):
            twin(b"a\tb", 2.0)
