"""bleustream.token_bleu: BLEU of token ids equals SacreBLEU's on the ids as words.

The oracle is SacreBLEU called here: ``sentence_bleu`` (or ``BLEU(...)``
for another maximum order) and ``BLEU(...).corpus_score`` / ``corpus_bleu``
on the ids written as space-separated words with ``tokenize="none"``; the
numbers must be equal to the bit.  The suite runs on whichever kernels the
process chose (compiled, or pure under BLEUSTREAM_PUREPYTHON=1); with the
compiled ones, the C rows are also compared with the pure twin's directly.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import threading
from array import array
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustream
from bleustream.kernels import native
from bleustream.metrics import token_bleu as token_bleu_module
from bleustream.metrics.token_bleu import TokenBleu, c_token_rows, py_token_rows
from bleustream.metrics.token_ids import id_stream
from tests.conftest import RealSet, read_refs, read_segments
from tests.helpers.hash_flood import colliding_ids, tuple_colliding_ids, unigram_bits
from tests.helpers.paths import ROOT

BIG = 2**63 - 1
# A small alphabet, so that n-grams repeat and match, and the extremes.
IDS = st.one_of(st.integers(0, 5), st.sampled_from([BIG, -(2**63), -1, 10**18]))
SENTENCE = st.lists(IDS, max_size=12)
SMOOTHING = st.one_of(
    st.tuples(st.sampled_from(["exp", "none"]), st.none()),
    st.tuples(st.just("floor"), st.sampled_from([None, 0.1, 0.5, 1])),
    st.tuples(st.just("add-k"), st.sampled_from([None, 1, 2, 0.5])),
)
DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def words(ids: Any) -> str:
    return " ".join(map(str, ids))


def oracle(
    hyps: list[list[int]],
    refs: list[list[list[int]]],
    smooth: tuple[str, Any] = ("exp", None),
    effective_order: bool = True,
    max_order: int = 4,
) -> tuple[list[float], float]:
    """SacreBLEU's sentence scores and corpus score of the ids as words."""
    method, value = smooth
    texts = [words(h) for h in hyps]
    streams = [[words(r) for r in stream] for stream in refs]
    if max_order == 4:
        scores = [
            sacrebleu.sentence_bleu(
                text,
                [stream[i] for stream in streams],
                smooth_method=method,
                smooth_value=value,
                tokenize="none",
                use_effective_order=effective_order,
            ).score
            for i, text in enumerate(texts)
        ]
    else:
        metric = sacrebleu.BLEU(
            tokenize="none",
            smooth_method=method,
            smooth_value=value,
            effective_order=effective_order,
            max_ngram_order=max_order,
        )
        scores = [
            metric.sentence_score(text, [stream[i] for stream in streams]).score
            for i, text in enumerate(texts)
        ]
    corpus = sacrebleu.BLEU(
        tokenize="none",
        smooth_method=method,
        smooth_value=value,
        effective_order=effective_order,
        max_ngram_order=max_order,
    ).corpus_score(texts, streams)
    return scores, corpus.score


def assert_bits(got: Any, want: list[float]) -> None:
    assert [float.hex(x) for x in got] == [float.hex(x) for x in want]


@st.composite
def batches(draw: Any, max_refs: int = 3) -> tuple[list[list[int]], list[list[list[int]]]]:
    n = draw(st.integers(1, 6))
    nrefs = draw(st.integers(1, max_refs))
    hyps = [draw(SENTENCE) for _ in range(n)]
    refs = [[draw(SENTENCE) for _ in range(n)] for _ in range(nrefs)]
    return hyps, refs


@settings(max_examples=300, deadline=None)
@given(
    batches(),
    SMOOTHING,
    st.booleans(),
    st.sampled_from([4, 4, 1, 2, 5]),
    st.sampled_from([1, 2]),
)
def test_lists_equal_sacrebleu(
    batch: Any, smooth: tuple[str, Any], effective: bool, order: int, threads: int
) -> None:
    hyps, refs = batch
    want, want_corpus = oracle(hyps, refs, smooth, effective, order)
    got = bleustream.token_bleu(
        hyps,
        refs,
        smooth_method=smooth[0],
        smooth_value=smooth[1],
        effective_order=effective,
        max_ngram_order=order,
        threads=threads,
        corpus=True,
    )
    assert isinstance(got, TokenBleu) and isinstance(got.scores, array)
    assert got.scores.typecode == "d"
    assert_bits(got.scores, want)
    assert float.hex(got.corpus) == float.hex(want_corpus)


