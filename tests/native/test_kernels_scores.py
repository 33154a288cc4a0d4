"""The compiled BLEU score objects (``bleu_scores``) against the pure ones.

``bleustream._native._kernels.bleu_scores`` makes, for a batch of rows, what the pure
``Spec(bleu, settings).score_object(row, signature)`` makes, handing the
rows it cannot score exactly in C to a fallback (the pure method).  Each
object is compared with the pure one exactly: its class, its attributes in
the same order (``vars``), the score, bp and each precision as floats with
``==`` and by their bits (``float.hex``, so that -0.0 and NaN cannot hide),
the statistics and the signature; where the pure code raises, the kernel
call must raise the same exception with the same message.

Rows come from Hypothesis (with a run's structure, and arbitrary whole
numbers up to and past 2**53 and 2**63), from hand-made edge cases, and
from rows where Python's plain and compensated (3.12+) sums of the logs
differ, so that the C twin of ``sum()`` is checked on this interpreter.  A
fallback that counts its calls proves which rows the C code scores.

These kernel tests are skipped, saying so, only where ``BLEUSTREAM_PUREPYTHON``
forces the pure path (or no extension was built); an extension that was
built but is not in use fails them.  The API tests (``sentence_scores``,
``sentence_bleu`` against SacreBLEU, on adversarial text and on WMT17
en-de) run on both paths, and a child process on the pure path must print
the same bits.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustream
from bleustream import kernels
from bleustream.metrics import bleu
from bleustream.metrics.protocol import each_score
from bleustream.metrics.registry import Spec
from bleustream.metrics.scores import BLEUScore
from tests.conftest import (
    REAL_DATA,
    REAL_DATA_MISSING,
    RealSet,
    read_refs,
    read_segments,
    real_data_present,
    real_sets,
)
from tests.helpers.adversarial import Adversary
from tests.helpers.native import bits, child_env, extension_files, needs_kernel
from tests.helpers.paths import ROOT

SIGNATURE = "nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:test"


def _kernel() -> ModuleType:
    """The compiled kernels; fails (never skips) where the extension was
    built but bleustream runs the pure path without being asked to."""
    if kernels.pure_python_forced():
        import importlib

        native: ModuleType | None = importlib.import_module("bleustream._native._kernels")
    else:
        native = kernels.native
    assert native is not None, (
        f"{extension_files()[0].name} is built but bleustream runs on the pure-Python "
        f"path without {kernels.ENV_VAR}"
    )
    assert hasattr(native, "bleu_scores"), f"{native.__file__} has no bleu_scores: a stale build"
    return native


# -- comparing score objects ---------------------------------------------------


def _same_float(got: Any, want: Any, what: str) -> None:
    assert bits(got) == bits(want), f"{what}: {got!r} != pure {want!r}"
    assert got == want or (got != got and want != want), f"{what}: {got!r} != pure {want!r}"


Outcome = Any  # a score object, or the exception its making raised


def _outcome(call: Callable[[], Any]) -> Outcome:
    try:
        return call()
    except Exception as exc:  # compared with the pure code's, type and text
        return exc


def assert_same(got: Outcome, want: Outcome, row: Any = None, context: Any = None) -> None:
    """``got`` (the kernel's) is ``want`` (the pure code's), to the bit."""
    where = (row, context)
    if isinstance(want, BaseException) or isinstance(got, BaseException):
        assert (type(got), str(got)) == (type(want), str(want)), where
        return
    assert type(got) is type(want), where
    assert list(vars(got)) == list(vars(want)), where  # before any lazy attribute is read
    _same_float(got.score, want.score, f"score of {where}")
    _same_float(got.bp, want.bp, f"bp of {where}")
    assert type(got.precisions) is type(want.precisions) is list, where
    assert len(got.precisions) == len(want.precisions), where
    for n, (a, b) in enumerate(zip(got.precisions, want.precisions)):
        _same_float(a, b, f"precision {n + 1} of {where}")
    assert type(got.stats) is type(want.stats) is tuple, where
    assert got.stats == want.stats, where
    assert [type(v) for v in got.stats] == [type(v) for v in want.stats], where
    if row is not None:  # the row itself, when the pure code keeps it
        assert (got.stats is row) == (want.stats is row), where
    assert type(got.signature) is type(want.signature), where
    assert got.signature == want.signature, where
    # SacreBLEU's lazily read attributes and text, from the statistics
    for name in ("counts", "totals", "sys_len", "ref_len", "ratio"):
        a = _outcome(lambda n=name: getattr(got, n))
        b = _outcome(lambda n=name: getattr(want, n))
        assert repr(a) == repr(b) and type(a) is type(b), (name, where)
    a, b = _outcome(lambda: str(got)), _outcome(lambda: str(want))
    assert repr(a) == repr(b), where


class Counting:
    """The pure ``Spec.score_object`` as a fallback, recording each row it gets."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.rows: list[Any] = []
        self.signatures: list[Any] = []

    def __call__(self, row: Any, signature: Any) -> Any:
        self.rows.append(row)
        self.signatures.append(signature)
        return self.spec.score_object(row, signature)


