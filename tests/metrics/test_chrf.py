"""chrF and chrF++: hand-worked examples, and SacreBLEU 2.6's ``CHRF`` as the oracle.

The worked examples derive their n-gram counts and scores by hand in the
comments.  Everything else is compared with SacreBLEU: per-segment
statistics with ``_extract_corpus_statistics``, corpus scores with its
aggregation of its own statistics (to the bit), sentence scores with
``sentence_score``, on generated adversarial corpora and on the real sets.
"""

from __future__ import annotations

import argparse
import collections
import math
import random
import sys
from collections.abc import Sequence
from functools import cache, reduce
from typing import Any

import pytest
import sacrebleu
import sacrebleu.sacrebleu as sacrebleu_cli
from sacrebleu.metrics.chrf import CHRF

import bleustream
from bleustream.cli.parser import add_option
from bleustream.metrics import chrf
from bleustream.metrics.chrf import Settings
from bleustream.metrics.protocol import add_rows
from tests.conftest import RealSet, RealSystem, read_refs, read_segments
from tests.helpers.adversarial import ENTITY_PIECES, NOT_WHITESPACE, ODD_WHITESPACE, Adversary
from tests.helpers.oracle import oracle_chrf

Streams = Sequence[Sequence[str]]

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


oracle = oracle_chrf  # SacreBLEU's chrF with the same settings


def rows_of(settings: Settings, hyps: Sequence[str], streams: Streams) -> list[tuple]:
    """Our per-segment rows: references prepared, then the hypothesis counted."""
    prepare, count = chrf.prepare_refs(settings), chrf.count(settings)
    return [count(hyp, prepare([s[i] for s in streams])) for i, hyp in enumerate(hyps)]


def row_of(hyp: str, refs: Sequence[str], settings: Settings = chrf.DEFAULT_SETTINGS) -> tuple:
    return chrf.count(settings)(hyp, chrf.prepare_refs(settings)(refs))


def summed(rows: Sequence[Sequence[int]], settings: Settings) -> tuple:
    return reduce(add_rows, rows, (0,) * chrf.row_size(settings))


def same_float(ours: float, theirs: float) -> bool:
    return ours == theirs and math.copysign(1.0, ours) == math.copysign(1.0, theirs)


def float_problem(what: str, ours: float, theirs: float) -> list[str]:
    if abs(ours - theirs) > 1e-9:
        return [f"{what} differs: {ours!r} != SacreBLEU {theirs!r}"]
    if not same_float(ours, theirs):
        return [f"{what} within 1e-9 but not bit-identical: {ours!r} != SacreBLEU {theirs!r}"]
    return []


def corpus_problems(
    settings: Settings,
    hyps: Sequence[str],
    streams: Streams,
    sentences: int = 0,
    their_metric: CHRF | None = None,
    our_rows: Sequence[tuple] | None = None,
) -> list[str]:
    """Every way our statistics and scores differ from SacreBLEU's on a corpus.

    The first ``sentences`` segments are also scored as sentences against
    ``CHRF.sentence_score``.
    """
    metric = their_metric or oracle(settings)
    theirs = metric._extract_corpus_statistics(hyps, None if their_metric else streams)
    ours = list(our_rows) if our_rows is not None else rows_of(settings, hyps, streams)
    problems = []
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if list(a) != b or not all(type(x) is int for x in a):
            refs = [s[i][:60] for s in streams]
            problems.append(f"segment {i} {hyps[i][:60]!r} {refs!r}: {list(a)} != SacreBLEU {b}")
            if len(problems) >= 5:
                return problems
    total = summed(ours, settings)
    problems += float_problem(
        "corpus score",
        chrf.score(total, settings).score,
        metric._aggregate_and_compute(theirs).score,
    )
    for i in range(min(sentences, len(hyps))):
        refs = [s[i] for s in streams]
        problems += float_problem(
            f"sentence score {i}",
            chrf.sentence_score(ours[i], settings).score,
            oracle(settings).sentence_score(hyps[i], refs).score,
        )
    return problems


def settings_id(s: Settings) -> str:
    parts = [f"c{s.char_order}w{s.word_order}b{s.beta}"]
    parts += [name for name in ("lowercase", "whitespace", "eps_smoothing") if getattr(s, name)]
    return "-".join(parts)


# --------------------------------------------------------------------------
# worked examples (counted by hand)
# --------------------------------------------------------------------------


