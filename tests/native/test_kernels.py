"""The compiled kernels against their pure-Python twins, and the choice between them.

Each C function (``bleustream._native._kernels``) is compared, exactly (``==`` on the
Python objects, types checked), with the pure function it stands for: the
13a and zh tokenizers, chrF++'s words, BLEU's row of a tokenized or raw
line, and chrF's rows, on adversarial text (``tests/helpers/adversarial.py`` and
hand-made edge cases), on the real WMT/TED sets where present, and on
Hypothesis text with lone surrogates.  These comparisons load the
extension directly, so they run in the pure-Python run of the suite too;
they are skipped, saying so, only where it was not built.

Then the choice itself (``bleustream.kernels``): an extension that was
built but is not used fails a test, and ``BLEUSTREAM_PUREPYTHON=1`` gives
the pure path, in this process, in a fresh one and in ``-j`` workers.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustream
from bleustream import kernels
from bleustream.inputs import blocks
from bleustream.metrics import bleu, bleu_batches, chrf, ngrams
from bleustream.tokenizers import registry
from tests.conftest import RealSet, read_refs, read_segments
from tests.helpers.adversarial import Adversary
from tests.helpers.native import (
    NATIVE as N,
)
from tests.helpers.native import (
    PACKAGE_DIR,
    child_env,
    extension_files,
    needs_native,
)

PUNCT13A = '{|}~[\\]^_`!"#$%&()*+:;<=>?@/' + ".,-'"
EDGES = [
    "",
    " ",
    "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u2029\u3000",
    PUNCT13A,
    " ".join(PUNCT13A),
    PUNCT13A * 3 + "0" + PUNCT13A,
    *("...", "..,.,", "1..2", "1.,2", ".1", "1.", "-1", "1-", "1--2", "a-1", "1-a", "1.-2"),
    *(",.,.,1,.,.,", "1,000,000.50", "U.S.A.", "e-mail", "3-4 5-6-7", "x.y,z", "0.0.0.0"),
    *("&quot;&amp;&lt;&gt;", "&amp;quot;", "&&quot;;", "&amp;lt;", "a <skipped> b"),
    *("<skip<skipped>ped>", "line-\nbreak", "line\n-\nx", "a-\n\n-b", "-\n", "\n", "a\nb\nc"),
    *("e\u0301 e\u0301 e\u0301", "\u0301\u0301", "a\u200bb"),
    "\U0001f600 \U0001f600\U0001f600 \U00010000 \U0010ffff",
    *("\ud800", "\udfff", "a\ud800b \ud800 \udc00\ud800", "\ud83d\ude00"),
    *("中文字符。测试，很好！", "中文 abc 1.5 中-2", "\u2001\u2a6d\u2a6e\u3000x\uff0e1"),
    "Ünïcödé, straße. Ελληνικά; Русский-1 ١٢٣.٤",
    *("the the the the the the", "a a a b b a a b", "x" * 5000, "ab " * 3000),
    *("1.2.3.4.5.6.7.8.9" * 50, "(hi) (hi)) ((hi .hi hi. ! !! a", "'quoted' \"dq\" `bq`"),
]


def _adversarial_lines() -> list[str]:
    adversary = Adversary(2024)
    lines = list(adversary.lines(300, line_breaks=True))
    for n_refs in (1, 2, 3):
        hyps, streams = adversary.corpus(60, n_refs)
        lines += hyps + [line for stream in streams for line in stream]
    return lines


ADVERSARIAL = EDGES + _adversarial_lines()


def _rows(row: Any) -> None:
    assert type(row) is tuple
    assert all(type(v) is int for v in row)


@contextmanager
def _compiled(module: ModuleType) -> Iterator[None]:
    """The module's C twins made inside read the extension loaded here, on
    the pure path too (where ``bleustream.kernels`` did not load it)."""
    saved = module.native  # type: ignore[attr-defined]
    module.native = N  # type: ignore[attr-defined]
    try:
        yield
    finally:
        module.native = saved  # type: ignore[attr-defined]


def _both(
    pure: Callable[[Any], Any], compiled: Callable[[Any], Any], the_settings: Any
) -> tuple[Any, Any]:
    """The pure twin's ``make(the_settings)`` and the compiled twin's."""
    with _compiled(sys.modules[compiled.__module__]):
        return pure(the_settings), compiled(the_settings)


# -- tokenizers -------------------------------------------------------------


@needs_native
def test_tokenizers_on_adversarial_text() -> None:
    assert N is not None
    pairs = (
        (registry.py_tokenize_13a, N.tokenize_13a),
        (registry.py_tokenize_zh, N.tokenize_zh),
        (chrf.split_words, N.split_words),
    )
    for line in ADVERSARIAL:
        for variant in (line, line.rstrip(), line + " .", "1" + line + "1", line + "-", "," + line):
            for pure, compiled in pairs:
                got = compiled(variant)
                assert got == pure(variant), (pure.__name__, variant)
                assert type(got) is list and all(type(t) is str for t in got)


@needs_native
def test_the_registry_tokenizes_as_the_pure_functions() -> None:
    for line in EDGES:
        assert registry.TOKENIZERS["13a"](line) == registry.py_tokenize_13a(line)
        assert registry.TOKENIZERS["zh"](line) == registry.py_tokenize_zh(line)


# -- BLEU rows --------------------------------------------------------------


def _bleu_rows(hyps: Sequence[str], refsets: Sequence[Sequence[str]], orders: Sequence[int]) -> int:
    """Every C row of ``hyps`` against each reference set, as the pure row."""
    assert N is not None
    compared = 0
    for refs in refsets:
        toks = [registry.py_tokenize_13a(r) for r in refs]
        zh_toks = [registry.py_tokenize_zh(r) for r in refs]
        for max_order in orders:
            prepared = ngrams.reference_ngrams(toks, max_order)
            prepared_zh = ngrams.reference_ngrams(zh_toks, max_order)
            for hyp in hyps:
                tokens = registry.py_tokenize_13a(hyp)
                want = ngrams.hyp_row(tokens, prepared, max_order)
                got = N.hyp_row(tokens, prepared, max_order)
                _rows(got)
                assert got == want, (hyp, refs, max_order)
                assert N.hyp_row_13a(hyp, prepared, max_order) == want, (hyp, refs, max_order)
                want_zh = ngrams.hyp_row(registry.py_tokenize_zh(hyp), prepared_zh, max_order)
                assert N.hyp_row_zh(hyp, prepared_zh, max_order) == want_zh, (hyp, refs)
                compared += 1
    return compared


@needs_native
@pytest.mark.slow
def test_bleu_rows_one_reference() -> None:
    lines = ADVERSARIAL[::3]
    assert _bleu_rows(lines, [[r] for r in lines[::4]], (1, 2, 4, 6)) > 10_000


@needs_native
def test_bleu_rows_several_references() -> None:
    rng = random.Random(1)
    refsets = [[rng.choice(ADVERSARIAL) for _ in range(rng.randint(2, 6))] for _ in range(50)]
    refsets += [["the cat", "the cat"], ["a a a b", "a a a b", "a b b"], ["x y z"] * 40]
    refsets.append([" ".join(rng.choice("abc") for _ in range(30)) for _ in range(50)])
    hyps = [*ADVERSARIAL[:60], "a a a b b", "x y z x y z"]
    assert _bleu_rows(hyps, refsets, (1, 2, 4, 6)) > 10_000


@needs_native
def test_bleu_rows_at_odd_orders_and_by_keyword() -> None:
    assert N is not None
    one = ngrams.one_reference(registry.py_tokenize_13a("a b c d e f"))
    several = ngrams.reference_ngrams([["a", "b", "c", "d", "e", "f"], ["a", "b", "a", "b"]], 3)
    for hyp in ("a b c d e f", "a b", "", "a b a b a b c d e f g"):
        tokens = registry.py_tokenize_13a(hyp)
        for max_order in (0, -1, 1, 3, 5, 10, 100):
            assert N.hyp_row(tokens, one, max_order) == ngrams.hyp_row(tokens, one, max_order)
            # an order other than the one the references were prepared for
            assert N.hyp_row(tokens, several, max_order) == ngrams.hyp_row(
                tokens, several, max_order
            )
    assert N.hyp_row(hyp=["a"], refs=one, max_order=4) == ngrams.hyp_row(["a"], one, 4)
    assert N.hyp_row_13a(line="a", refs=one, max_order=4) == ngrams.hyp_row(["a"], one, 4)


@needs_native
def test_bleu_rows_of_long_lines() -> None:
    assert N is not None
    rng = random.Random(7)
    words = [f"w{i}" for i in range(300)] + list(",.-") + ["1", "2"]
    hyp, ref, ref2 = (
        " ".join(rng.choice(words) for _ in range(n)) for n in (60_000, 60_000, 40_000)
    )
    tokens = registry.py_tokenize_13a(hyp)
    assert N.tokenize_13a(hyp) == tokens
    for prepared in (
        ngrams.one_reference(registry.py_tokenize_13a(ref)),
        ngrams.reference_ngrams([registry.py_tokenize_13a(ref), registry.py_tokenize_13a(ref2)], 4),
    ):
        want = ngrams.hyp_row(tokens, prepared, 4)
        assert N.hyp_row(tokens, prepared, 4) == want
        assert N.hyp_row_13a(hyp, prepared, 4) == want


@needs_native
def test_bad_arguments_raise() -> None:
    assert N is not None
    one = ngrams.one_reference(["a"])
    bad_calls: list[Callable[[], Any]] = [
        lambda: N.hyp_row(["a", 1], one, 4),
        lambda: N.hyp_row(["a"], "not refs", 4),
        lambda: N.hyp_row_13a(b"bytes", one, 4),
        lambda: N.hyp_row(["a"], ngrams.RefNgrams((1,), ([1],), None), 4),  # type: ignore[list-item]
        lambda: N.tokenize_13a(None),
        lambda: N.hyp_row(["a"], one),
        lambda: N.chrf_ref_rows("a", ("b", 3), 6, 2, False),
    ]
    for call in bad_calls:
        with pytest.raises(TypeError):
            call()


# -- the closures the metrics count with --------------------------------------

BLEU_SETTINGS = [
    bleu.Settings(),
    bleu.Settings(lowercase=True),
    bleu.Settings(tokenize="zh"),
    bleu.Settings(tokenize="intl", max_order=2),
    bleu.Settings(tokenize="none", max_order=6),
    bleu.Settings(tokenize="char", lowercase=True),
]
CHRF_SETTINGS = [
    chrf.Settings(),
    chrf.Settings(word_order=2),
    chrf.Settings(char_order=3, word_order=3, lowercase=True),
    chrf.Settings(whitespace=True, word_order=1),
    chrf.Settings(char_order=0, word_order=2),
    chrf.Settings(char_order=10, beta=1, eps_smoothing=True),
    chrf.Settings(char_order=1, word_order=0, beta=3),
]


def _bleu_counts(the_settings: bleu.Settings) -> tuple[Any, Any, Any, Any]:
    """(pure prepare, pure count, compiled prepare, compiled count)."""
    (pure_prepare, compiled_prepare) = _both(
        bleu.py_prepare_refs, bleu.c_prepare_refs, the_settings
    )
    (pure_count, compiled_count) = _both(bleu.py_count, bleu.c_count, the_settings)
    return pure_prepare, pure_count, compiled_prepare, compiled_count


def _chrf_counts(the_settings: chrf.Settings) -> tuple[Any, Any, Any, Any]:
    (pure_prepare, compiled_prepare) = _both(
        chrf.py_prepare_refs, chrf.c_prepare_refs, the_settings
    )
    (pure_count, compiled_count) = _both(chrf.py_count, chrf.c_count, the_settings)
    return pure_prepare, pure_count, compiled_prepare, compiled_count


def _compare_counts(
    counts: tuple[Any, Any, Any, Any], hyps: Sequence[str], refsets: Sequence[Sequence[str]]
) -> int:
    pure_prepare, pure_count, compiled_prepare, compiled_count = counts
    compared = 0
    for refs in refsets:
        pure_refs, compiled_refs = pure_prepare(refs), compiled_prepare(refs)
        for hyp in hyps:
            got = compiled_count(hyp, compiled_refs)
            _rows(got)
            assert got == pure_count(hyp, pure_refs), (hyp, refs)
            compared += 1
    return compared


@needs_native
@pytest.mark.parametrize("the_settings", BLEU_SETTINGS, ids=repr)
def test_bleu_counts_as_the_pure_code(the_settings: bleu.Settings) -> None:
    rng = random.Random(3)
    refsets = [[r] for r in ADVERSARIAL[::40]]
    refsets += [[rng.choice(ADVERSARIAL) for _ in range(rng.randint(2, 4))] for _ in range(10)]
    assert _compare_counts(_bleu_counts(the_settings), ADVERSARIAL[::7], refsets) > 1000


@needs_native
@pytest.mark.parametrize("the_settings", CHRF_SETTINGS, ids=repr)
def test_chrf_counts_as_the_pure_code(the_settings: chrf.Settings) -> None:
    rng = random.Random(2)
    refsets = [[r] for r in ADVERSARIAL[::40]]
    refsets += [[rng.choice(ADVERSARIAL) for _ in range(rng.randint(2, 5))] for _ in range(10)]
    refsets += [["the cat", "the cat"], ["x y z"] * 30]
    assert _compare_counts(_chrf_counts(the_settings), ADVERSARIAL[::9], refsets) > 1000


@needs_native
def test_chrf_rows_are_the_pure_rows_of_each_reference() -> None:
    assert N is not None
    the_settings = chrf.Settings(word_order=2)
    prepare, count = chrf.py_prepare_refs(the_settings), chrf.py_count(the_settings)
    for hyp, ref in itertools.product(EDGES[:30], EDGES[:30]):
        rows = N.chrf_ref_rows(hyp, [ref], 6, 2, False)
        assert type(rows) is tuple and len(rows) == 1
        assert rows[0] == count(hyp, prepare([ref]))


def _sums(the_settings: bleu.Settings) -> tuple[Any, Any]:
    """(the pure ``sum_batch``, the compiled one), each checked to sum the
    rows that it and ``count_batch`` give, as rows of whole numbers."""
    pure_sum = bleu.py_sum_batch(the_settings)
    pure_rows = bleu.py_count_batch(the_settings)
    with _compiled(bleu_batches), _compiled(bleu):
        compiled_sum = bleu.c_sum_batch(the_settings)
        compiled_rows = bleu.c_count_batch(the_settings)

    def pure(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> Any:
        rows = pure_rows(hyps, refs)
        assert compiled_rows(hyps, refs) == rows
        kind, total = pure_sum(hyps, refs)
        assert kind == "sum" and total == tuple(map(sum, zip(*rows)))
        return kind, total

    return pure, compiled_sum


@needs_native
@pytest.mark.parametrize("the_settings", BLEU_SETTINGS, ids=repr)
def test_a_batch_sums_as_the_pure_rows(the_settings: bleu.Settings) -> None:
    pure, compiled = _sums(the_settings)
    rng = random.Random(5)
    for size in (1, 2, 7, 60):
        hyps = rng.sample(ADVERSARIAL, size)
        refs = [rng.sample(ADVERSARIAL, rng.randint(1, 3)) for _ in hyps]
        # Trailing whitespace is stripped as prepare_refs and count strip it.
        hyps = [h + rng.choice(["", " ", "\t \u3000"]) for h in hyps]
        got = compiled(hyps, refs)
        _rows(got[1])
        assert got == pure(hyps, refs), size
    if the_settings.tokenize in ("13a", "zh"):  # summed in C: no batch is the zero row
        assert compiled([], []) == ("sum", (0,) * bleu.row_size(the_settings))


@needs_native
def test_a_batch_refuses_what_it_cannot_sum() -> None:
    assert N is not None
    for call in (
        lambda: N.bleu_sum_13a(["a"], [[]], 4),
        lambda: N.bleu_sum_13a(["a", "b"], [["a"]], 4),
    ):
        with pytest.raises(ValueError):
            call()
    for call in (
        lambda: N.bleu_sum_13a(["a"], [[b"a"]], 4),
        lambda: N.bleu_sum_13a([1], [["a"]], 4),
        lambda: N.bleu_sum_zh("ab", 3, 4),
        lambda: N.bleu_sum_13a(["a"], [["a"]]),
    ):
        with pytest.raises(TypeError):
            call()


# -- the real data ----------------------------------------------------------

REAL_LINES = 600
REAL_SYSTEMS = 2


@needs_native
def test_real_data(real_set: RealSet) -> None:
    assert N is not None
    streams = read_refs(real_set)
    systems = [read_segments(hyp) for hyp in real_set.hyps[:REAL_SYSTEMS]]
    lines = min(REAL_LINES, *map(len, streams), *map(len, systems))
    segments = [[stream[i] for stream in streams] for i in range(lines)]
    compared = 0
    for the_settings in BLEU_SETTINGS[:4]:
        pure_prepare, pure_count, compiled_prepare, compiled_count = _bleu_counts(the_settings)
        for i, refs in enumerate(segments):
            # Every fifth segment also with a repeated reference.
            for these in (refs, refs + refs[:1]) if i % 5 == 0 else (refs,):
                pure_refs, compiled_refs = pure_prepare(these), compiled_prepare(these)
                for system in systems:
                    got = compiled_count(system[i], compiled_refs)
                    assert got == pure_count(system[i], pure_refs), (real_set.name, i)
                    compared += 1
    for the_settings in CHRF_SETTINGS[:2]:
        pure_prepare, pure_count, compiled_prepare, compiled_count = _chrf_counts(the_settings)
        for i, refs in enumerate(segments[::2]):
            # Several references: the other systems' outputs too.
            these = refs + [s[2 * i] for s in systems[1:]] if i % 5 == 0 else refs
            pure_refs, compiled_refs = pure_prepare(these), compiled_prepare(these)
            for system in systems:
                got = compiled_count(system[2 * i], compiled_refs)
                assert got == pure_count(system[2 * i], pure_refs), (real_set.name, 2 * i)
                compared += 1
    for the_settings in (BLEU_SETTINGS[0], BLEU_SETTINGS[1], BLEU_SETTINGS[2]):
        pure_sum, compiled_sum = _sums(the_settings)
        for system in systems:
            assert compiled_sum(system[:lines], segments) == pure_sum(system[:lines], segments)
            compared += lines
    for line in (text for system in systems for text in system[:lines]):
        assert N.tokenize_13a(line) == registry.py_tokenize_13a(line)
        assert N.tokenize_zh(line) == registry.py_tokenize_zh(line)
        assert N.split_words(line) == chrf.split_words(line)
    assert compared >= lines


# -- Hypothesis -------------------------------------------------------------

ANY_CHAR = st.characters(exclude_categories=())  # lone surrogates included
INTERESTING = st.sampled_from(
    list(
        PUNCT13A + "0123456789  \n\t.,-&;<>quotampltgskipped中文\u3000\ud800\udfff\U0001f600e\u0301"
    )
)
PIECES = st.sampled_from(
    ["the ", "cat ", "&amp;", "&quot;", "<skipped>", "-\n", "1.5", "a.b", "..."]
)
TEXT = st.lists(st.one_of(ANY_CHAR, INTERESTING, INTERESTING, PIECES), max_size=60).map("".join)
EXAMPLES = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


@needs_native
@EXAMPLES
@given(TEXT)
def test_tokenizers_on_any_text(line: str) -> None:
    assert N is not None
    assert N.tokenize_13a(line) == registry.py_tokenize_13a(line)
    assert N.tokenize_zh(line) == registry.py_tokenize_zh(line)
    assert N.split_words(line) == chrf.split_words(line)


@needs_native
@EXAMPLES
@given(TEXT, st.lists(TEXT, min_size=1, max_size=4), st.integers(1, 6))
def test_bleu_rows_on_any_text(hyp: str, refs: list[str], max_order: int) -> None:
    assert N is not None
    prepared = ngrams.reference_ngrams([registry.py_tokenize_13a(r) for r in refs], max_order)
    tokens = registry.py_tokenize_13a(hyp)
    want = ngrams.hyp_row(tokens, prepared, max_order)
    assert N.hyp_row(tokens, prepared, max_order) == want
    assert N.hyp_row_13a(hyp, prepared, max_order) == want


@needs_native
@EXAMPLES
@given(
    st.lists(st.tuples(TEXT, st.lists(TEXT, min_size=1, max_size=3)), min_size=1, max_size=5),
    st.integers(1, 6),
    st.booleans(),
)
@pytest.mark.slow
def test_batch_sums_on_any_text(
    segments: list[tuple[str, list[str]]], max_order: int, zh: bool
) -> None:
    the_settings = bleu.Settings(max_order=max_order, tokenize="zh" if zh else "13a")
    pure, compiled = _sums(the_settings)
    hyps, refs = [h for h, _ in segments], [r for _, r in segments]
    assert compiled(hyps, refs) == pure(hyps, refs)


@needs_native
@EXAMPLES
@given(
    st.lists(st.sampled_from("ab"), max_size=30),
    st.lists(st.lists(st.sampled_from("abc"), max_size=30), min_size=1, max_size=4),
    st.integers(1, 8),
)
def test_bleu_rows_with_many_repeats(hyp: list[str], refs: list[list[str]], max_order: int) -> None:
    assert N is not None
    prepared = ngrams.reference_ngrams(refs, max_order)
    assert N.hyp_row(hyp, prepared, max_order) == ngrams.hyp_row(hyp, prepared, max_order)


@needs_native
@EXAMPLES
@given(
    TEXT,
    st.lists(TEXT, min_size=1, max_size=3),
    st.integers(0, 7),
    st.integers(0, 3),
    st.booleans(),
    st.booleans(),
)
def test_chrf_rows_on_any_text(
    hyp: str, refs: list[str], chars: int, words: int, whitespace: bool, lowercase: bool
) -> None:
    the_settings = chrf.Settings(
        char_order=chars or (0 if words else 1),
        word_order=words,
        whitespace=whitespace,
        lowercase=lowercase,
    )
    assert _compare_counts(_chrf_counts(the_settings), [hyp], [refs]) == 1


@needs_native
@EXAMPLES
@given(
    st.text(st.sampled_from("ab "), max_size=40),
    st.lists(st.text(st.sampled_from("abc "), max_size=40), min_size=1, max_size=3),
    st.integers(1, 8),
    st.integers(0, 4),
)
def test_chrf_rows_with_many_repeats(hyp: str, refs: list[str], chars: int, words: int) -> None:
    the_settings = chrf.Settings(char_order=chars, word_order=words)
    assert _compare_counts(_chrf_counts(the_settings), [hyp], [refs]) == 1


@needs_native
@EXAMPLES
@given(
    st.lists(st.tuples(TEXT, st.lists(TEXT, min_size=1, max_size=3)), min_size=1, max_size=5),
    st.integers(1, 7),
    st.integers(0, 3),
    st.booleans(),
)
@pytest.mark.slow
def test_chrf_batch_sums_on_any_text(
    segments: list[tuple[str, list[str]]], chars: int, words: int, lowercase: bool
) -> None:
    """chrF's C ``sum_batch`` (``chrf_sum``) against the pure one, and the
    sum of the rows of its ``count_batch`` (``chrf_rows``)."""
    from bleustream.metrics import chrf_batches

    the_settings = chrf.Settings(char_order=chars, word_order=words, lowercase=lowercase)
    with _compiled(chrf_batches), _compiled(chrf):
        compiled_sum = chrf.c_sum_batch(the_settings)
        compiled_rows = chrf.c_count_batch(the_settings)
    hyps, refs = [h for h, _ in segments], [r for _, r in segments]
    kind, total = compiled_sum(hyps, refs)
    _rows(total)
    assert (kind, total) == chrf.py_sum_batch(the_settings)(hyps, refs)
    assert total == tuple(map(sum, zip(*compiled_rows(hyps, refs))))


@needs_native
def test_chrf_sum_refuses_what_chrf_rows_refuses() -> None:
    assert N is not None
    assert N.chrf_sum([], [], 6, 2, False, 2, False) == (0,) * 24
    for exc, args in (
        (TypeError, ([b"x"], [["x"]], 6, 0, False, 2, False)),
        (ValueError, (["x"], [[]], 6, 0, False, 2, False)),
        (ValueError, (["x"], [["x"], ["y"]], 6, 0, False, 2, False)),
        (ValueError, (["x"], [["x"]], 0, 0, False, 2, False)),
        (TypeError, (["x"], [["x"]], 6, 0, False, 2)),
    ):
        for kernel in (N.chrf_rows, N.chrf_sum):
            with pytest.raises(exc):
                kernel(*args)


@given(
    st.binary(max_size=200).map(lambda b: b.replace(b"x", b"\n")),
    st.integers(0, 220),
    st.integers(-2, 60),
)
def test_newlines_are_found_as_the_pure_code(buffer: bytes, pos: int, count: int) -> None:
    assert N is not None
    pos = min(pos, len(buffer))
    ours = N.past_newlines(buffer, pos, count)
    assert ours == blocks.py_past_newlines(buffer, pos, count)
    assert ours == N.past_newlines(bytearray(buffer), pos, count)


def test_newlines_on_a_large_buffer_and_bad_arguments() -> None:
    assert N is not None
    rng = random.Random(5)
    buffer = b"".join(b"x" * rng.randrange(0, 300) + b"\n" for _ in range(5000)) + b"tail"
    for pos, count in ((0, 4999), (0, 5000), (0, 5001), (17, 2500), (len(buffer), 3)):
        assert N.past_newlines(buffer, pos, count) == blocks.py_past_newlines(buffer, pos, count)
    for args in ((buffer, -1, 1), (buffer, len(buffer) + 1, 1)):
        with pytest.raises(ValueError):
            N.past_newlines(*args)
    for bad in (("text", 0, 1), (buffer, "0", 1), (buffer, 0)):
        with pytest.raises(TypeError):
            N.past_newlines(*bad)


# -- the choice of kernels ----------------------------------------------------


def test_a_built_extension_is_used() -> None:
    """Fails, never skips, when the extension was built into the package but
    this process runs the pure path without being asked to."""
    built = extension_files()
    if kernels.pure_python_forced():
        assert bleustream.KERNELS == "python"
        assert kernels.native is None
    elif built:
        assert bleustream.KERNELS == "compiled", (
            f"{built[0].name} is built but bleustream runs on the pure-Python path"
        )
        assert kernels.native is not None
        assert Path(kernels.native.__file__).resolve() in {p.resolve() for p in built}
    else:
        assert bleustream.KERNELS == "python"


def test_each_module_binds_its_twins_once() -> None:
    """Every public name is the C twin when the kernels are compiled, else the
    pure one (the metrics' twins: ``test_kernel_twins``)."""
    from bleustream.metrics import ter_search

    c = kernels.native
    pairs: list[tuple[Any, Any, Any]] = [
        (registry.tokenize_13a, registry.py_tokenize_13a, c and c.tokenize_13a),
        (registry.tokenize_zh, registry.py_tokenize_zh, c and c.tokenize_zh),
        (registry.TOKENIZERS["13a"], registry.py_tokenize_13a, c and c.tokenize_13a),
        (ter_search.count_edits, ter_search.py_count_edits, c and c.count_edits),
        (blocks.past_newlines, blocks.py_past_newlines, c and c.past_newlines),
    ]
    for bound, pure, compiled in pairs:
        assert bound is (pure if c is None else compiled)


def test_an_unbuilt_tree_runs_the_pure_path(tmp_path: Path) -> None:
    """The C sources' folder alone imports as an empty namespace package:
    a copy of the package without the built extension must say "python"."""
    import shutil

    copy = tmp_path / "bleustream"
    shutil.copytree(
        PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__")
    )
    assert (copy / "_native" / "kernels.h").is_file()
    assert not [p for p in (copy / "_native").glob("_kernels*") if p.suffix != ".pyi"]
    code = (
        "import bleustream, bleustream.kernels as k, bleustream._native as folder;"
        "print(bleustream.__file__, bleustream.KERNELS, k.native, folder.__file__)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=child_env(PYTHONPATH=str(tmp_path)),
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    where, chosen, native, folder = proc.stdout.split()
    assert Path(where).parent == copy
    assert (chosen, native, folder) == ("python", "None", "None")


SUBINTERPRETERS = """
try:
    import _interpreters as interpreters
except ImportError:
    import _xxsubinterpreters as interpreters
code = '''
from bleustream._native import _kernels as k
from bleustream.metrics import ter_search
assert k.tokenize_13a("a, b.") == ["a", ",", "b", "."]
assert k.count_edits(["a", "b"], ter_search.prepare_reference(["b", "a"])) == 1
'''
for _ in range(2):
    i = interpreters.create()
    interpreters.run_string(i, code)
    interpreters.destroy(i)
from bleustream._native import _kernels as k
from bleustream.metrics import ter_search
assert k.count_edits(["a", "b"], ter_search.prepare_reference(["b", "a"])) == 1
print("ok")
"""


@needs_native
def test_the_kernels_run_in_several_interpreters() -> None:
    """Each interpreter builds its own module (multi-phase init, its own
    state), and the main one's still works after theirs are gone."""
    proc = subprocess.run(
        [sys.executable, "-c", SUBINTERPRETERS],
        env=child_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["ok"], proc.stderr[-2000:]


@pytest.mark.parametrize("value", ["1", "yes", "true"])
def test_the_environment_forces_the_pure_path(value: str) -> None:
    code = "import bleustream, bleustream.kernels as k; print(bleustream.KERNELS, k.native)"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=child_env(BLEUSTREAM_PUREPYTHON=value),
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.split() == ["python", "None"]


@pytest.mark.parametrize("value", ["", "0"])
def test_an_empty_or_zero_value_does_not_force_it(value: str) -> None:
    code = "import bleustream; print(bleustream.KERNELS)"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=child_env(BLEUSTREAM_PUREPYTHON=value),
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.strip() == ("compiled" if N is not None else "python")


def test_the_version_says_which_kernels() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bleustream", "--version"],
        env=child_env(BLEUSTREAM_PUREPYTHON="1"),
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.strip() == f"bleustream {bleustream.__version__} (kernels: python)"


WORKER_PROBE = """
import os

def kernels_of(task):
    import bleustream
    return os.getpid(), bleustream.KERNELS
"""

WORKER_RUN = """
import sys
import probe
from bleustream.api import spec
from bleustream.parallel import pool

method = sys.argv[1]
pool.start_method = lambda: method
counter = pool.ParallelCounter((spec("bleu"),), 1, 2)
try:
    reports = dict(result for _, result in counter.mapped(probe.kernels_of, iter(range(40))))
finally:
    counter.close()
import bleustream
print(bleustream.KERNELS, len(reports), *sorted(set(reports.values())))
"""


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_workers_make_the_same_choice(tmp_path: Path, method: str) -> None:
    """The worker processes of -j (bleustream's pool, started each way it
    starts them) run the pure path under BLEUSTREAM_PUREPYTHON=1: each
    worker reports the kernels it counts with."""
    import multiprocessing

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method on this platform")
    (tmp_path / "probe.py").write_text(WORKER_PROBE, encoding="utf-8")
    pythonpath = os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])
    for value, expected in (("1", "python"), ("", "compiled" if N is not None else "python")):
        proc = subprocess.run(
            [sys.executable, "-c", WORKER_RUN, method],
            cwd=tmp_path,
            env=child_env(PYTHONPATH=pythonpath, BLEUSTREAM_PUREPYTHON=value),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        parent, workers, *seen = proc.stdout.split()
        assert parent == expected
        assert int(workers) >= 1
        assert seen == [expected], (value, proc.stdout)


def test_a_jobs_run_scores_the_same_on_both_paths(tmp_path: Path) -> None:
    hyps = [f"the cat {i} sat on the mat ." for i in range(400)]
    refs = [f"the cat {i % 7} sat on a mat ." for i in range(400)]
    (tmp_path / "hyp").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n".join(refs) + "\n", encoding="utf-8")
    args = [sys.executable, "-m", "bleustream", "-j", "2", "-m", "bleu", "chrf", "ter"]
    outputs = [
        subprocess.run(
            [*args, "-i", "hyp", "--", "ref"],
            cwd=tmp_path,
            env=child_env(BLEUSTREAM_PUREPYTHON=value),
            capture_output=True,
            check=True,
        ).stdout
        for value in ("1", "")
    ]
    assert outputs[0] == outputs[1]
    assert b"BLEU" in outputs[0]


# -- sentence_scores: one call per batch ---------------------------------------


@pytest.mark.parametrize(
    "keywords",
    [{}, {"lowercase": True}, {"tokenize": "zh"}, {"tokenize": "intl"}, {"smooth_method": "floor"}],
    ids=repr,
)
def test_sentence_scores_equal_sentence_bleu_one_by_one(keywords: dict[str, Any]) -> None:
    import sacrebleu

    hyps, streams = Adversary(11).corpus(150, 2)
    got = bleustream.sentence_scores("bleu", hyps, streams, **keywords)
    assert len(got) == len(hyps)
    for i, score in enumerate(got):
        refs = [stream[i] for stream in streams]
        ours = bleustream.sentence_bleu(hyps[i], refs, **keywords)
        theirs = sacrebleu.sentence_bleu(hyps[i], refs, **keywords)
        assert score.score == ours.score == theirs.score, (i, hyps[i], refs)
        assert score.stats == ours.stats and score.signature == ours.signature


def test_sentence_scores_of_chrf_and_ter() -> None:
    import sacrebleu

    hyps, streams = Adversary(12).corpus(40, 1)
    chrf_scores = bleustream.sentence_scores("chrf", hyps, streams, word_order=2)
    ter_scores = bleustream.sentence_scores("ter", hyps, streams)
    for i, hyp in enumerate(hyps):
        refs = [stream[i] for stream in streams]
        assert chrf_scores[i].score == sacrebleu.sentence_chrf(hyp, refs, word_order=2).score
        assert ter_scores[i].score == sacrebleu.sentence_ter(hyp, refs).score


def test_sentence_scores_refuses_what_sentence_bleu_refuses() -> None:
    with pytest.raises(TypeError):
        bleustream.sentence_scores("bleu", "a string", [["a"]])
    with pytest.raises(TypeError):
        bleustream.sentence_scores("bleu", ["a"], ["a"])
    with pytest.raises(ValueError):
        bleustream.sentence_scores("bleu", ["a", "b"], [["a"]])
    with pytest.raises(ValueError):
        bleustream.sentence_scores("nope", ["a"], [["a"]])
    with pytest.raises(TypeError):
        bleustream.sentence_scores("bleu", ["a"], [["a"]], no_such_setting=1)
    assert bleustream.sentence_scores("bleu", [], [[]]) == []