def _kernel_args(the_settings: bleu.Settings) -> tuple[Any, ...]:
    """``bleu_scores``' settings arguments, as ``bleu.c_score_batch`` passes them."""
    value = the_settings.effective_smooth_value
    return (
        the_settings.max_order,
        the_settings.smooth_method,
        float(value or 0.0),
        the_settings.effective_order,
        BLEUScore,
    )


def check_rows(
    the_settings: bleu.Settings, rows: Sequence[Any], signature: Any = SIGNATURE
) -> Counting:
    """Scores ``rows`` one at a time and as one batch, through the library's
    closure (``Spec.made_objects``) and through the kernel called directly,
    each against the pure ``score_object``; returns the batch's fallback."""
    native = _kernel()
    spec = Spec(bleu, the_settings)
    direct = _kernel_args(the_settings)
    if kernels.pure_python_forced():
        # bleustream is kept from the kernel: the closure it would make
        def made(rows: Any, signature: Any, one: Any) -> Any:
            return native.bleu_scores(rows, *direct, signature, one)

    else:
        made = spec.made_objects
    assert made is not None, the_settings

    def pure(row: Any) -> Outcome:
        """A new pure object each time: reading one fills in its lazy attributes."""
        return _outcome(lambda: spec.score_object(row, signature))

    for row in rows:
        single = Counting(spec)
        assert_same(_outcome(lambda r=row, f=single: made([r], signature, f)[0]), pure(row), row)
        assert all(s is signature for s in single.signatures)
        got = _outcome(
            lambda r=row: native.bleu_scores((r,), *direct, signature, spec.score_object)
        )
        assert_same(got if isinstance(got, BaseException) else got[0], pure(row), row)
    check_values(native, the_settings, rows)
    # one batch: the first pure exception is the batch's, else every object
    batch = Counting(spec)
    got_all = _outcome(lambda: made(list(rows), signature, batch))
    raised = [w for w in map(pure, rows) if isinstance(w, BaseException)]
    if raised:
        assert_same(got_all, raised[0], None, "the batch")
    else:
        assert type(got_all) is list and len(got_all) == len(rows)
        for row, got in zip(rows, got_all):
            assert_same(got, pure(row), row, "in a batch")
    return batch


def check_values(
    native: ModuleType,
    the_settings: bleu.Settings,
    rows: Sequence[Any],
) -> None:
    """``bleu_values`` (the scores alone), one row at a time and as one batch,
    directly and through ``bleu.score_values_batch`` (either path's), against
    the pure ``bleu.score(row, settings).score``: the same bits, or the same
    exception."""
    direct = _kernel_args(the_settings)[:4]

    def one(row: Any) -> float:
        return bleu.score(row, the_settings).score

    def pure(row: Any) -> Outcome:
        return _outcome(lambda: one(row))

    calls = [
        lambda batch: native.bleu_values(batch, *direct, one),
        bleu.score_values_batch(the_settings),
    ]
    for call in calls:
        for row in rows:
            want = pure(row)
            got = _outcome(lambda r=row, c=call: c([r])[0])
            if isinstance(want, BaseException) or isinstance(got, BaseException):
                assert (type(got), str(got)) == (type(want), str(want)), row
            else:
                assert type(got) is type(want), row
                _same_float(got, want, f"score of {row}")
        wants = [pure(row) for row in rows]
        raised = [w for w in wants if isinstance(w, BaseException)]
        got_all = _outcome(lambda c=call: c(list(rows)))
        if raised:
            assert (type(got_all), str(got_all)) == (type(raised[0]), str(raised[0]))
        else:
            assert [bits(g) for g in got_all] == [bits(w) for w in wants]


# -- Hypothesis: settings and rows --------------------------------------------

EXAMPLES = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
MORE_EXAMPLES = settings(EXAMPLES, max_examples=500)

SMOOTH_VALUES = st.one_of(
    st.none(),
    st.sampled_from([0, 0.0, -0.0, 1, 0.1, 0.05, 5e-324, 1e-300, 2.5, bleu.MAX_SMOOTH_VALUE]),
    st.integers(0, bleu.MAX_SMOOTH_VALUE),
    st.floats(0, bleu.MAX_SMOOTH_VALUE),
)


@st.composite
def bleu_settings(draw: st.DrawFn, max_order: int | None = None) -> bleu.Settings:
    """Settings the kernel scores with: exp, floor (with any value) or none."""
    method = draw(st.sampled_from(["exp", "floor", "none"]))
    return bleu.Settings(
        smooth_method=method,
        smooth_value=draw(SMOOTH_VALUES) if method == "floor" else None,
        effective_order=draw(st.booleans()),
        max_order=draw(st.integers(1, 6)) if max_order is None else max_order,
    )


@st.composite
def realistic_rows(draw: st.DrawFn, order: int) -> tuple[int, ...]:
    """A row with a run's structure: ``segments`` segments of ``hyp_len``
    tokens in all, one n-gram fewer per segment at each order, matches no
    more than the totals and never more than the order below."""
    size = draw(st.sampled_from(["sentence", "sentence", "corpus", "huge"]))
    if size == "sentence":
        segments, hyp_len = 1, draw(st.integers(0, 60))
    elif size == "corpus":
        segments = draw(st.integers(1, 3000))
        hyp_len = draw(st.integers(0, 40 * segments))
    else:  # near 2**53, where a double still holds every count
        segments = draw(st.integers(1, 10**6))
        hyp_len = draw(st.integers(0, 2**53))
    totals = [max(0, hyp_len - n * segments) for n in range(order)]
    matches: list[int] = []
    for total in totals:
        limit = min(total, matches[-1]) if matches else total
        matches.append(draw(st.one_of(st.just(limit), st.integers(0, limit), st.just(0))))
    ref_len = draw(st.one_of(st.integers(0, min(2 * hyp_len + 5, EXACT)), st.just(hyp_len)))
    return (hyp_len, ref_len, *matches, *totals)