def test_cat_cats_by_hand() -> None:
    """chrF2 of "cat" against "cats", character n-grams up to 6.

    hyp  "cat":  1-grams c a t (3), 2-grams ca at (2), 3-gram cat (1), none above.
    ref "cats":  1-grams c a t s (4), 2-grams ca at ts (3), 3-grams cat ats (2),
                 4-gram cats (1), none above.
    matches: 3, 2, 1, then 0.  Order 4: the hypothesis has no 4-gram (0), the
    reference one.  Orders 5 and 6: the reference has none, so SacreBLEU
    counts no hypothesis n-grams either: (0, 0, 0).

    Effective order: orders 1-3 have n-grams on both sides.
      precision 3/3, 2/2, 1/1         -> mean 1
      recall    3/4, 2/3, 1/2         -> mean (27 + 24 + 18) / 36 / 3 = 23/36
      chrF2 = (1 + 4) P R / (4 P + R) = 5 (23/36) / (4 + 23/36) = 115/167
    """
    row = row_of("cat", ["cats"])
    assert row == (3, 4, 3, 2, 3, 2, 1, 2, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0)
    assert chrf.score(row, chrf.DEFAULT_SETTINGS).score == pytest.approx(100 * 115 / 167, 1e-12)


def test_cat_cats_eps_smoothing_by_hand() -> None:
    """The same row with epsilon smoothing: every order counts.

    Orders 1-3 (precision 1): F2 = 5 R / (4 + R) with R = 3/4, 2/3, 1/2:
    15/19, 5/7, 5/9.  Order 4: precision eps (no hypothesis 4-gram), recall
    0/1 = 0, so 5 * eps * 0 / (4 eps) = 0.  Orders 5-6: precision and recall
    eps, 5 eps^2 / (5 eps) = eps each.  chrF = 100 * sum / 6.
    """
    settings = Settings(eps_smoothing=True)
    row = row_of("cat", ["cats"], settings)
    expected = 100 * (15 / 19 + 5 / 7 + 5 / 9 + 2e-16) / 6
    assert chrf.score(row, settings).score == pytest.approx(expected, 1e-12)


def test_words_only_by_hand() -> None:
    """chrF2++ with no character n-grams: word unigrams and bigrams.

    hyp "the cat sat."           -> the cat sat .              (4 words)
    ref "the cat sat on the mat." -> the cat sat on the mat .  (7 words)
    unigrams: matches the (1, the reference has 2), cat, sat, . -> (4, 7, 4)
    bigrams:  hyp "the cat" "cat sat" "sat ."; ref "the cat" "cat sat"
              "sat on" "on the" "the mat" "mat ."          -> (3, 6, 2)
    P = (1 + 2/3) / 2 = 5/6, R = (4/7 + 1/3) / 2 = 19/42,
    chrF2 = 5 P R / (4 P + R) = (475/252) / (159/42) = 475/954.
    """
    settings = Settings(char_order=0, word_order=2)
    row = row_of("the cat sat.", ["the cat sat on the mat."], settings)
    assert row == (4, 7, 4, 3, 6, 2)
    assert chrf.label(settings) == "chrF2++"
    assert chrf.score(row, settings).score == pytest.approx(100 * 475 / 954, 1e-12)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("(hi)", ["(hi", ")"]),  # one mark only, the end first (SacreBLEU issue #124)
        ('"quoted', ['"', "quoted"]),
        ("end.", ["end", "."]),
        ("...", ["..", "."]),
        ("a , b", ["a", ",", "b"]),
        ("«guillemets»", ["«guillemets»"]),  # not ASCII punctuation: untouched
        ("x", ["x"]),
        ("!", ["!"]),
        ("  spaced\u3000out\t", ["spaced", "out"]),
    ],
)
def test_split_words_as_sacrebleu(line: str, words: list[str]) -> None:
    assert chrf.split_words(line) == words
    assert CHRF(word_order=2)._remove_punctuation(line) == words


