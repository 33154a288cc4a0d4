"""The compiled TER kernel against the pure search, compared exactly.

``bleustream._native._kernels.count_edits`` (``_native/ter.c``) must return what
``bleustream.metrics.ter_search.py_count_edits`` returns, on every
input: hand-made edge cases (empty sides, identical, reversed, lone
surrogates, lengths far apart), repetitive text that reaches the
1000-candidate limit, segments of more than 64 and 1000 words and one
past ``MAX_EXACT_CELLS``, the generated pairs of ``tests/metrics/test_ter.py``,
the adversarial corpora (``tests/helpers/adversarial.py``), the real WMT/TED sets
where present and Hypothesis word lists from a small vocabulary.  Each
comparison is made twice: on the kernel's default path and with its
third argument ``max_exact_cells`` set to 0 (the pure module's
``MAX_EXACT_CELLS`` set to 0 too), where the beam-limited DP does all the
work.  The pure module's rarer paths are counted, so that equality means
something for them.

The extension is loaded directly, so these comparisons run in the
pure-Python run of the suite too; they are skipped only where it was not
built.  Last, the command line: ``bleustream -m ter`` writes the same
bytes with and without ``BLEUSTREAM_PUREPYTHON=1``.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustream import kernels
from bleustream.metrics import ter, ter_search
from tests.conftest import REAL_DATA_MISSING, RealSet, read_refs, read_segments, real_sets
from tests.helpers.adversarial import Adversary
from tests.helpers.native import NATIVE as N
from tests.helpers.native import child_env, needs_native
from tests.metrics.test_ter import ALL_SETTINGS, adversarial_corpus, edge_pairs, mutated, word_pairs

pytestmark = needs_native

Pair = tuple[Sequence[str], Sequence[str]]


@contextmanager
def _pure_beam_only() -> Iterator[None]:
    """The pure search with its exact distance off, as ``max_exact_cells=0``."""
    saved = ter_search.MAX_EXACT_CELLS
    ter_search.MAX_EXACT_CELLS = 0
    try:
        yield
    finally:
        ter_search.MAX_EXACT_CELLS = saved


def problems(pairs: Sequence[Pair], beam_only: bool = True) -> list[str]:
    """The pairs whose compiled count differs from the pure one (or is not
    an int), on the default path and, with ``beam_only``, on the beam DP alone."""
    assert N is not None
    out = []
    for hyp, ref_words in pairs:
        ref = ter_search.prepare_reference(ref_words)
        modes: list[tuple[tuple[Any, ...], bool]] = [((), False)]
        if beam_only:
            modes.append(((0,), True))
        for extra, pure_beam in modes:
            got = N.count_edits(hyp, ref, *extra)
            if pure_beam:
                with _pure_beam_only():
                    want = ter_search.py_count_edits(hyp, ref)
            else:
                want = ter_search.py_count_edits(hyp, ref)
            if type(got) is not int or got != want:
                out.append(
                    f"{got!r} != pure {want} (max_exact_cells={extra or 'default'}): "
                    f"{len(hyp)} words {' '.join(hyp)[:80]!r} / {len(ref_words)} words "
                    f"{' '.join(ref_words)[:80]!r}"
                )
    return out[:3]


# -- hand-made cases --------------------------------------------------------

ODD_WORDS = ["a", "b", "", " ", "\ud800", "\udfff", "\udc00\ud800", "\U0001f600", "e\u0301", "é"]


def edge_cases() -> list[Pair]:
    words = [f"w{i}" for i in range(70)]
    rng = random.Random(1)
    out: list[Pair] = [
        ([], []),
        (["a"], []),
        ([], ["a"]),
        (["a", "b", "c"], []),
        ([], ["a", "b", "c"]),
        (["a"], ["a"]),
        (["a"], ["b"]),
        (["\ud800"], ["\ud800"]),
        (["\ud800"], ["\udfff"]),
        (ODD_WORDS, ODD_WORDS),
        (ODD_WORDS, ODD_WORDS[::-1]),
        (ODD_WORDS[5:] + ODD_WORDS[:5], ODD_WORDS),
        (list("abcdef"), list("abcdef")),
        (list("abcdef"), list("fedcba")),
        (list("xyz"), list("abc")),  # nothing in common
        (["a"] * 30, ["a"] * 40),
        (["a"] * 3, ["b"] * 200),  # 66 times longer: SacreBLEU widens the beam
        (["b"] * 200, ["a", "b", "a"]),
        (words, words),
        (words, words[::-1]),  # reversed, over 64 words
        (words[35:] + words[:35], words),
        (words[:10] + words[40:50] + words[10:40] + words[50:], words),
        (words[:64], words[:65]),  # 64 and 65 bits
        (words[:65], words[:64]),
        ([*words[:63], "x"], words[:64]),
        (words[:128], [*words[:127], "x"]),
    ]
    # two words only: the candidate limit
    for n in (30, 35, 40, 60, 100):
        out.append(([rng.choice("ab") for _ in range(n)], [rng.choice("ab") for _ in range(n)]))
    # many equal shifts: every word the same but one
    out.append((["a"] * 20 + ["b"] + ["a"] * 20, ["b"] + ["a"] * 41))
    return out


def test_edge_cases(paths: dict[str, int]) -> None:
    assert not problems(edge_cases())
    assert paths["limit"] and paths["beam trace"] and paths["beam candidate"], paths


def test_the_generated_pairs_of_test_ter(paths: dict[str, int]) -> None:
    """tests/metrics/test_ter.py's pairs: small vocabularies, shifts, the beam's edges."""
    pairs: list[Pair] = [*word_pairs(seed=1, n=250, max_len=30), *edge_pairs(seed=9)]
    pairs += word_pairs(seed=2, n=40, max_len=90)  # over 64 words
    assert not problems(pairs)
    assert all(paths.values()), paths


def test_long_repetitive_segments(paths: dict[str, int]) -> None:
    """100 to 1100 words from a few words each: many rounds, the candidate
    limit, the beam-limited trace."""
    pairs: list[Pair] = []
    for seed, n in ((4, 120), (10, 300), (11, 1100)):
        rng = random.Random(seed)
        vocab = ["a", "b", "c", "d", "e", "f", "g", "h"][: 2 + seed % 6]
        ref = [rng.choice(vocab) for _ in range(n)]
        pairs.append((mutated(rng, ref, [*vocab, "z"]), ref))
    rng = random.Random(5)
    ref = [rng.choice("abcd") for _ in range(300)]
    hyp = ref[:100] + ref[108:140] + ref[100:108] + ref[140:200] + ["z"] + ref[201:250] + ref[252:]
    pairs.append((hyp, ref))
    assert not problems(pairs)
    assert paths["limit"] and paths["beam trace"] and paths["rounds"] > 10, paths


def _block_moves(rng: random.Random, ref: list[str], moves: int) -> list[str]:
    hyp = list(ref)
    for _ in range(moves):
        start = rng.randrange(len(hyp) - 10)
        block = hyp[start : start + rng.randint(1, 8)]
        del hyp[start : start + len(block)]
        target = rng.randint(max(0, start - 40), min(len(hyp), start + 40))
        hyp[target:target] = block
    return hyp


def test_segments_of_2000_words() -> None:
    """2,000 words on both sides (32 blocks of 64 bits), edited or with
    blocks moved: many rounds of shifts; and against a short segment."""
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(300)]
    ref = [rng.choice(vocab) for _ in range(2000)]
    pairs: list[Pair] = [
        (mutated(rng, ref, [*vocab, "x"]), ref),
        (_block_moves(rng, ref, 20), ref),
        (ref[:30], ref),
        (ref, ref[-30:]),
    ]
    assert not problems(pairs[:1] + pairs[2:])
    assert not problems(pairs[1:2], beam_only=False)  # the pure beam DP: seconds
    assert N is not None
    # the kernel's beam DP alone, against the pure default path
    hyp, ref = pairs[1][0], ter_search.prepare_reference(pairs[1][1])
    assert N.count_edits(hyp, ref, 0) == ter_search.py_count_edits(hyp, ref)


@pytest.mark.slow
def test_past_max_exact_cells(paths: dict[str, int]) -> None:
    """4,097 by 4,097 words, just past ``MAX_EXACT_CELLS``: the pure search
    (and the kernel, by default) runs the beam-limited DP only."""
    assert 4097 * 4097 > ter_search.MAX_EXACT_CELLS >= 4096 * 4096
    rng = random.Random(8)
    vocab = [f"w{i}" for i in range(500)]
    ref = [rng.choice(vocab) for _ in range(4097)]
    hyp = list(ref)
    hyp[100:108], hyp[130:138] = hyp[130:138], hyp[100:108]
    hyp[2000] = "unknown"
    assert not problems([(hyp, ref)], beam_only=False)
    assert paths["beam trace"] and paths["beam candidate"], paths


# -- corpora ------------------------------------------------------------------


def _corpus_pairs(
    the_settings: ter.Settings, hyps: Sequence[str], streams: Sequence[Sequence[str]]
) -> list[Pair]:
    """(hypothesis words, reference words) as TER tokenizes them."""
    preprocess = ter._preprocess(the_settings)
    tokenize = ter._tokenizer(the_settings)
    pairs: list[Pair] = []
    for i, hyp in enumerate(hyps):
        words = preprocess(hyp)
        for stream in streams:
            pairs.append((words, tokenize(tokenize(stream[i].rstrip()).rstrip()).split()))
    return pairs


@pytest.mark.parametrize("the_settings", ALL_SETTINGS[::5], ids=str)
def test_adversarial_corpora(the_settings: ter.Settings) -> None:
    for seed, n_refs in ((2024, 1), (7, 2), (8, 3)):
        hyps, streams = adversarial_corpus(seed, 60, n_refs)
        assert not problems(_corpus_pairs(the_settings, hyps, streams))
    adversary = Adversary(99)
    lines = list(adversary.lines(200, line_breaks=True))
    pairs = _corpus_pairs(the_settings, lines[::2], [lines[1::2]])
    assert not problems(pairs + [(b, a) for a, b in pairs])


REAL_LINES = 1500
REAL_SYSTEMS = 2


def test_real_data(real_set: RealSet) -> None:
    streams = read_refs(real_set)
    systems = [read_segments(hyp) for hyp in real_set.hyps[:REAL_SYSTEMS]]
    lines = min(REAL_LINES, *map(len, streams), *map(len, systems))
    all_settings = [ter.Settings()]
    if real_set.trg in ("ja", "zh"):
        all_settings.append(ter.Settings(asian_support=True))
    compared = 0
    for the_settings in all_settings:
        for system in systems:
            pairs = _corpus_pairs(the_settings, system[:lines], [s[:lines] for s in streams])
            assert not problems(pairs, beam_only=False), real_set.name
            compared += len(pairs)
    # the beam DP alone on a slice
    pairs = _corpus_pairs(ter.Settings(), systems[0][:100], [streams[0][:100]])
    assert not problems(pairs)
    assert compared >= lines


# -- Hypothesis -------------------------------------------------------------

WORDS = st.sampled_from(["a", "b", "c", "d", "\ud800", "\udfff", "x\ud800", "\U0001f600", "é"])
EXAMPLES = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def shifted(draw: st.DrawFn) -> Pair:
    """A reference and the same words with blocks moved and a few edited."""
    ref = draw(st.lists(WORDS, min_size=1, max_size=80))
    hyp = list(ref)
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(0, len(hyp) - 1))
        block = hyp[start : start + draw(st.integers(1, 12))]
        del hyp[start : start + len(block)]
        target = draw(st.integers(0, len(hyp)))
        hyp[target:target] = block
    for _ in range(draw(st.integers(0, 3))):
        if hyp:
            hyp[draw(st.integers(0, len(hyp) - 1))] = draw(WORDS)
    return (hyp, ref) if draw(st.booleans()) else (ref, hyp)


@EXAMPLES
@given(st.lists(WORDS, max_size=50), st.lists(WORDS, max_size=50))
def test_any_word_lists(hyp: list[str], ref: list[str]) -> None:
    assert not problems([(hyp, ref)])


@EXAMPLES
@given(shifted())
def test_shifted_word_lists(pair: Pair) -> None:
    assert not problems([pair])


# -- the arguments ------------------------------------------------------------


def test_the_arguments_are_checked() -> None:
    assert N is not None
    ref = ter_search.prepare_reference(["a", "b"])
    f = N.count_edits
    bad: list[tuple[type[BaseException], tuple[Any, ...]]] = [
        (TypeError, ()),
        (TypeError, (["a"],)),
        (TypeError, (["a"], ref, 0, 1)),
        (TypeError, (3, ref)),
        (TypeError, (["a", 3], ref)),
        (TypeError, ([b"a"], ref)),
        (TypeError, (["a"], object())),
        (TypeError, (["a"], ref, "0")),
        (TypeError, (["a"], ter_search.Reference(vocab=[], ids=(0,)))),  # type: ignore[arg-type]
        (TypeError, (["a"], ter_search.Reference(vocab={"a": 0}, ids=3))),  # type: ignore[arg-type]
        (TypeError, (["a"], ter_search.Reference(vocab={"a": 0}, ids=("0",)))),  # type: ignore[arg-type]
        (ValueError, (["a"], ter_search.Reference(vocab={"a": 0}, ids=(1,)))),
        (ValueError, (["a"], ter_search.Reference(vocab={"a": 0}, ids=(-1,)))),
        (ValueError, (["a"], ter_search.Reference(vocab={"a": 0}, ids=(2**70,)))),
        (ValueError, (["a"], ter_search.Reference(vocab={"a": 5}, ids=(0,)))),
        (ValueError, (["a"], ter_search.Reference(vocab={"a": 0, "b": 1}, ids=(0,)))),
    ]
    for error, args in bad:
        with pytest.raises(error):
            f(*args)

    # any sequence of str (subclasses too); max_exact_cells of any size
    class Word(str):
        pass

    assert f(("a", "b"), ref) == f(["a", "b"], ref) == f([Word("a"), Word("b")], ref) == 0
    assert f(["b", "a"], ref, 10**30) == f(["b", "a"], ref, -(10**30)) == 1
    assert f(["a", "b", "c"], ref, True) == 1


def test_no_reference_is_leaked() -> None:
    assert N is not None
    hyp = ["word", "other", "\ud800x", "third"]
    ref = ter_search.prepare_reference(["other", "word", "third", "\ud800x", "fourth"])
    objects = [hyp, ref, ref.vocab, ref.ids, *hyp]  # not the ids: small ints are shared
    before = [sys.getrefcount(o) for o in objects]
    for _ in range(200):
        N.count_edits(hyp, ref)
        N.count_edits(hyp, ref, 0)
        with pytest.raises(TypeError):
            N.count_edits([*hyp, 1], ref)
    assert [sys.getrefcount(o) for o in objects] == before


def test_a_reference_builds_its_tables_on_first_use() -> None:
    ref = ter_search.prepare_reference(["a", "b", "a", "\ud800"])
    assert ref.vocab == {"a": 0, "b": 1, "\ud800": 2}
    assert ref.ids == (0, 1, 0, 2)
    assert ref.unknown == 3
    assert ref.peq == (0b101, 0b10, 0b1000, 0)
    assert ref.positions == ((0, 2), (1,), (3,), ())
    assert ref == ter_search.prepare_reference(["a", "b", "a", "\ud800"])


# -- the choice, and the command line ----------------------------------------


def test_ter_counts_with_the_kernels_chosen() -> None:
    if kernels.native is None:
        assert ter_search.count_edits is ter_search.py_count_edits
    else:
        assert ter_search.count_edits is kernels.native.count_edits
    assert ter.count_edits is ter_search.count_edits


def test_the_command_line_writes_the_same_bytes_on_both_paths() -> None:
    """``bleustream -m ter`` with every segment's score, on the real set
    with the most references, with and without BLEUSTREAM_PUREPYTHON=1."""
    sets = real_sets()
    if not sets:
        pytest.skip(REAL_DATA_MISSING)
    real_set = max(sets, key=lambda s: (len(s.refs), -s.lines))
    args = [sys.executable, "-m", "bleustream", "-m", "ter", "-sl", "-i", str(real_set.hyps[0])]
    outputs = [
        subprocess.run(
            [*args, "--", *map(str, real_set.refs)],
            env=child_env(BLEUSTREAM_PUREPYTHON=value),
            capture_output=True,
            check=True,
        ).stdout
        for value in ("1", "")
    ]
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"segment") >= real_set.lines
    assert b"TER|nrefs:" in outputs[0]