def padded(rows: list[list[int]], dtype: str, pad: int) -> tuple[np.ndarray, list[int]]:
    width = max(map(len, rows), default=0) + 2
    out = np.full((len(rows), width), pad, dtype=dtype)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out, [len(row) for row in rows]


SMALL_SENTENCE = st.lists(st.integers(0, 6), max_size=12)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(SMALL_SENTENCE, min_size=1, max_size=5),
    st.lists(SMALL_SENTENCE, min_size=5, max_size=5),
    st.lists(SMALL_SENTENCE, min_size=5, max_size=5),
    st.sampled_from(DTYPES),
    st.sampled_from(["lengths", "pad_id", "both", "fortran", "strided"]),
)
def test_padded_arrays_of_every_dtype(
    hyps: list[list[int]], refs_a: list[list[int]], refs_b: list[list[int]], dtype: str, how: str
) -> None:
    """2-D arrays of every integer dtype, padded with 7 (no id of theirs)."""
    refs = [refs_a[: len(hyps)], refs_b[: len(hyps)]]
    want, _ = oracle(hyps, refs)
    hyp_array, hyp_lens = padded(hyps, dtype, 7)
    ref_arrays = [padded(stream, dtype, 7) for stream in refs]
    if how == "lengths":
        got = bleustream.token_bleu(
            hyp_array,
            [a for a, _ in ref_arrays],
            lengths=hyp_lens,
            ref_lengths=[np.array(lens) for _, lens in ref_arrays],
        )
    elif how == "pad_id":
        got = bleustream.token_bleu(hyp_array, [a for a, _ in ref_arrays], pad_id=7)
    elif how == "both":
        got = bleustream.token_bleu(
            hyp_array, [a for a, _ in ref_arrays], lengths=hyp_lens, pad_id=np.int64(7)
        )
    elif how == "fortran":
        got = bleustream.token_bleu(
            np.asfortranarray(hyp_array), [np.asfortranarray(a) for a, _ in ref_arrays], pad_id=7
        )
    else:  # every other column of an array twice as wide, padding between
        wide = np.repeat(hyp_array, 2, axis=1)
        wide[:, 1::2] = 7
        assert not wide[:, ::2].flags.c_contiguous
        got = bleustream.token_bleu(wide[:, ::2], [a for a, _ in ref_arrays], pad_id=7)
    assert_bits(got, want)


@pytest.mark.parametrize("dtype", ["int16", "uint16", "int32", "int64", "uint64"])
@pytest.mark.parametrize("pad_id", [None, 7])
def test_arrays_at_an_odd_address(dtype: str, pad_id: int | None) -> None:
    """A NumPy view one byte into its buffer: its ids are not aligned for
    their type, and are read as they are (an aligned load there is
    undefined behaviour, which UBSan's run of this file reports)."""
    hyps = [[1, 2, 3, 4, 5], [6, 5, 4]]
    refs = [[[1, 2, 3, 5, 4], [6, 5, 4, 3]]]
    want, _ = oracle(hyps, refs)
    arrays = []
    for rows in (hyps, refs[0]):
        tight, _ = padded(rows, dtype, 7)
        raw = bytearray(tight.nbytes + 1)
        view = np.frombuffer(raw, dtype=dtype, count=tight.size, offset=1).reshape(tight.shape)
        view[...] = tight
        assert not view.flags.aligned
        arrays.append(view)
    if pad_id is None:
        lengths = [len(h) for h in hyps]
        ref_lengths = [[len(r) for r in refs[0]]]
        got = bleustream.token_bleu(
            arrays[0], [arrays[1]], lengths=lengths, ref_lengths=ref_lengths
        )
    else:
        got = bleustream.token_bleu(arrays[0], [arrays[1]], pad_id=pad_id)
    assert_bits(got, want)


