"""The compiled counting of ``--analyze`` against its pure-Python twins.

``add_words`` (word accuracy by frequency) and ``add_ngram_matches``
(n-gram differences) add one segment's counts to running counts: words by
number into a flat list, n-grams into dicts.  The C functions of
``bleustream._native._kernels`` must leave every list and dict exactly as
the pure ones (``analysis.words.py_add_words``,
``analysis.ngrams.py_add_ngram_matches``) do: the same keys, counts and key
order, the same kept-segment row, the same new word numbers; on
Hypothesis segments (empty ones, repeated words, any Unicode including lone
surrogates), over a stream of segments, and on the real TED set.  Loaded
directly, they run in the pure-Python run of the suite too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustream.analysis import ngrams, words
from tests.conftest import REAL_DATA
from tests.helpers.native import NATIVE as N
from tests.helpers.native import needs_native

POOL = ["a", "b", "the", "", "é", "e\u0301", "\ud800", "\udfff", "\U0001f600", "中文", "x" * 40]
WORD = st.one_of(st.sampled_from(POOL), st.text(max_size=4))
SEGMENT = st.lists(WORD, max_size=25)
EXAMPLES = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
TED = REAL_DATA / "compare-mt-ted-slk-en-tok"


def _described(value: Any) -> Any:
    """Dicts with their key order, so an order that differs fails too."""
    if isinstance(value, dict):
        return [(k, type(v), v) for k, v in value.items()]
    if isinstance(value, list):
        return [_described(v) for v in value]
    return value


def _words_state(systems: int) -> dict[str, Any]:
    # A word already counted, so that adding to counts is tested too.
    return {"ids": {"b": 0}, "words": ["b"], "counts": [2] + [1, 3] * systems}


def _add_words(
    func: Any,
    state: dict[str, Any],
    ref: list[str],
    hyps: list[list[str]],
    systems: int,
    keep: bool,
) -> Any:
    return func(ref, hyps, systems, state["ids"], state["words"], state["counts"], keep)


def _words_equal(
    segments: Sequence[tuple[list[str], list[list[str]]]], systems: int, keep: bool
) -> None:
    assert N is not None
    pure, compiled = _words_state(systems), _words_state(systems)
    for ref, hyps in segments:
        if len(hyps) < systems:
            for func in (words.py_add_words, N.add_words):
                with pytest.raises(ValueError, match="hypotheses for"):
                    _add_words(func, _words_state(systems), ref, hyps, systems, keep)
            continue
        expected = _add_words(words.py_add_words, pure, ref, hyps, systems, keep)
        got = _add_words(N.add_words, compiled, ref, hyps, systems, keep)
        assert _described(got) == _described(expected)
        if keep:
            assert all(type(v) is int for v in got)
        else:
            assert got is None
    assert {k: _described(v) for k, v in compiled.items()} == {
        k: _described(v) for k, v in pure.items()
    }
    assert all(type(v) is int for v in compiled["counts"])


def _ngrams_state(systems: int) -> dict[str, Any]:
    # An n-gram already counted, so that adding to counts is tested too.
    return {"ids": {("a",): 0}, "grams": [("a",)], "counts": [1] * systems}


def _ngrams_equal(
    segments: Sequence[tuple[list[str], list[list[str]]]], systems: int, low: int, high: int
) -> None:
    assert N is not None
    pure, compiled = _ngrams_state(systems), _ngrams_state(systems)
    for ref, hyps in segments:
        if len(hyps) < systems:
            for func in (ngrams.py_add_ngram_matches, N.add_ngram_matches):
                with pytest.raises(ValueError, match="hypotheses for"):
                    func(ref, hyps, low, high, systems, *_ngrams_state(systems).values())
            continue
        assert ngrams.py_add_ngram_matches(ref, hyps, low, high, systems, *pure.values()) is None
        assert N.add_ngram_matches(ref, hyps, low, high, systems, *compiled.values()) is None
        assert _described(compiled) == _described(pure)
    assert all(type(v) is int for v in compiled["counts"])


@needs_native
@EXAMPLES
@given(
    st.lists(st.tuples(SEGMENT, st.lists(SEGMENT, max_size=4)), min_size=1, max_size=4),
    st.integers(0, 3),
    st.booleans(),
)
def test_words_count_as_the_pure_code(
    segments: list[tuple[list[str], list[list[str]]]], systems: int, keep: bool
) -> None:
    # hyps may hold more lists than there are systems (the first count), or
    # fewer (a ValueError).
    _words_equal(segments, systems, keep)


@needs_native
@EXAMPLES
@given(
    st.lists(st.tuples(SEGMENT, st.lists(SEGMENT, max_size=4)), min_size=1, max_size=4),
    st.integers(0, 3),
    st.integers(1, 5),
    st.integers(0, 4),
)
def test_ngram_matches_count_as_the_pure_code(
    segments: list[tuple[list[str], list[list[str]]]], systems: int, low: int, more: int
) -> None:
    _ngrams_equal(segments, systems, low, low + more)


@needs_native
def test_repeated_words_and_empty_segments() -> None:
    cases = [
        ([], [[], []]),
        (["a"] * 7, [["a"] * 3, ["a"] * 9]),
        (["a", "b"] * 5, [["b", "a"] * 6, []]),
        ([""] * 3, [["", ""], ["\ud800", ""]]),
        (["x"] * 300, [["x"] * 301, ["x", "y"] * 150]),
    ]
    _words_equal(cases, 2, keep=True)
    _words_equal(cases, 2, keep=False)
    for low in range(1, 5):
        for high in range(low, 7):
            _ngrams_equal(cases, 2, low, high)


@needs_native
@pytest.mark.skipif(not TED.is_dir(), reason=f"real data {TED} not present")
def test_real_ted_stream() -> None:
    lines = [
        (TED / name).read_text(encoding="utf-8").splitlines()[:400]
        for name in ("ted.ref.eng", "ted.sys1.eng", "ted.sys2.eng")
    ]
    segments = [(r.split(), [a.split(), b.split()]) for r, a, b in zip(*lines)]
    _words_equal(segments, 2, keep=True)
    _words_equal(segments, 2, keep=False)
    _ngrams_equal(segments, 2, 1, 4)


@needs_native
def test_bad_arguments_raise() -> None:
    assert N is not None
    with pytest.raises(TypeError):
        N.add_words(["a", 1], [["a"]], 1, {}, [], [])
    with pytest.raises(TypeError):
        N.add_words(["a"], [["a"]], 1, [], [], [])
    with pytest.raises(TypeError):
        N.add_words(["a"], [["a"]], 1, {}, (), [])
    with pytest.raises(TypeError):
        N.add_words(["a"], [["a"]], 1, {}, [])
    with pytest.raises(ValueError):
        N.add_words(["a"], [["a"]], -1, {}, [], [])
    # counts of the wrong length, a word number with no counts, or not a number
    with pytest.raises(ValueError):
        N.add_words(["a"], [["a"]], 1, {}, [], [0])
    with pytest.raises(ValueError):
        N.add_words(["a"], [["a"]], 1, {"a": 1}, ["a"], [0, 0, 0])
    with pytest.raises(ValueError):
        N.add_words(["a"], [["a"]], 1, {"a": -1}, ["a"], [0, 0, 0])
    with pytest.raises(TypeError):
        N.add_words(["a"], [["a"]], 1, {"a": "0"}, ["a"], [0, 0, 0])
    with pytest.raises(TypeError):
        N.add_ngram_matches(["a"], [[None]], 1, 2, 1, {}, [], [])
    with pytest.raises(TypeError):
        N.add_ngram_matches(["a"], [["a"]], 1, 2, 1, [], [], [])
    with pytest.raises(TypeError):
        N.add_ngram_matches(["a"], [["a"]], 1, 2, 1, {}, [])
    with pytest.raises(ValueError):
        N.add_ngram_matches(["a"], [["a"]], 1, 2, 1, {}, [], [0])
    with pytest.raises(ValueError):
        N.add_ngram_matches(["a"], [["a"]], 1, 2, 1, {("a",): 3}, [("a",)], [0])
    for low, high in ((0, 2), (3, 2), (-1, -1)):
        with pytest.raises(ValueError):
            N.add_ngram_matches(["a"], [["a"]], low, high, 1, {}, [], [])
        with pytest.raises(ValueError):
            ngrams.py_add_ngram_matches(["a"], [["a"]], low, high, 1, {}, [], [])
    with pytest.raises(OverflowError):
        N.add_ngram_matches(["a"], [["a"]], 1, 2**70, 1, {}, [], [])
    # A count that is not an int, or past 64 bits, adds as Python adds.
    counts: list[Any] = [1.5, 2**64, 0]
    N.add_words(["a", "a"], [["a"]], 1, {"a": 0}, ["a"], counts)
    assert counts == [3.5, 2**64 + 1, 1]