EXACT = 2**53
BOUNDARIES = [
    *(EXACT - 1, EXACT, EXACT + 1, -EXACT, -EXACT - 1, -EXACT + 1),
    *(2**62, 2**63 - 1, 2**63, 2**63 + 1, -(2**63), -(2**63) - 1, 2**64, 2**64 + 1),
    *(2**1023, 2**1024, -(2**1024), 10**400),
]
SMALL_INTS = st.one_of(
    st.integers(-3, 3),
    st.integers(0, 300),
    st.integers(-300, 300),
    st.integers(-EXACT, EXACT),
    st.sampled_from([0, 1, EXACT, -EXACT, EXACT - 1]),
)
ANY_INTS = st.one_of(
    SMALL_INTS,
    st.sampled_from(BOUNDARIES),
    st.integers(-(2**64) - 5, 2**64 + 5),
    st.integers(-(2**1100), 2**1100),
)


@st.composite
def arbitrary_rows(draw: st.DrawFn, order: int) -> tuple[int, ...]:
    """Any whole numbers: zeros, negatives, matches above totals; mostly
    within 2**53 (which the C code scores), else up to and past 2**63."""
    items = draw(st.sampled_from([SMALL_INTS, SMALL_INTS, ANY_INTS]))
    return tuple(draw(st.lists(items, min_size=2 + 2 * order, max_size=2 + 2 * order)))


@st.composite
def settings_and_rows(
    draw: st.DrawFn, rows: Callable[[int], st.SearchStrategy[Any]]
) -> tuple[bleu.Settings, list[Any]]:
    the_settings = draw(bleu_settings())
    batch = draw(st.lists(rows(the_settings.max_order), min_size=1, max_size=4))
    return the_settings, batch


def _plainly_scored(row: tuple[int, ...], the_settings: bleu.Settings) -> bool:
    """A realistic row the C code must score itself: every order matched,
    nothing matched, or exp smoothing where every order has n-grams."""
    order = the_settings.max_order
    matches, totals = row[2 : 2 + order], row[2 + order :]
    if (all(matches) and all(totals)) or not any(matches):
        return True
    return the_settings.smooth_method == "exp" and all(totals)


@needs_kernel
@MORE_EXAMPLES
@given(settings_and_rows(realistic_rows))
@pytest.mark.slow
def test_realistic_rows_as_the_pure_objects(case: tuple[bleu.Settings, list[Any]]) -> None:
    the_settings, rows = case
    batch = check_rows(the_settings, rows)
    reached = {id(r) for r in batch.rows}
    for row in rows:
        if _plainly_scored(row, the_settings):
            assert id(row) not in reached, (row, the_settings)


@needs_kernel
@MORE_EXAMPLES
@given(settings_and_rows(arbitrary_rows))
@pytest.mark.slow
def test_arbitrary_whole_numbers_as_the_pure_objects(
    case: tuple[bleu.Settings, list[Any]],
) -> None:
    the_settings, rows = case
    batch = check_rows(the_settings, rows)
    reached = {id(r) for r in batch.rows}
    for row in rows:  # up to the first that raises, numbers past 2**53 go to the pure code
        if any(abs(v) > EXACT for v in row):
            assert id(row) in reached, row
        if _raises(the_settings, row):
            break


ODD_ITEMS = st.one_of(
    SMALL_INTS,
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 2.0**53, 2.0**53 + 2, float("nan"), float("inf")]),
    st.sampled_from(BOUNDARIES),
)


@needs_kernel
@EXAMPLES
@given(
    bleu_settings(),
    st.lists(ODD_ITEMS, max_size=15),
    st.sampled_from(["tuple", "list", "right length tuple"]),
)
def test_rows_of_any_items_or_length_as_the_pure_objects(
    the_settings: bleu.Settings, items: list[Any], kind: str
) -> None:
    """Lists, bools, floats, wrong lengths: the pure code's object or exception."""
    size = bleu.row_size(the_settings)
    if kind == "right length tuple":
        items = (items * size)[:size] if items else [0] * size
    row = list(items) if kind == "list" else tuple(items)
    batch = check_rows(the_settings, [row])
    exact = (
        type(row) is tuple
        and len(row) == size
        and all(type(v) is int and abs(v) <= EXACT for v in row)
    )
    if not exact:
        assert [id(r) for r in batch.rows] == [id(row)], row


# -- hand-made rows, and which of them reach the fallback ------------------------

# Settings the counting tests use: every method, effective order or not.
COUNTING_SETTINGS = [
    bleu.Settings(),
    bleu.Settings(effective_order=True),
    bleu.Settings(smooth_method="floor"),
    bleu.Settings(smooth_method="floor", smooth_value=3, effective_order=True),
    bleu.Settings(smooth_method="none", effective_order=True),
    bleu.Settings(max_order=1),
    bleu.Settings(max_order=6, smooth_method="floor", smooth_value=0.5),
]