def test_big_ids_in_arrays() -> None:
    """int64's and uint64's extremes are ids like any other."""
    hyps = [[BIG, 1, BIG, 2], [-(2**63), -1, 0]]
    refs = [[[BIG, 1, BIG], [-(2**63), 0, -1]]]
    want, _ = oracle(hyps, refs)
    ids = np.array([[BIG, 1, BIG, 2], [-(2**63), -1, 0, 0]], dtype=np.int64)
    ref = np.array([[BIG, 1, BIG], [-(2**63), 0, -1]], dtype=np.int64)
    assert_bits(bleustream.token_bleu(ids, [ref], lengths=[4, 3]), want)
    unsigned = np.array([[BIG, 1, BIG, 2]], dtype=np.uint64)
    want, _ = oracle(hyps[:1], [refs[0][:1]])
    got = bleustream.token_bleu(unsigned, [np.array([[BIG, 1, BIG]], dtype=np.uint64)])
    assert_bits(got, want)


def test_uint64_ids_past_the_lengths_are_not_read() -> None:
    """A uint64 id past 2**63 - 1 where no sentence reaches is never read,
    so it refuses nothing; inside a sentence it is a ValueError (above)."""
    hyps = [[1, 2, 3], [4, 5]]
    refs = [[[1, 2, 4], [4, 5]]]
    want, _ = oracle(hyps, refs)
    top = 2**64 - 1
    hyp_array = np.array([[1, 2, 3, top], [4, 5, top, top]], dtype=np.uint64)
    ref_array = np.array([[1, 2, 4, top], [4, 5, top, 0]], dtype=np.uint64)
    got = bleustream.token_bleu(
        hyp_array, [ref_array], lengths=[3, 2], ref_lengths=[np.array([3, 2], np.int64)]
    )
    assert_bits(got, want)
    rows = [np.array(row, dtype=np.uint64) for row in hyp_array]
    assert_bits(
        bleustream.token_bleu(rows, [ref_array], lengths=[3, 2], ref_lengths=[[3, 2]]), want
    )
    as_ints = [[int(x) for x in row] for row in hyp_array]
    assert_bits(bleustream.token_bleu(as_ints, [refs[0]], lengths=[3, 2]), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", [">", "<"])
def test_arrays_in_either_byte_order(dtype: str, order: str) -> None:
    """Arrays and lengths of either byte order (one of them not this
    machine's) are read by value: the same scores as SacreBLEU's."""
    hyps = [[1, 2, 3, 4, 5, 100], [6, 5, 4]]
    refs = [[[1, 2, 3, 5, 4, 100], [6, 5, 4, 3]]]
    want, _ = oracle(hyps, refs)
    kind = np.dtype(dtype).newbyteorder(order)
    hyp_array = padded(hyps, dtype, 7)[0].astype(kind)
    ref_array = padded(refs[0], dtype, 7)[0].astype(kind)
    lengths = np.array([6, 3], dtype=np.dtype("int32").newbyteorder(order))
    got = bleustream.token_bleu(hyp_array, [ref_array], lengths=lengths, pad_id=7)
    assert_bits(got, want)
    strided = np.repeat(hyp_array, 2, axis=1)[:, ::2]
    assert_bits(bleustream.token_bleu(strided, [ref_array], pad_id=7), want)


def test_numpy_integers_as_order_and_threads() -> None:
    """max_ngram_order and threads of any integer type with __index__."""
    hyps = [[1, 2, 3, 4, 5], [6, 5, 4, 3, 2, 1]]
    refs = [[[1, 2, 3, 5, 4], [6, 5, 4, 3, 2]]]
    want, _ = oracle(hyps, refs, max_order=3)
    for order, threads in [(np.int64(3), np.int64(2)), (np.uint8(3), np.int32(1))]:
        got = bleustream.token_bleu(hyps, refs, max_ngram_order=order, threads=threads)
        assert_bits(got, want)


class ArrayOnly:
    """An object with ``__array__`` and no buffer: a PyTorch tensor's way in."""

    def __init__(self, values: Any) -> None:
        self.values = np.asarray(values)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.values


def test_other_containers() -> None:
    hyps = [[1, 2, 3, 4, 5], [3, 3, 3], []]
    refs = [[[1, 2, 3, 5], [3, 3], [1]], [[5, 4, 3, 2, 1], [3], []]]
    want, _ = oracle(hyps, refs)
    as_arrays = [array("i", h) for h in hyps]
    assert_bits(bleustream.token_bleu(as_arrays, refs), want)
    assert_bits(bleustream.token_bleu([memoryview(array("q", h)) for h in hyps], refs), want)
    assert_bits(bleustream.token_bleu([np.array(h, np.uint16) for h in hyps], refs), want)
    assert_bits(bleustream.token_bleu(tuple(map(tuple, hyps)), refs), want)
    hyp_array, lens = padded(hyps, "int64", 0)
    streams = [ArrayOnly(padded(stream, "int32", 0)[0]) for stream in refs]
    ref_lengths = [[len(r) for r in stream] for stream in refs]
    got = bleustream.token_bleu(
        ArrayOnly(hyp_array), streams, lengths=ArrayOnly(lens), ref_lengths=ref_lengths
    )
    assert_bits(got, want)
    # ids as NumPy scalars in lists
    assert_bits(bleustream.token_bleu([list(np.array(h)) for h in hyps], refs), want)


def test_the_guides_example_prints_what_it_says() -> None:
    """The guide's token_bleu example prints the scores its comment shows,
    which are SacreBLEU's for the ids as words."""
    guide = (ROOT / "docs" / "guide.md").read_text("utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", guide, re.M | re.S)
    (block,) = [b for b in blocks if "token_bleu(" in b]
    shown = re.search(r"^print\(list\(scores\)\)  # (.*)$", block, re.M)
    assert shown is not None
    run = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == shown.group(1)
    want, _ = oracle([[12, 7, 99, 4, 31], [5, 6, 7, 8, 9, 10]], [[[12, 7, 99, 4, 2], [5, 6, 7, 8]]])
    assert shown.group(1) == str(want)


def extra_requirements() -> set[str]:
    """The names of the packages the ``test`` extra installs."""
    toml = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
    pyproject = ROOT / "pyproject.toml"
    extra = toml.loads(pyproject.read_text("utf-8"))["project"]["optional-dependencies"]["test"]
    return {re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0] for requirement in extra}