def test_tie_goes_to_the_first_reference() -> None:
    """Two references with the same f-score (62.5) but different statistics.

    hyp "bbab" against "b": order 1 (4, 1, 1), nothing above (the reference
    has no 2-gram): P = 1/4, R = 1, F2 = 5 (1/4) / (4/4 + 1) = 0.625.
    Against "babb": orders 1-4 match 4/4, 3/3, 1/2 (bab), 0/1:
    P = R = (1 + 1 + 1/2 + 0) / 4 = 0.625, F2 = 0.625.  SacreBLEU keeps the
    first on a tie (strict ``>``).
    """
    short = (4, 1, 1) + (0,) * 15
    long = (4, 4, 4, 3, 3, 3, 2, 2, 1, 1, 1, 0) + (0,) * 6
    assert row_of("bbab", ["b"]) == short
    assert row_of("bbab", ["babb"]) == long
    assert chrf.score(short, chrf.DEFAULT_SETTINGS).score == 62.5
    assert chrf.score(long, chrf.DEFAULT_SETTINGS).score == 62.5
    assert row_of("bbab", ["b", "babb"]) == short
    assert row_of("bbab", ["babb", "b"]) == long


def test_all_zero_tie_keeps_the_first_reference() -> None:
    """No reference matches: every f-score is 0, the first reference's counts stay."""
    assert row_of("a", ["bbbb", "b"]) == (1, 4, 0, 0, 3, 0, 0, 2, 0, 0, 1, 0) + (0,) * 6
    assert row_of("a", ["b", "bbbb"]) == (1, 1, 0) + (0,) * 15


def test_the_best_reference_depends_on_beta_and_smoothing() -> None:
    """Why beta and the smoothing are score-only with one reference only
    (SCORE_ONLY_ONE_REF, not SCORE_ONLY): with several references they pick
    which reference's statistics a segment gets.

    hyp "abcdef" against "abc" (short: recall 1, precision 1/2, 2/5, 1/4)
    and "abcdefghijkl" (precision 1, recall 1/2 ... 1/7).  Recall-heavy
    chrF2 and chrF1 prefer "abc"; chrF0 (precision only) and epsilon
    smoothing (which charges "abc" for its empty orders 4-6) prefer the long one.
    """
    refs = ["abc", "abcdefghijkl"]
    short = (6, 3, 3, 5, 2, 2, 4, 1, 1) + (0,) * 9
    long = (6, 12, 6, 5, 11, 5, 4, 10, 4, 3, 9, 3, 2, 8, 2, 1, 7, 1)
    cases = {
        Settings(beta=2): short,
        Settings(beta=1): short,
        Settings(beta=0): long,
        Settings(eps_smoothing=True): long,
    }
    for settings, expected in cases.items():
        assert row_of("abcdef", refs, settings) == expected, settings
        assert (
            list(expected)
            == oracle(settings)._extract_corpus_statistics(["abcdef"], [[r] for r in refs])[0]
        )
    assert frozenset() == chrf.SCORE_ONLY
    assert frozenset({"beta", "eps_smoothing"}) == chrf.SCORE_ONLY_ONE_REF


def test_hypothesis_counts_are_shared_between_references() -> None:
    """The hypothesis n-grams are counted once and reused: a reference that
    stops matching early must not keep a later one from the higher orders."""
    for refs in (["xyz", "abcdefgh"], ["ab", "abcdefgh"], ["abcdefgh", "ab"], ["a", "b", "ba"]):
        theirs = oracle(chrf.DEFAULT_SETTINGS)._extract_corpus_statistics(
            ["abcdefgh"], [[r] for r in refs]
        )
        assert [list(row_of("abcdefgh", refs))] == theirs, refs


def test_prepared_references_are_shared_and_not_changed() -> None:
    """One preparation serves any number of hypotheses (systems), in any order."""
    settings = Settings(word_order=2)
    prepare, count = chrf.prepare_refs(settings), chrf.count(settings)
    refs = ["the cat sat on the mat", "a cat was on a mat"]
    prepared = prepare(refs)
    hyps = ["the cat", "on the mat the cat sat", "", "the the the", "the cat"]
    assert [count(h, prepared) for h in hyps] == [count(h, prepare(refs)) for h in hyps]


def _plain_orders(items: Sequence[Any], orders: int) -> list[tuple[list, dict]]:
    """Each order's n-grams, and those occurring more than once with their
    counts, by the plain rule (a slice per n-gram, then a Counter)."""
    out = []
    for n in range(1, orders + 1):
        grams = [tuple(items[i : i + n]) for i in range(len(items) - n + 1)]
        counts = collections.Counter(grams)
        out.append((grams, {g: c for g, c in counts.items() if c > 1}))
    return out