def _scored_in_c(the_settings: bleu.Settings) -> list[tuple[int, ...]]:
    """Rows the C code scores itself with these settings."""
    order = the_settings.max_order
    rows = [
        (10, 12, *range(10, 10 - order, -1), *range(10, 10 - order, -1)),  # all matched
        (9, 7, *[max(1, 9 - 2 * n) for n in range(order)], *range(9, 9 - order, -1)),
        (3, 3, *(0,) * order, *range(3, 3 - order, -1)),  # nothing matched
        (0, 0, *(0,) * (2 * order)),  # the empty row
        (0, 5, *(0,) * (2 * order)),
        (EXACT, EXACT, *(EXACT,) * order, *(EXACT,) * order),  # the largest exact counts
        (1, EXACT, *(1,) * order, *(1,) * order),
        (EXACT, 1, *(1,) * order, *(EXACT,) * order),
        (-EXACT, 3, *(2,) * order, *(3,) * order),
        (5, -4, *(7,) * order, *(3,) * order),  # matches above totals
        (40, 41, *[40 - n for n in range(order)], *[40 - n for n in range(order)]),
    ]
    smoothing = the_settings.effective_smooth_value
    if order > 1 and (
        the_settings.smooth_method == "exp" or (smoothing is not None and smoothing > 0)
    ):
        # smoothed: the first order matched, the others not
        rows.append((6, 9, 4, *(0,) * (order - 1), *range(6, 6 - order, -1)))
        rows.append((2**40, 2**41, 2**39, *(0,) * (order - 1), *(2**40,) * order))
    if order > 1 and the_settings.effective_order:
        # a sentence shorter than max_order: its orders without n-grams left out
        rows.append((1, 4, 1, *(0,) * (order - 1), 1, *(0,) * (order - 1)))
    return rows


class _Int(int):
    pass


class _Row(tuple):  # type: ignore[type-arg]
    pass


def _deferred(the_settings: bleu.Settings) -> list[Any]:
    """Rows the C code must leave to the fallback with these settings."""
    order = the_settings.max_order
    good = (10, 12, *range(10, 10 - order, -1), *range(10, 10 - order, -1))
    rows: list[Any] = [
        list(good),
        _Row(good),
        (True, *good[1:]),
        (*good[:-1], float(good[-1])),
        (_Int(10), *good[1:]),
        (*good[:2], EXACT + 1, *good[3:]),
        (*good[:2], *good[2:-1], -EXACT - 1),
        (2**63, *good[1:]),
        (*good[:2], 2**64 + 1, *good[3:]),
        good[:-1],
        (*good, 0, 0),
        (),
        (*good[:2], -1, *good[3:]),  # a negative precision: math domain error
    ]
    if the_settings.smooth_method == "none" and order > 1:
        rows.append((6, 9, 4, *(0,) * (order - 1), *range(6, 6 - order, -1)))  # log(0)
    if the_settings.smooth_method == "floor" and the_settings.effective_smooth_value == 0:
        rows.append((6, 9, 4, *(0,) * (order - 1), *range(6, 6 - order, -1)))
    if not the_settings.effective_order and order > 1:
        rows.append((1, 4, 1, *(0,) * (order - 1), 1, *(0,) * (order - 1)))  # log(0)
    return rows


@needs_kernel
@pytest.mark.parametrize("the_settings", COUNTING_SETTINGS, ids=repr)
def test_ordinary_rows_never_reach_the_fallback(the_settings: bleu.Settings) -> None:
    """The C code scores these rows itself: the fallback is never called."""
    rows = _scored_in_c(the_settings)
    batch = check_rows(the_settings, rows)
    assert batch.rows == [], batch.rows


@needs_kernel
@pytest.mark.parametrize(
    "the_settings",
    [
        *COUNTING_SETTINGS,
        bleu.Settings(smooth_method="none"),
        bleu.Settings(smooth_method="floor", smooth_value=0),
        bleu.Settings(smooth_method="floor", smooth_value=-0.0, max_order=3),
    ],
    ids=repr,
)
def test_rows_the_kernel_defers_reach_the_fallback(the_settings: bleu.Settings) -> None:
    """Each deferred row reaches the fallback once, in order, with the
    signature; the rows between them do not; everything equals the pure code."""
    ordinary = _scored_in_c(the_settings)
    deferred = [r for r in _deferred(the_settings) if not _raises(the_settings, r)]
    mixed: list[Any] = []
    for i, row in enumerate(deferred):
        mixed += [row, ordinary[i % len(ordinary)]]
    signature = object()  # any object: passed as it is
    batch = check_rows(the_settings, mixed, signature)
    assert [id(r) for r in batch.rows] == [id(r) for r in deferred]
    assert all(s is signature for s in batch.signatures)
    # the ones the pure code raises for, one at a time
    for row in _deferred(the_settings):
        if _raises(the_settings, row):
            check_rows(the_settings, [row, *ordinary])


def _raises(the_settings: bleu.Settings, row: Any) -> bool:
    return isinstance(_outcome(lambda: Spec(bleu, the_settings).score_object(row)), Exception)