# PyTorch tensors come in through __array__: always with a class of the
# test's own, and with real CPU tensors wherever the test extra installs PyTorch.
TENSOR_KINDS = ["array-only", *(["torch"] if "torch" in extra_requirements() else [])]


@pytest.mark.parametrize("kind", TENSOR_KINDS)
def test_tensors(kind: str) -> None:
    hyps = [[3, 4, 5, 6, 7], [8, 9, 8, 9]]
    refs = [[[3, 4, 5, 6], [8, 9, 8, 9, 8]]]
    want, want_corpus = oracle(hyps, refs)
    if kind == "torch":
        torch = importlib.import_module("torch")

        def tensor(values: Any, dtype: str) -> Any:
            return torch.tensor(np.asarray(values), dtype=getattr(torch, dtype))
    else:

        def tensor(values: Any, dtype: str) -> Any:
            return ArrayOnly(np.asarray(values, dtype=dtype))

    hyp_ids = tensor([[3, 4, 5, 6, 7], [8, 9, 8, 9, 0]], "int64")
    ref_ids = tensor([[3, 4, 5, 6, 0], [8, 9, 8, 9, 8]], "int32")
    got = bleustream.token_bleu(hyp_ids, [ref_ids], pad_id=0, corpus=True)
    assert_bits(got.scores, want)
    assert float.hex(got.corpus) == float.hex(want_corpus)
    got_lengths = bleustream.token_bleu(
        hyp_ids, [ref_ids], lengths=tensor([5, 4], "int64"), ref_lengths=[[4, 5]]
    )
    assert_bits(got_lengths, want)