@pytest.mark.parametrize("alphabet", ["ab", "ab a", "abc", "aab b", "the cat sat on"])
def test_reference_repeats_are_those_of_the_plain_rule(alphabet: str) -> None:
    """Above the orders counted in full, only n-grams whose prefix repeats
    are counted: every order's repeated n-grams and counts, its distinct
    n-grams and its "mostly repeated" flag must still be the plain rule's,
    for characters and for words, on text that repeats at every order."""
    rng = random.Random(alphabet)
    settings = Settings(char_order=9, word_order=4, whitespace=True)
    prepare = chrf.py_prepare_refs(settings)  # the pure twin's prepared references
    for _ in range(150):
        ref = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        ((char_part, word_part),) = prepare([ref])
        for items, part, join in (
            (ref, char_part, "".join),
            (chrf.split_words(ref), word_part, None),
        ):
            plain = _plain_orders(items, len(part))
            for n, ((common, total, repeated, mostly), (grams, plain_repeated)) in enumerate(
                zip(part, plain), 1
            ):
                flat = {_flat(g, join): c for g, c in repeated.items()}
                assert flat == plain_repeated, (ref, n)
                assert total == len(grams), (ref, n)
                assert mostly == (2 * sum(plain_repeated.values()) > len(grams)), (ref, n)
                ours = {_flat(g, join) for g in common(_ours_grams(items, n, join))}
                assert ours == set(grams), (ref, n)


def _flat(gram: Any, join: Any) -> tuple:
    """An n-gram as prepared (a string, or nested pairs of words) as a tuple."""
    if join is not None:
        return tuple(gram)
    out: list[str] = []
    while isinstance(gram, tuple):
        gram, last = gram
        out.append(last)
    out.append(gram)
    return tuple(reversed(out))


def _ours_grams(items: Sequence[Any], n: int, join: Any) -> list:
    """Every n-gram of ``items`` in the prepared form, to query ``common`` with."""
    grams: list = list(items)
    for k in range(1, n):
        grams = (
            list(zip(grams, items[k:]))
            if join is None
            else list(map(str.__add__, grams, items[k:]))
        )
    return grams


def test_a_segment_needs_a_reference() -> None:
    with pytest.raises(ValueError, match="at least one reference"):
        chrf.prepare_refs(chrf.DEFAULT_SETTINGS)([])


def test_score_rejects_a_row_of_the_wrong_size() -> None:
    with pytest.raises(ValueError, match="18 expected"):
        chrf.score((1, 2, 3), chrf.DEFAULT_SETTINGS)