@needs_kernel
def test_the_sum_of_the_logs_is_this_pythons_sum() -> None:
    """Rows whose score differs between a plain sum of the logs (Python
    before 3.12) and Neumaier's compensated one (3.12 and later): the
    kernel gives this interpreter's, on every one."""

    def compensated(xs: list[float]) -> float:
        total, c = 0.0 + xs[0], 0.0
        for x in xs[1:]:
            t = total + x
            c += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
            total = t
        return total + c if c and math.isfinite(c) else total

    rng = random.Random(12)
    rows: dict[int, list[tuple[int, ...]]] = {4: [], 6: []}
    differ = 0
    for _ in range(6000):
        order = rng.choice((4, 6))
        segments = rng.choice((1, 1, 7, 300))
        hyp_len = rng.randint(order * segments, 60 * segments)
        totals = [hyp_len - n * segments for n in range(order)]
        matches = sorted((rng.randint(1, t) for t in totals), reverse=True)
        row = (hyp_len, rng.randint(1, hyp_len + 9), *matches, *totals)
        logs = [math.log(100.0 * m / t) for m, t in zip(matches, totals)]
        plain = 0.0
        for x in logs:
            plain += x
        if math.exp(plain / order) != math.exp(compensated(logs) / order):
            rows[order].append(row)
            differ += 1
    assert differ > 1000  # the test tells the two sums apart
    for order, these in rows.items():
        for the_settings in (
            bleu.Settings(max_order=order),
            bleu.Settings(max_order=order, effective_order=True),
        ):
            assert check_rows(the_settings, these).rows == []


# -- the batch and its arguments ----------------------------------------------


@needs_kernel
def test_a_batch_of_any_iterable_and_of_none() -> None:
    native = _kernel()
    the_settings = bleu.Settings()
    spec = Spec(bleu, the_settings)
    args = _kernel_args(the_settings)
    rows = _scored_in_c(the_settings) + _deferred(the_settings)[:5]
    rows = [r for r in rows if not _raises(the_settings, r)]
    for given_rows in (rows, tuple(rows), iter(rows), (r for r in rows)):
        got = native.bleu_scores(given_rows, *args, "s", spec.score_object)
        assert type(got) is list and len(got) == len(rows)
        for row, made in zip(rows, got):
            assert_same(made, spec.score_object(row, "s"), row)
    assert native.bleu_scores([], *args, "s", spec.score_object) == []
    assert native.bleu_scores((), *args, "s", spec.score_object) == []
    # the library's batch (Spec.score_objects) takes any iterable too
    for got in (spec.score_objects(iter(rows), "s"), spec.score_objects(rows, "s")):
        assert len(got) == len(rows)
        for row, made in zip(rows, got):
            assert_same(made, spec.score_object(row, "s"), row)


@needs_kernel
def test_the_class_made_is_the_one_given() -> None:
    native = _kernel()

    class Mine(BLEUScore):
        pass

    the_settings = bleu.Settings()
    spec = Spec(bleu, the_settings)
    row = _scored_in_c(the_settings)[0]
    args = list(_kernel_args(the_settings))
    args[-1] = Mine
    (got,) = native.bleu_scores([row], *args, "sig", spec.score_object)
    assert type(got) is Mine
    want = spec.score_object(row, "sig")
    assert list(vars(got)) == list(vars(want))
    assert got.score == want.score and got.counts == want.counts and str(got) == str(want)


@needs_kernel
def test_a_class_that_intercepts_attributes_sees_every_one() -> None:
    """The kernel writes an object's attributes straight into its __dict__
    only where setattr() would: a class with its own __setattr__, or a
    property among the attribute names, gets each attribute through it."""
    native = _kernel()
    seen: list[str] = []

    class Logged(BLEUScore):
        def __setattr__(self, name: str, value: Any) -> None:
            seen.append(name)
            super().__setattr__(name, value)

    class Guarded(BLEUScore):
        @property
        def ratio(self) -> Any:
            return self.__dict__["_ratio"]

        @ratio.setter
        def ratio(self, value: Any) -> None:
            seen.append("ratio")
            self.__dict__["_ratio"] = value

    the_settings = bleu.Settings()
    spec = Spec(bleu, the_settings)
    row = _scored_in_c(the_settings)[0]
    args = list(_kernel_args(the_settings))
    want = spec.score_object(row, "sig")
    for cls in (Logged, Guarded):
        seen.clear()
        args[-1] = cls
        (got,) = native.bleu_scores([row], *args, "sig", spec.score_object)
        assert type(got) is cls and got.ratio == want.ratio and str(got) == str(want)
        if cls is Logged:
            # SacreBLEU's attributes, then bleustream's two slots
            assert seen == [*vars(want), "stats", "signature"], seen
        else:
            assert seen == ["ratio"] and "ratio" not in vars(got)