def test_empty_batch() -> None:
    assert bleustream.token_bleu([], [[]]) == array("d")
    assert bleustream.token_bleu(np.zeros((0, 5), np.int64), [np.zeros((0, 3), np.int64)]) == (
        array("d")
    )
    assert bleustream.token_bleu([], [[]], corpus=True) == (array("d"), 0.0)


@pytest.mark.skipif(native is None, reason="the compiled kernels are not loaded")
@settings(max_examples=300, deadline=None)
@given(batches(), st.sampled_from([None, 0, 1, BIG]), st.integers(1, 6))
def test_compiled_rows_equal_pure_rows(batch: Any, pad: int | None, order: int) -> None:
    hyps, refs = batch
    hyp_stream = id_stream(hyps)
    streams = [id_stream(stream, what="references") for stream in refs]
    n = len(hyps)
    want = py_token_rows(hyp_stream, streams, order, pad, 0, n)
    assert c_token_rows(hyp_stream, streams, order, pad, 0, n) == want
    assert c_token_rows(hyp_stream, streams, order, pad, 1, n) == want[1:]


@pytest.mark.parametrize("count", [2_000, 9_000])
@pytest.mark.parametrize("nrefs", [1, 2])
@pytest.mark.parametrize("kind", ["one slot", "one run", "one tuple hash"])
def test_ids_chosen_to_collide_in_the_hash(count: int, nrefs: int, kind: str) -> None:
    """Ids a caller chose so that the compiled matcher's unkeyed hash puts
    them in one slot (each probe walks past all before it), or the
    references in one run of slots and the hypothesis' absent ids at its
    start, or so that the pure twin's bigram tuples share one Python hash:
    the numbers are SacreBLEU's, on either path (the time it takes is the
    benchmark's: bench_token_bleu.py)."""
    rng = np.random.default_rng(count + nrefs)
    if kind == "one slot":
        present = colliding_ids(range(count))
        absent = colliding_ids(range(count, count + count // 4))
    elif kind == "one tuple hash":
        present, absent = np.split(tuple_colliding_ids(count + count // 4), [count])
        present, absent = present.tolist(), absent.tolist()
    else:
        present = colliding_ids(range(count), 64 - unigram_bits(count))
        absent = colliding_ids(range(1, count // 4))  # slot 0, the run's start
    refs = [present]
    if nrefs == 2:
        refs.append([present[i] for i in rng.permutation(count)[: count // 2]])
    hyp = [present[i] for i in rng.permutation(count)] + absent
    hyp[::7] = absent[: len(hyp[::7])]
    hyps = [hyp, hyp[: count // 3]]
    streams = [[ref, ref[: count // 2]] for ref in refs]
    want, _ = oracle(hyps, streams)
    assert_bits(bleustream.token_bleu(hyps, streams), want)
    assert_bits(
        bleustream.token_bleu(hyps, streams, pad_id=absent[0]),
        oracle([[t for t in h if t != absent[0]] for h in hyps], streams)[0],
    )
    if native is not None:
        hyp_stream = id_stream(hyps)
        ref_streams = [id_stream(stream) for stream in streams]
        want_rows = py_token_rows(hyp_stream, ref_streams, 4, None, 0, 2)
        assert c_token_rows(hyp_stream, ref_streams, 4, None, 0, 2) == want_rows


@pytest.mark.parametrize("order", [1, 4, 9, 40])
@pytest.mark.parametrize("nrefs", [1, 3])
def test_long_repetitive_sentences(order: int, nrefs: int) -> None:
    """Sentences of different lengths in one batch (the kernel's scratch is
    sized by the longest), over three ids, so that long n-grams repeat
    within a sentence and across its references."""
    rng = np.random.default_rng(order * 10 + nrefs)
    alphabet = np.array([0, BIG, -(2**63)], dtype=np.int64)

    def sentence() -> list[int]:
        size = int(rng.integers(0, 300))
        return alphabet[rng.integers(0, 3, size) * (rng.random(size) < 0.8)].tolist()

    hyps = [sentence() for _ in range(12)]
    refs = [[sentence() for _ in hyps] for _ in range(nrefs)]
    refs[0][0] = hyps[0]  # every order matches
    want, want_corpus = oracle(hyps, refs, max_order=order)
    for threads in (1, 2):
        got = bleustream.token_bleu(hyps, refs, max_ngram_order=order, threads=threads, corpus=True)
        assert_bits(got.scores, want)
        assert float.hex(got.corpus) == float.hex(want_corpus)


@pytest.mark.parametrize("nrefs", [1, 2])
def test_references_too_long_for_narrow_slots(nrefs: int) -> None:
    """A batch whose n-gram keys or counts do not fit the kernel's narrow
    n-gram slots (32-bit keys, 16-bit counts) is matched in wide ones: one
    reference of 70,000 ids, all the same, whose n-grams each count near
    70,000; short sentences beside it share its tables' kind."""
    rng = np.random.default_rng(nrefs)
    same = [7] * 70_000
    hyps = [same, *(rng.integers(0, 9, 30).tolist() for _ in range(5))]
    refs = [
        [same[: 70_000 - 3 * r], *(rng.integers(0, 9, 30).tolist() for _ in range(5))]
        for r in range(nrefs)
    ]
    want, want_corpus = oracle(hyps, refs)
    got = bleustream.token_bleu(hyps, refs, corpus=True)
    assert_bits(got.scores, want)
    assert float.hex(got.corpus) == float.hex(want_corpus)


def test_more_sentences_than_sixteen_bit_stamps() -> None:
    """65,536 sentences and more in one call, on one thread: the narrow
    n-gram slots are stamped with 16 bits of the sentence's number, and the
    tables are cleared as the stamps wrap.  Sentences 0 to 2 leave the
    bigrams of 1 .. 40 in order; those around the wrap have the same ids in
    reverse, and the ids in order as their hypothesis: a bigram left over,
    stamped as theirs, would match."""
    ids = list(range(1, 41))
    leave = ([5], ids)  # hypothesis, reference
    probe = (ids, ids[::-1])
    filler = ([1, 2, 3], [1, 2, 4])
    pairs = [leave] * 3 + [filler] * (65_530 - 3) + [probe] * 12
    hyps = [hyp for hyp, _ in pairs]
    refs = [[ref for _, ref in pairs]]
    scores = {id(pair): oracle([pair[0]], [[pair[1]]])[0][0] for pair in (leave, probe, filler)}
    got = bleustream.token_bleu(hyps, refs, threads=1)
    assert_bits(got, [scores[id(pair)] for pair in pairs])


def test_python_threads_at_once_on_shared_inputs() -> None:
    """Several Python threads score the same arrays at the same time (the
    kernel reads them with the GIL released), each many times, some with
    threads=2 as well: every result is SacreBLEU's, to the bit."""
    rng = np.random.default_rng(7)
    refs = rng.integers(0, 40, (48, 120))
    hyps = np.where(rng.random(refs.shape) < 0.3, rng.integers(0, 40, refs.shape), refs)
    lengths = rng.integers(0, 121, len(hyps))
    want, _ = oracle([h[:n] for h, n in zip(hyps.tolist(), lengths)], [refs.tolist()])
    start = threading.Barrier(4)

    def work(k: int) -> list[list[str]]:
        start.wait()
        return [
            [float.hex(x) for x in bleustream.token_bleu(hyps, [refs], lengths=lengths, threads=t)]
            for t in (1, 1 + k % 2, 1)
        ]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(4)))
    assert results == [[[float.hex(x) for x in want]] * 3] * 4


@pytest.mark.parametrize(
    "batch",
    [
        [[5, 2**63 - 1, -(2**63)], [], [0, 0]],
        ((1, 2), [3], ()),
        [[1, np.int64(2)], [3]],  # an item that is no int: the checked path
        [array("q", [1, 2]), [3, 4]],
        [],
    ],
)
def test_lists_packed_as_the_checked_path_reads_them(
    batch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bleustream.metrics import token_ids

    got = id_stream(batch, [0] * len(batch))
    monkeypatch.setattr(token_ids, "native", None)
    want = id_stream(batch, [0] * len(batch))
    assert (list(memoryview(got.data)), got.starts, got.lens) == (
        list(memoryview(want.data)),
        want.starts,
        want.lens,
    )
    assert got.lens == array("q", [0] * len(batch))
    assert id_stream(batch).lens == array("q", map(len, batch))


def real_ids(real_set: RealSet) -> tuple[list[list[int]], list[list[list[int]]], list[str]]:
    """The set's first system and references as ids of a word vocabulary."""
    vocab: dict[str, int] = {}

    def ids(line: str) -> list[int]:
        return [vocab.setdefault(word, len(vocab)) for word in line.split()]

    hyps = [ids(line) for line in read_segments(real_set.hyps[0])]
    refs = [[ids(line) for line in stream] for stream in read_refs(real_set)]
    return hyps, refs, list(vocab)


def test_real_sets(real_set: RealSet) -> None:
    hyps, refs, _ = real_ids(real_set)
    want, want_corpus = oracle(hyps, refs)
    got = bleustream.token_bleu(hyps, refs, corpus=True, threads=2)
    assert_bits(got.scores, want)
    assert float.hex(got.corpus) == float.hex(want_corpus)
    # corpus_bleu's own defaults: effective order off
    texts = [words(h) for h in hyps]
    streams = [[words(r) for r in stream] for stream in refs]
    plain = sacrebleu.corpus_bleu(texts, streams, tokenize="none").score
    got_plain = bleustream.token_bleu(hyps, refs, effective_order=False, corpus=True).corpus
    assert float.hex(got_plain) == float.hex(plain)
    # the same batch padded in a 2-D int32 array
    hyp_array, _ = padded(hyps, "int32", -1)
    got_array = bleustream.token_bleu(
        hyp_array, [padded(s, "int32", -1)[0] for s in refs], pad_id=-1
    )
    assert_bits(got_array, want)


# -- bad input: a clear TypeError or ValueError, the same on both paths --------

GOOD = np.array([[1, 2, 3]], dtype=np.int64)
BAD_CASES: list[tuple[str, Any, Any, dict[str, Any], type, str]] = [
    ("float array", np.array([[1.0, 2.0]]), [GOOD], {}, TypeError, "integers"),
    ("bool array", np.array([[True]]), [GOOD], {}, TypeError, "bool"),
    ("3-D array", np.zeros((1, 2, 2), np.int64), [GOOD], {}, ValueError, "3-D"),
    ("1-D array", np.array([1, 2, 3]), [GOOD], {}, ValueError, "1-D"),
    ("negative length", GOOD, [GOOD], {"lengths": [-1]}, ValueError, "negative length"),
    ("length past row", GOOD, [GOOD], {"lengths": [4]}, ValueError, "past its row"),
    ("lengths count", GOOD, [GOOD], {"lengths": [1, 2]}, ValueError, "2 lengths for 1"),
    ("float length", GOOD, [GOOD], {"lengths": [1.0]}, TypeError, "integers"),
    ("fewer refs", [[1], [2]], [[[1]]], {}, ValueError, "reference stream 0 has 1"),
    ("no refs", GOOD, [], {}, ValueError, "non-empty"),
    ("refs unwrapped", GOOD, GOOD, {}, TypeError, "list of reference streams"),
    ("float item", [[1, 2.0]], [[[1]]], {}, TypeError, "integers"),
    ("str item", [[1, "2"]], [[[1]]], {}, TypeError, "integers"),
    ("bool item", [[1, True]], [[[1]]], {}, TypeError, "bool"),
    ("str sentence", ["1 2"], [[[1]]], {}, TypeError, "str"),
    ("int sentence", [1, 2], [[[1], [2]]], {}, TypeError, "sequence of ints"),
    ("id past int64", [[2**63]], [[[1]]], {}, ValueError, "2**63"),
    ("id below int64", [[1], [-(2**63) - 1]], [[[1], [1]]], {}, ValueError, "2**63"),
    ("bool in a tuple", ((1, False),), [[[1]]], {}, TypeError, "bool"),
    ("uint64 past int64", np.array([[2**63]], np.uint64), [GOOD], {}, ValueError, "2**63"),
    (
        "uint64 past int64 in length",
        np.array([[1, 2**63]], np.uint64),
        [GOOD],
        {},
        ValueError,
        "sentence 0",
    ),
    ("pad float", GOOD, [GOOD], {"pad_id": 1.5}, TypeError, "pad_id"),
    ("pad bool", GOOD, [GOOD], {"pad_id": True}, TypeError, "pad_id"),
    ("pad too big", GOOD, [GOOD], {"pad_id": 2**64}, ValueError, "pad_id"),
    ("threads 0", GOOD, [GOOD], {"threads": 0}, ValueError, "threads"),
    ("threads bool", GOOD, [GOOD], {"threads": True}, ValueError, "threads"),
    ("threads float", GOOD, [GOOD], {"threads": 2.0}, ValueError, "threads"),
    ("threads NumPy float", GOOD, [GOOD], {"threads": np.float64(2)}, ValueError, "threads"),
    ("threads NumPy bool", GOOD, [GOOD], {"threads": np.True_}, ValueError, "threads"),
    ("order bool", GOOD, [GOOD], {"max_ngram_order": True}, ValueError, "max_ngram_order"),
    ("order float", GOOD, [GOOD], {"max_ngram_order": 4.0}, ValueError, "max_ngram_order"),
    ("order past", GOOD, [GOOD], {"max_ngram_order": np.int64(101)}, ValueError, "1 to 100"),
    ("order 0", GOOD, [GOOD], {"max_ngram_order": 0}, ValueError, "max_ngram_order"),
    ("smoothing", GOOD, [GOOD], {"smooth_method": "max"}, ValueError, "smoothing"),
    ("ref_lengths count", GOOD, [GOOD], {"ref_lengths": [None, None]}, ValueError, "ref_lengths"),
    ("ref past row", GOOD, [GOOD], {"ref_lengths": [[9]]}, ValueError, "past its row"),
]


@pytest.mark.parametrize(
    ("hyps", "refs", "options", "error", "message"),
    [pytest.param(*case[1:], id=case[0]) for case in BAD_CASES],
)
@pytest.mark.parametrize("kernel", ["bound", "pure"])
def test_bad_input(
    hyps: Any,
    refs: Any,
    options: dict[str, Any],
    error: type,
    message: str,
    kernel: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if kernel == "pure":
        monkeypatch.setattr(token_bleu_module, "token_rows", py_token_rows)
    with pytest.raises(error, match=message.replace("*", r"\*")):
        bleustream.token_bleu(hyps, refs, **options)


@pytest.mark.skipif(native is None, reason="the compiled kernels are not loaded")
def test_compiled_kernel_checks_its_arguments() -> None:
    """Called directly with what token_bleu never passes: errors, not crashes."""
    ids = array("q", [1, 2, 3])
    good = (ids, array("q", [0]), array("q", [3]))
    kernel = c_token_rows
    with pytest.raises(TypeError, match="integers"):
        kernel((array("d", [1.0]), array("q", [0]), array("q", [1])), [good], 4, None, 0, 1)
    with pytest.raises(ValueError, match="past its"):
        kernel((ids, array("q", [2]), array("q", [2])), [good], 4, None, 0, 1)
    with pytest.raises(ValueError, match="past its"):
        kernel((ids, array("q", [-1]), array("q", [1])), [good], 4, None, 0, 1)
    with pytest.raises(TypeError, match="8-byte"):
        kernel((ids, array("i", [0]), array("q", [1])), [good], 4, None, 0, 1)
    with pytest.raises(ValueError, match="sentences"):
        kernel(good, [good], 4, None, 0, 2)
    with pytest.raises(ValueError, match="max_order"):
        kernel(good, [good], 0, None, 0, 1)
    with pytest.raises(ValueError, match="no reference"):
        kernel(good, [], 4, None, 0, 1)
    with pytest.raises(TypeError, match="tuple"):
        kernel([ids, array("q", [0]), array("q", [3])], [good], 4, None, 0, 1)
    with pytest.raises(ValueError, match="2\\*\\*63"):
        kernel((array("Q", [2**63]), array("q", [0]), array("q", [1])), [good], 4, None, 0, 1)
    assert kernel(good, [good], 4, None, 0, 1) == [(3, 3, 3, 2, 1, 0, 3, 2, 1, 0)]