# --------------------------------------------------------------------------
# settings, options, names
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"char_order": 0, "word_order": 0},
        {"char_order": -1},
        {"word_order": -1},
        {"beta": -1},
        {"char_order": 2.0},
        {"beta": True},
        {"beta": 1001},
        {"char_order": 101},
        {"word_order": 101},
    ],
)
def test_settings_reject_nonsense(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        Settings(**kwargs)


def parser() -> argparse.ArgumentParser:
    """A parser of the metric's options, as the command line builds it."""
    p = argparse.ArgumentParser(exit_on_error=False)
    for option in chrf.OPTIONS:
        add_option(p, option)
    return p


def settings_of(argv: list[str]) -> Settings:
    return chrf.settings_from(vars(parser().parse_args(argv)))


def test_defaults_when_nothing_is_given() -> None:
    assert settings_of([]) == Settings() == chrf.settings_from({})
    assert {o.dest: o.default for o in chrf.OPTIONS} == {
        "chrf_char_order": 6,
        "chrf_word_order": 0,
        "chrf_beta": 2,
        "chrf_whitespace": False,
        "chrf_lowercase": False,
        "chrf_eps_smoothing": False,
    }


SACREBLEU_ARGV = [
    "-cc", "4", "-cw", "2", "--chrf-beta", "3",
    "--chrf-whitespace", "--chrf-lowercase", "--chrf-eps-smoothing",
]  # fmt: skip


def test_options_are_sacrebleus(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same flags mean the same to SacreBLEU's command line (same dests)."""
    monkeypatch.setattr(sys, "argv", ["sacrebleu", *SACREBLEU_ARGV])
    theirs = vars(sacrebleu_cli.parse_args())
    ours = vars(parser().parse_args(SACREBLEU_ARGV))
    assert ours == {dest: theirs[dest] for dest in ours}
    assert chrf.settings_from(ours) == Settings(4, 2, 3, True, True, True)
    long_flags = {flag for o in chrf.OPTIONS for flag in o.flags}
    assert long_flags == {
        "-cc", "--chrf-char-order", "-cw", "--chrf-word-order", "--chrf-beta",
        "--chrf-whitespace", "--chrf-lowercase", "--chrf-eps-smoothing",
    }  # fmt: skip


def test_boolean_options_can_be_turned_off() -> None:
    off = ["--no-chrf-whitespace", "--no-chrf-lowercase", "--no-chrf-eps-smoothing"]
    assert settings_of(off) == Settings()
    assert settings_of(["--chrf-lowercase", "--no-chrf-lowercase"]).lowercase is False


def test_help_states_every_default() -> None:
    for option in chrf.OPTIONS:
        assert "default" in option.help, option.flags


@pytest.mark.parametrize(
    "argv", [["-cc", "-1"], ["-cw", "101"], ["--chrf-beta", "1001"], ["-cc", "x"], ["-cc", "2.5"]]
)
def test_out_of_range_numbers_are_rejected(argv: list[str]) -> None:
    with pytest.raises(argparse.ArgumentError):
        parser().parse_args(argv)


def test_zero_total_order_is_refused_by_the_settings() -> None:
    """The settings check themselves (the command turns this into status 2)."""
    with pytest.raises(ValueError, match="orders cannot both be 0"):
        settings_of(["-cc", "0"])
    with pytest.raises(ValueError, match="cannot both be 0"):
        chrf.settings_from({"chrf_char_order": 0, "chrf_word_order": 0})
    assert settings_of(["-cc", "0", "-cw", "1"]) == Settings(char_order=0, word_order=1)


@pytest.mark.parametrize(
    ("settings", "name", "size"),
    [
        (Settings(), "chrF2", 18),
        (Settings(word_order=2), "chrF2++", 24),
        (Settings(word_order=1, beta=1), "chrF1+", 21),
        (Settings(char_order=3, beta=0), "chrF0", 9),
    ],
)
def test_label_and_row_size(settings: Settings, name: str, size: int) -> None:
    assert chrf.label(settings) == name
    assert chrf.row_size(settings) == size
    metric = oracle(settings)
    their_score = metric.corpus_score(["a b c"], [["a b d"]])
    assert their_score.name == name
    assert len(metric._extract_corpus_statistics(["a b c"], [["a b d"]])[0]) == size


@pytest.mark.parametrize(
    "settings",
    [Settings(), Settings(4, 2, 3, True, True, True), Settings(word_order=1, lowercase=True)],
    ids=settings_id,
)
@pytest.mark.parametrize("nrefs", [1, 2])
def test_signature_equals_sacrebleu(settings: Settings, nrefs: int) -> None:
    metric = oracle(settings)
    metric.corpus_score(["a b"], [["a b"]] * nrefs)
    theirs = metric.get_signature().format()
    theirs = theirs.replace(
        f"version:{sacrebleu.__version__}", f"version:bleustream-{bleustream.__version__}"
    )
    ours = chrf.signature(settings, nrefs)
    assert "|".join(f"{k}:{v}" for k, v in ours.items()) == theirs
    assert list(ours)[-1] == "version"


def test_signature_of_a_varying_number_of_references() -> None:
    assert chrf.signature(Settings(), "var")["nrefs"] == "var"


def test_record_fields() -> None:
    settings = Settings(char_order=2, word_order=1)
    row = (5, 6, 4, 4, 5, 2, 3, 3, 1)
    score = chrf.score(row, settings)
    assert score.row == row
    assert chrf.json_fields(score, settings) == {
        "char_hyp": [5, 4],
        "char_ref": [6, 5],
        "char_match": [4, 2],
        "word_hyp": [3],
        "word_ref": [3],
        "word_match": [1],
    }
    assert chrf.tsv_fields(score, settings) == [
        ("chrf", repr(score.score)),
        ("chrf_c1_hyp", "5"),
        ("chrf_c1_ref", "6"),
        ("chrf_c1_match", "4"),
        ("chrf_c2_hyp", "4"),
        ("chrf_c2_ref", "5"),
        ("chrf_c2_match", "2"),
        ("chrf_w1_hyp", "3"),
        ("chrf_w1_ref", "3"),
        ("chrf_w1_match", "1"),
    ]
    assert chrf.verbose(score, settings) == ""
    assert "word_hyp" not in chrf.json_fields(chrf.score(row[:6], Settings(2)), Settings(2))


def test_tsv_columns_depend_only_on_the_settings() -> None:
    settings = Settings(word_order=2)
    a = chrf.score((0,) * 24, settings)
    b = chrf.score(tuple(range(24)), settings)
    columns = [name for name, _ in chrf.tsv_fields(a, settings)]
    assert columns == [name for name, _ in chrf.tsv_fields(b, settings)]
    assert len(columns) == 1 + 24


# --------------------------------------------------------------------------
# differential: generated corpora
# --------------------------------------------------------------------------

DIFFERENTIAL_SETTINGS = [
    Settings(),
    Settings(word_order=2),
    Settings(word_order=1),
    Settings(char_order=0, word_order=2),
    Settings(char_order=8, word_order=3),
    Settings(char_order=10),
    Settings(whitespace=True),
    Settings(word_order=2, whitespace=True),
    Settings(eps_smoothing=True),
    Settings(word_order=2, eps_smoothing=True),
    Settings(lowercase=True),
    Settings(word_order=2, lowercase=True, whitespace=True),
    Settings(beta=0),
    Settings(beta=1, word_order=2),
    Settings(beta=3),
    Settings(beta=1000, eps_smoothing=True),
    Settings(3, 1, 0, True, True, True),
]


@pytest.mark.parametrize("settings", DIFFERENTIAL_SETTINGS, ids=settings_id)
@pytest.mark.parametrize("n_refs", [1, 2, 3, 4])
def test_generated_corpora(settings: Settings, n_refs: int) -> None:
    seed = 100 * n_refs + DIFFERENTIAL_SETTINGS.index(settings)
    hyps, streams = Adversary(seed).corpus(40, n_refs)
    assert corpus_problems(settings, hyps, streams, sentences=8) == []


@pytest.mark.parametrize("char_order", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("word_order", [0, 2])
def test_every_char_order(char_order: int, word_order: int) -> None:
    settings = Settings(char_order=char_order, word_order=word_order)
    hyps, streams = Adversary(char_order * 10 + word_order).corpus(40, 2)
    assert corpus_problems(settings, hyps, streams, sentences=4) == []


@pytest.mark.parametrize("n_refs", [1, 3])
def test_repeated_ngrams_on_both_sides(n_refs: int) -> None:
    """Text from a tiny alphabet repeats n-grams of every order on both sides,
    in every combination of counts: the clipped counts' fast paths (a side
    without repeats, common n-grams all single, the sum of the smaller
    counts) against SacreBLEU's plain loop."""
    rng = random.Random(n_refs)

    def line() -> str:
        return "".join(rng.choice("ab a") for _ in range(rng.randrange(0, 40)))

    hyps = [line() for _ in range(60)]
    streams = [[line() for _ in hyps] for _ in range(n_refs)]
    for settings in (Settings(), Settings(char_order=8, word_order=3), Settings(whitespace=True)):
        assert corpus_problems(settings, hyps, streams, sentences=60) == []


EDGE_SEGMENTS: list[tuple[str, list[str]]] = [
    ("", [""]),
    ("", ["a"]),
    ("a", [""]),
    ("", ["", ""]),
    ("a b", ["", "a b"]),
    (" ", ["  "]),
    ("\t\u3000", ["x"]),
    ("a", ["a"]),
    ("a", ["b"]),
    ("a b c", ["c b a"]),
    ("ab", ["ba", "ab"]),
    ("!!! ... ?!", ["!!!", "... ?!"]),
    ("( ) , . ; :", ["(),.;:"]),
    ("(hi) 'there' \"you\".", ["(hi) there you."]),
    ("-", ["-", "--"]),
    ("the the the the", ["the the"]),
    ("aaaaaaaa", ["aaa"]),
    ("abababab", ["ab", "babababa"]),
    ("ab ab ab, ab.", ["ab. ab, ab"]),
    ("a\u3000b\xa0c\u2028d", ["a b c d", "abcd"]),
    (" ".join(ODD_WHITESPACE).join("xy"), ["x y"]),
    ("a" + "".join(NOT_WHITESPACE) + "b", ["a b", "a\u200bb"]),
    ("«Hallo», sagte er — „Guten Tag“.", ["„Hallo“, sagte er: «Guten Tag»."]),
    ("我喜欢猫。", ["我 喜欢 猫 。", "我喜欢狗。"]),
    ("東京は日本の首都です", ["日本の首都は東京です"]),
    ("서울은 한국의 수도입니다.", ["한국의 수도는 서울입니다."]),
    (" ".join(ENTITY_PIECES), ["&amp; &quot;x&quot; &lt;b&gt;", "& amp ; & quot ;"]),
    ("İstanbul STRASSE ǅemal ΣΊΣΥΦΟΣ", ["i̇stanbul straße ǆemal σίσυφος"]),
    ("e\u0301cole naïve ﬁne", ["école naive fine"]),
]


@pytest.mark.parametrize(
    "settings",
    [
        Settings(),
        Settings(word_order=2),
        Settings(word_order=2, lowercase=True),
        Settings(whitespace=True, word_order=1),
        Settings(eps_smoothing=True, word_order=2),
        Settings(beta=0, word_order=2, whitespace=True),
    ],
    ids=settings_id,
)
def test_edge_segments(settings: Settings) -> None:
    problems = []
    for hyp, refs in EDGE_SEGMENTS:  # one segment at a time: each its own corpus
        problems += corpus_problems(settings, [hyp], [[r] for r in refs], sentences=1)
    width = max(len(refs) for _, refs in EDGE_SEGMENTS)
    padded = [(hyp, (refs * width)[:width]) for hyp, refs in EDGE_SEGMENTS]
    hyps = [hyp for hyp, _ in padded]
    streams = [[refs[k] for _, refs in padded] for k in range(width)]
    problems += corpus_problems(settings, hyps, streams)
    assert problems == []


def test_blank_corpus() -> None:
    """Nothing but empty and blank lines: every row is zero, and so is the score."""
    hyps = ["", " ", "\t", ""]
    streams = [["", "", " ", "\u3000"]]
    for settings in (Settings(), Settings(word_order=2, eps_smoothing=True)):
        assert corpus_problems(settings, hyps, streams, sentences=4) == []


@pytest.mark.parametrize("settings", [Settings(), Settings(word_order=2)], ids=settings_id)
def test_very_long_lines(settings: Settings) -> None:
    adversary = Adversary(7)
    pieces = adversary.pieces(3000)
    hyp = adversary.join(pieces)
    ref = adversary.join(adversary.mutate(pieces))
    repetitive = "ab ba " * 3000
    hyps = [hyp, repetitive, hyp[:5000], "x" * 20000]
    streams = [[ref, "ba ab " * 2500, hyp, "x" * 19999], [hyp[::-1], "ab", ref, "xy" * 100]]
    assert len(hyp) > 10000
    assert corpus_problems(settings, hyps, streams, sentences=1) == []


# --------------------------------------------------------------------------
# differential: the real data sets
# --------------------------------------------------------------------------


# chrF++ on the real data is checked on each set's first segments only:
# SacreBLEU's word n-grams make it the slowest oracle here.
PLUS_PLUS_SEGMENTS = 500


@cache
def real_references(real_set: RealSet, limit: int | None) -> tuple[tuple[str, ...], ...]:
    return tuple(stream[:limit] for stream in read_refs(real_set))


@cache
def real_oracle(real_set: RealSet, settings: Settings, limit: int | None) -> CHRF:
    """SacreBLEU with the set's references cached, as its command line does."""
    return oracle(settings, references=real_references(real_set, limit))


@cache
def real_prepared(real_set: RealSet, settings: Settings, limit: int | None) -> tuple:
    """Our prepared references of a set, shared by all its systems."""
    prepare = chrf.prepare_refs(settings)
    return tuple(map(prepare, zip(*real_references(real_set, limit))))


def check_real_system(
    real_system: RealSystem, settings: Settings, limit: int | None = None
) -> None:
    real_set = real_system.real_set
    hyps = read_segments(real_system.hyp)[:limit]
    count = chrf.count(settings)
    prepared = real_prepared(real_set, settings, limit)
    assert len(prepared) == len(hyps)
    problems = corpus_problems(
        settings,
        hyps,
        real_references(real_set, limit),
        their_metric=real_oracle(real_set, settings, limit),
        our_rows=[count(hyp, refs) for hyp, refs in zip(hyps, prepared)],
    )
    assert problems == [], real_system.id


@pytest.mark.real_systems(per_set=2)
def test_real_data_chrf(real_system: RealSystem) -> None:
    check_real_system(real_system, Settings())


@pytest.mark.real_systems(per_set=1)
def test_real_data_chrf_plus_plus(real_system: RealSystem) -> None:
    check_real_system(real_system, Settings(word_order=2), limit=PLUS_PLUS_SEGMENTS)