@needs_kernel
def test_bad_arguments_raise() -> None:
    native = _kernel()
    spec = Spec(bleu, bleu.Settings())
    fb = spec.score_object
    rows = [(3, 3, 3, 2, 1, 1, 3, 2, 1, 1)]

    def call(*args: Any) -> Any:
        return native.bleu_scores(*args)

    good = (rows, 4, "exp", 0.0, False, BLEUScore, "", fb)
    assert len(call(*good)) == 1

    class Bad:
        def __bool__(self) -> bool:
            raise ZeroDivisionError("no truth")

        def __iter__(self) -> Iterator[Any]:
            yield rows[0]
            raise KeyError("broken rows")

    class Slotted:
        __slots__ = ()

    cases: list[tuple[type[BaseException], Callable[[], Any]]] = [
        (TypeError, lambda: call()),
        (TypeError, lambda: call(*good[:7])),
        (TypeError, lambda: call(*good, None)),
        (TypeError, lambda: native.bleu_scores(*good[:7], fallback=fb)),
        (TypeError, lambda: native.bleu_scores(*good, extra=1)),
        (ValueError, lambda: call(rows, 0, *good[2:])),
        (ValueError, lambda: call(rows, 101, *good[2:])),
        (ValueError, lambda: call(rows, -1, *good[2:])),
        (ValueError, lambda: call([], 0, *good[2:])),
        (TypeError, lambda: call(rows, "4", *good[2:])),
        (TypeError, lambda: call(rows, 4.0, *good[2:])),
        (OverflowError, lambda: call(rows, 2**100, *good[2:])),
        (ValueError, lambda: call(rows, 4, "add-k", *good[3:])),
        (ValueError, lambda: call(rows, 4, None, *good[3:])),
        (ValueError, lambda: call(rows, 4, "EXP", *good[3:])),
        (ValueError, lambda: call(rows, 4, b"exp", *good[3:])),
        (TypeError, lambda: call(rows, 4, "floor", "0.1", *good[4:])),
        (TypeError, lambda: call(rows, 4, "floor", None, *good[4:])),
        (ZeroDivisionError, lambda: call(rows, 4, "exp", 0.0, Bad(), *good[5:])),
        (TypeError, lambda: call(rows, *good[1:5], "BLEUScore", *good[6:])),
        (TypeError, lambda: call(rows, *good[1:5], spec.score_object(rows[0]), *good[6:])),
        (TypeError, lambda: call(rows, *good[1:5], None, *good[6:])),
        (TypeError, lambda: call(rows, *good[1:7], None)),
        (TypeError, lambda: call(rows, *good[1:7], 3)),
        (TypeError, lambda: call(3, *good[1:])),
        (TypeError, lambda: call(None, *good[1:])),
        (KeyError, lambda: call(Bad(), *good[1:])),
        # a class whose objects take no attributes
        (AttributeError, lambda: call(rows, *good[1:5], Slotted, *good[6:])),
        # a fallback that raises: its exception, from a batch that has ordinary rows too
        (RuntimeError, lambda: call([*rows, [1]], *good[1:7], _raise_runtime)),
    ]
    for expected, bad in cases:
        with pytest.raises(expected):
            bad()
    # and it still works
    assert_same(call(*good)[0], fb(rows[0], ""), rows[0])


def _raise_runtime(row: Any, signature: Any) -> Any:
    raise RuntimeError("fallback failed")


def _raise_on_one(row: Any) -> Any:
    raise RuntimeError("fallback failed")


UNSAFE_CLASS = """
import resource, sys
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
from bleustream._native import _kernels as N
try:
    N.bleu_scores([(3, 3, 3, 3)], 1, "exp", 0.0, False, {cls}, "", print)
except TypeError as exc:
    print("TypeError", exc)
"""


@needs_kernel
def test_bad_arguments_to_the_values_raise() -> None:
    native = _kernel()
    rows = [(3, 3, 3, 2, 1, 1, 3, 2, 1, 1)]
    good = (rows, 4, "exp", 0.0, False, float)
    assert native.bleu_values(*good) == [bleu.score(rows[0], bleu.Settings()).score]
    assert native.bleu_values([], *good[1:]) == []
    cases: list[tuple[type[BaseException], Callable[[], Any]]] = [
        (TypeError, lambda: native.bleu_values(*good[:5])),
        (TypeError, lambda: native.bleu_values(*good, None)),
        (ValueError, lambda: native.bleu_values(rows, 0, *good[2:])),
        (ValueError, lambda: native.bleu_values(rows, 4, "add-k", *good[3:])),
        (TypeError, lambda: native.bleu_values(rows, *good[1:5], None)),
        (TypeError, lambda: native.bleu_values(None, *good[1:])),
        # a row the C code defers goes to the fallback, and its exception is the call's
        (RuntimeError, lambda: native.bleu_values([*rows, [1]], *good[1:5], _raise_on_one)),
        (TypeError, lambda: native.bleu_values([[1]], *good[1:])),
    ]
    for expected, bad in cases:
        with pytest.raises(expected):
            bad()


@needs_kernel
@pytest.mark.parametrize("cls", ["range", "slice", "memoryview", "int", "type", "dict"])
def test_a_class_object_new_cannot_make_is_a_type_error(tmp_path: Path, cls: str) -> None:
    """As ``object.__new__(range)``: a TypeError, in a child (it may crash)."""
    proc = subprocess.run(
        [sys.executable, "-c", UNSAFE_CLASS.format(cls=cls)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("TypeError"), (
        proc.returncode,
        proc.stdout[-300:],
        proc.stderr[-300:],
    )


@needs_kernel
def test_a_fallback_that_changes_the_rows_does_not_crash() -> None:
    """The kernel reads a snapshot of the rows: a fallback that clears or
    refills the list it was given, or changes a row, cannot pull a row from
    under it; a fallback may also return anything, even call the kernel."""
    native = _kernel()
    the_settings = bleu.Settings(max_order=2)
    spec = Spec(bleu, the_settings)
    args = _kernel_args(the_settings)
    ordinary = [(5, 5, 4, 3, 5, 4), (2, 9, 1, 0, 2, 1), (0, 0, 0, 0, 0, 0)]
    original = [[5, 5, 4, 3, 5, 4], ordinary[0], [7, 7, 7, 6, 7, 6], ordinary[1], ordinary[2]]
    want = [spec.score_object(r, "s") for r in original]
    rows: list[Any] = list(original)

    def clearing(row: Any, signature: Any) -> Any:
        made = spec.score_object(row, signature)
        rows.clear()
        rows.extend([None, "x", 3])
        row.clear()  # the list row itself
        return made

    got = native.bleu_scores(rows, *args, "s", clearing)
    assert len(got) == len(original)
    for a, b in zip(got, want):
        assert_same(a, b)

    def odd(row: Any, signature: Any) -> Any:
        return None if len(row) % 2 else (row, signature)

    got = native.bleu_scores([[1], (1, 1, 1, 1, 1, 1), [1, 2]], *args, "s", odd)
    assert got[0] is None and got[2] == ([1, 2], "s") and type(got[1]) is BLEUScore

    def reentrant(row: Any, signature: Any) -> Any:
        return native.bleu_scores([tuple(row), tuple(row)], *args, signature, spec.score_object)

    got = native.bleu_scores([list(ordinary[0])], *args, "s", reentrant)
    assert_same(got[0][1], spec.score_object(ordinary[0], "s"))


# -- the library's wiring ---------------------------------------------------------


def test_the_kernel_is_used_unless_the_pure_path_is_forced() -> None:
    """``bleu.score_batch`` gives the C batch exactly where it can: never
    on the pure path, with add-k, BLEU-1..N or a smoothing value of another
    type (there it makes each object by the pure code, ``each_score``); and a
    built extension that is not in use fails here."""
    eligible = [
        bleu.Settings(),
        bleu.Settings(smooth_method="floor", smooth_value=0),
        bleu.Settings(smooth_method="none", max_order=6, effective_order=True),
    ]

    class Value(float):
        pass

    never = [
        bleu.Settings(smooth_method="add-k"),
        bleu.Settings(orders=True),
        bleu.Settings(smooth_method="floor", smooth_value=Value(0.5)),
    ]
    in_use = not kernels.pure_python_forced() and bool(extension_files())
    if in_use:
        _kernel()
    assert (bleu.score_batch is bleu.c_score_batch) is in_use
    for the_settings in never:
        assert bleu.score_batch(the_settings) is each_score, the_settings
    for the_settings in eligible:
        assert (bleu.score_batch(the_settings) is not each_score) is in_use, the_settings
        assert (Spec(bleu, the_settings).made_objects is not each_score) is in_use


# -- the API against SacreBLEU ---------------------------------------------------

API_KEYWORDS: list[dict[str, Any]] = [
    {},
    {"smooth_method": "floor"},
    {"smooth_method": "floor", "smooth_value": 0},
    {"smooth_method": "none"},
    {"smooth_method": "none", "use_effective_order": False},
    {"smooth_method": "add-k"},
    {"use_effective_order": False},
    {"lowercase": True},
    {"tokenize": "13a", "max_ngram_order": 6},
    {"tokenize": "zh"},
    {"tokenize": "intl"},
    {"tokenize": "none", "smooth_method": "floor", "smooth_value": 0.5},
]


def _api_mismatches(ours: Any, theirs: Any) -> list[str]:
    problems = []
    for name in ("score", "bp"):
        if bits(getattr(ours, name)) != bits(getattr(theirs, name)):
            problems.append(f"{name}: {getattr(ours, name)!r} != {getattr(theirs, name)!r}")
    if [bits(p) for p in ours.precisions] != [bits(p) for p in theirs.precisions]:
        problems.append(f"precisions: {ours.precisions!r} != {theirs.precisions!r}")
    for name in ("counts", "totals", "sys_len", "ref_len", "ratio"):
        a, b = getattr(ours, name), getattr(theirs, name)
        if a != b or repr(a) != repr(b):
            problems.append(f"{name}: {a!r} != {b!r}")
    if str(ours) != str(theirs):
        problems.append(f"str: {ours} != {theirs}")
    return problems


def _against_sacrebleu(
    hyps: Sequence[str], streams: Sequence[Sequence[str]], keywords: dict[str, Any]
) -> int:
    """sentence_scores and sentence_bleu of each hypothesis against SacreBLEU's."""
    import sacrebleu
    from sacrebleu.metrics import BLEU

    def sentence_bleu(hyp: str, refs: list[str]) -> Any:
        return sacrebleu.sentence_bleu(hyp, refs, **keywords)

    oracle: Callable[[str, list[str]], Any] = sentence_bleu
    if "max_ngram_order" in keywords:  # sacrebleu.sentence_bleu has no such keyword
        theirs_keywords = dict(keywords)
        eff = theirs_keywords.pop("use_effective_order", True)
        metric = BLEU(**theirs_keywords, effective_order=eff)
        oracle = metric.sentence_score
    batch = bleustream.sentence_scores("bleu", hyps, streams, **keywords)
    assert len(batch) == len(hyps)
    for i, got in enumerate(batch):
        refs = [stream[i] for stream in streams]
        one = bleustream.sentence_bleu(hyps[i], refs, **keywords)
        theirs = oracle(hyps[i], refs)
        assert type(got) is type(one)
        assert list(vars(got)) == list(vars(one)), (i, keywords)
        assert got.signature == one.signature and got.stats == one.stats, (i, keywords)
        assert not _api_mismatches(got, one), (i, hyps[i], refs, keywords)
        problems = _api_mismatches(got, theirs)
        assert not problems, (i, hyps[i], refs, keywords, problems)
    return len(batch)


@pytest.mark.parametrize("keywords", API_KEYWORDS, ids=repr)
def test_sentence_scores_as_sacrebleu_on_adversarial_text(keywords: dict[str, Any]) -> None:
    for seed, n_refs in ((21, 1), (22, 2)):
        hyps, streams = Adversary(seed).corpus(80, n_refs)
        assert _against_sacrebleu(hyps, streams, keywords) == 80


WMT17 = "sacrebleu-wmt17-en-de"
WMT17_LINES = 1000


def _wmt17() -> RealSet:
    for real_set in real_sets():
        if real_set.name == WMT17:
            return real_set
    if not real_data_present():
        pytest.skip(REAL_DATA_MISSING)
    pytest.skip(f"{WMT17} is not in {REAL_DATA / 'MANIFEST.json'}")


@pytest.mark.parametrize(
    "keywords",
    [
        {},
        {"smooth_method": "floor"},
        {"smooth_method": "none", "use_effective_order": False},
        {"lowercase": True, "tokenize": "intl"},
    ],
    ids=repr,
)
def test_sentence_scores_as_sacrebleu_on_wmt17(keywords: dict[str, Any]) -> None:
    real_set = _wmt17()
    streams = [list(stream[:WMT17_LINES]) for stream in read_refs(real_set)]
    for hyp in real_set.hyps[:3]:
        hyps = list(read_segments(hyp)[:WMT17_LINES])
        assert _against_sacrebleu(hyps, streams, keywords) == len(hyps) > 0


# -- the pure path in a child process: the same bits -----------------------------

CHILD = """
import json, struct, sys
import bleustream

def bits(x):
    return f"{type(x).__name__}:{x.hex() if type(x) is float else repr(x)}"

def text(obj):
    keys = list(vars(obj))
    return " ".join([
        type(obj).__name__, ",".join(keys), bits(obj.score), bits(obj.bp),
        ",".join(bits(p) for p in obj.precisions), repr(obj.counts), repr(obj.totals),
        repr(obj.sys_len), repr(obj.ref_len), bits(obj.ratio), repr(obj.stats),
        repr(obj.signature), repr(str(obj)),
    ])

def report(cases):
    lines = [bleustream.KERNELS]
    for hyps, streams, keywords in cases:
        lines += [text(s) for s in bleustream.sentence_scores("bleu", hyps, streams, **keywords)]
        for i, hyp in enumerate(hyps):
            refs = [stream[i] for stream in streams]
            lines.append(text(bleustream.sentence_bleu(hyp, refs, **keywords)))
    return lines

if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    sys.stdout.buffer.write("\\n".join(report(cases)).encode("utf-8", "surrogatepass"))
"""


def test_the_pure_path_in_a_child_gives_the_samebits(tmp_path: Path) -> None:
    """Every score of ``sentence_scores`` and ``sentence_bleu``, by its bits
    and its text: this process (whichever path) against a child forced onto
    the pure path and a child left to choose (the compiled one if built)."""
    cases: list[tuple[list[str], list[list[str]], dict[str, Any]]] = []
    for i, keywords in enumerate(API_KEYWORDS):
        hyps, streams = Adversary(40 + i).corpus(40, 1 + i % 3)
        cases.append((hyps, streams, keywords))
    if real_data_present() and any(s.name == WMT17 for s in real_sets()):
        real_set = _wmt17()
        refs = [list(s[:300]) for s in read_refs(real_set)]
        cases.append((list(read_segments(real_set.hyps[0])[:300]), refs, {}))
        cases.append((list(read_segments(real_set.hyps[1])[:300]), refs, {"smooth_method": "none"}))
    data = tmp_path / "cases.json"
    # (lone surrogates survive JSON's escapes)
    data.write_text(json.dumps(cases), encoding="utf-8")
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "in_process"}
    exec(compile(CHILD, str(script), "exec"), namespace)
    here = "\n".join(namespace["report"](json.loads(data.read_text(encoding="utf-8"))))
    ours = here.encode("utf-8", "surrogatepass")
    root = ROOT
    pythonpath = os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])
    for value, kernels_name in (("1", "python"), ("", None)):
        proc = subprocess.run(
            [sys.executable, str(script), str(data)],
            env=child_env(BLEUSTREAM_PUREPYTHON=value, PYTHONPATH=pythonpath),
            capture_output=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        first, _, rest = proc.stdout.partition(b"\n")
        if kernels_name is not None:
            assert first.decode() == kernels_name
        else:
            assert first.decode() == ("compiled" if extension_files() else "python")
        assert rest == ours.partition(b"\n")[2], value
        assert rest.count(b"\n") > 900
