"""BLEU arithmetic: hand-worked examples, Stats algebra, and SacreBLEU's compute_bleu.

The expected values of the worked examples are derived by hand in the
comments (n-gram by n-gram), never computed by bleustream.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sacrebleu

import bleustream
import bleustream.kernels
from bleustream.metrics import bleu
from bleustream.metrics.bleu import Settings, sentence_settings, signature_fields
from bleustream.metrics.ngrams import closest_ref_len
from bleustream.output.records import format_signature
from tests.helpers.adversarial import Adversary
from tests.helpers.bleu_stats import Stats, compute_bleu, segment_stats
from tests.helpers.native import NATIVE
from tests.helpers.oracle import (
    SMOOTHINGS,
    BleuStream,
    oracle_bleu,
    score_mismatches,
    segment_counter,
    smoothing_id,
)

NONE_TOK = Settings(tokenize="none", smooth_method="none")


def stats_of(hyp: str, refs: list[str], settings: Settings) -> Stats:
    return segment_counter(settings)(hyp, refs)


# --------------------------------------------------------------------------
# worked examples
# --------------------------------------------------------------------------


def test_die_katze() -> None:
    """Koehn's textbook example: two references, a repeated "die".

    hyp  die die die katze sitzt auf dem baum                 (8 tokens)
    ref1 die katze sitzt seit heute morgen auf dem toten baum (10)
    ref2 die katze sitzt auf dem toten baum                   (7)

    1-grams: die x3 clipped to 1, katze sitzt auf dem baum      -> 6/8
    2-grams: die katze, katze sitzt, sitzt auf, auf dem        -> 4/7
             (die die x2 and dem baum match nothing)
    3-grams: die katze sitzt, katze sitzt auf, sitzt auf dem    -> 3/6
    4-grams: die katze sitzt auf, katze sitzt auf dem          -> 2/5
    closest reference length: |8-10| = 2, |8-7| = 1 -> 7; c > r so BP = 1
    BLEU = (6/8 * 4/7 * 3/6 * 2/5) ** (1/4) = (3/35) ** (1/4) = 0.54108...
    """
    hyp = "die die die katze sitzt auf dem baum"
    refs = [
        "die katze sitzt seit heute morgen auf dem toten baum",
        "die katze sitzt auf dem toten baum",
    ]
    stats = stats_of(hyp, refs, NONE_TOK)
    assert (stats.hyp_len, stats.ref_len) == (8, 7)
    assert stats.matches == [6, 4, 3, 2]
    assert stats.totals == [8, 7, 6, 5]
    assert stats.segments == 1
    score = compute_bleu(stats, NONE_TOK)
    assert score.bp == 1.0
    assert score.precisions == pytest.approx((75.0, 400 / 7, 50.0, 40.0), abs=1e-12)
    assert score.score == pytest.approx(100 * (3 / 35) ** 0.25, abs=1e-9)
    assert round(score.score, 2) == 54.11


NASA_REF = "The NASA Opportunity rover is battling a massive dust storm on Mars."


def test_nasa_rover() -> None:
    """13a splits the final period: the reference has 13 tokens, the hypothesis 11.

    hyp  A NASA rover is fighting a massive storm on Mars .
    ref  The NASA Opportunity rover is battling a massive dust storm on Mars .

    1-grams: NASA rover is a massive storm on Mars .  ("A", "fighting" miss) -> 9/11
    2-grams: rover is, a massive, storm on, on Mars, Mars .                 -> 5/10
    3-grams: storm on Mars, on Mars .                                       -> 2/9
    4-grams: storm on Mars .                                                -> 1/8
    BP = exp(1 - 13/11) = exp(-2/11) = 0.8337...
    BLEU = BP * (9/11 * 5/10 * 2/9 * 1/8) ** (1/4) = BP * (1/88) ** (1/4) = 0.2722...
    """
    settings = Settings(tokenize="13a", smooth_method="none")
    stats = stats_of("A NASA rover is fighting a massive storm on Mars.", [NASA_REF], settings)
    assert (stats.hyp_len, stats.ref_len) == (11, 13)
    assert stats.matches == [9, 5, 2, 1]
    assert stats.totals == [11, 10, 9, 8]
    score = compute_bleu(stats, settings)
    assert round(score.bp, 3) == 0.834
    assert score.bp == pytest.approx(math.exp(-2 / 11), abs=1e-15)
    expected = 100 * math.exp(-2 / 11) * (1 / 88) ** 0.25
    assert score.score == pytest.approx(expected, abs=1e-9)
    assert round(score.score, 1) == 27.2
    assert score.ratio == pytest.approx(11 / 13)


def test_nasa_rover_no_four_gram_match() -> None:
    """hyp The Opportunity rover is combating a big sandstorm on Mars .

    1-grams: The Opportunity rover is a on Mars .            -> 8/11
    2-grams: Opportunity rover, rover is, on Mars, Mars .    -> 4/10
    3-grams: Opportunity rover is, on Mars .                 -> 2/9
    4-grams: none ("sandstorm on Mars ." is not "storm on Mars .") -> 0/8
    Without smoothing the geometric mean has a zero factor: BLEU = 0.
    """
    settings = Settings(tokenize="13a", smooth_method="none")
    hyp = "The Opportunity rover is combating a big sandstorm on Mars."
    stats = stats_of(hyp, [NASA_REF], settings)
    assert stats.matches == [8, 4, 2, 0]
    assert stats.totals == [11, 10, 9, 8]
    assert compute_bleu(stats, settings).score == 0.0
    # exp smoothing (the default) gives the 4-gram precision 100 / (2 * 8) instead.
    smoothed = compute_bleu(stats, Settings(tokenize="13a"))
    assert smoothed.precisions[3] == 100 / 16
    expected = 100 * math.exp(-2 / 11) * (8 / 11 * 4 / 10 * 2 / 9 * 1 / 16) ** 0.25
    assert smoothed.score == pytest.approx(expected, abs=1e-9)


def test_papineni_clipping() -> None:
    """Papineni et al. (2002): "the the the the the the the".

    ref1 The cat is on the mat.       (6 tokens without tokenization)
    ref2 There is a cat on the mat.   (7 tokens)
    Case-sensitive, "the" occurs once in each reference ("The" differs),
    so the modified unigram precision is 1/7; lowercased, ref1 has it
    twice: 2/7, the paper's value.  No bigram "the the" in any reference.
    Closest reference length to 7: ref2's 7.
    """
    hyp = "the the the the the the the"
    refs = ["The cat is on the mat.", "There is a cat on the mat."]
    cased = stats_of(hyp, refs, NONE_TOK)
    assert (cased.hyp_len, cased.ref_len) == (7, 7)
    assert cased.matches == [1, 0, 0, 0]
    assert cased.totals == [7, 6, 5, 4]
    lowered = stats_of(hyp, refs, Settings(tokenize="none", lowercase=True))
    assert lowered.matches == [2, 0, 0, 0]
    assert compute_bleu(lowered, NONE_TOK).precisions[0] == pytest.approx(100 * 2 / 7)
    # With 13a the period is a token: ref1 has 7 tokens, ref2 8; still 2/7.
    tok13a = stats_of(hyp, refs, Settings(tokenize="13a", lowercase=True))
    assert (tok13a.ref_len, tok13a.matches[0]) == (7, 2)


@pytest.mark.parametrize(
    ("hyp_len", "ref_lens", "expected"),
    [
        (5, [4, 6], 4),  # equal distance: the shorter
        (5, [6, 4], 4),  # in either order
        (5, [6, 4, 5], 5),  # an exact match wins
        (4, [2, 6, 6, 2], 2),
        (10, [7, 13, 8], 8),
        (0, [1, 3], 1),
        (0, [0, 2], 0),
        (3, [1, 5], 1),
        (7, [9], 9),
    ],
)
def test_closest_ref_len(hyp_len: int, ref_lens: list[int], expected: int) -> None:
    assert closest_ref_len(hyp_len, ref_lens) == expected
    # and the same through segment_stats, with single-letter tokens
    hyp = ["x"] * hyp_len
    refs = [["y"] * n for n in ref_lens]
    assert segment_stats(hyp, refs, 4).ref_len == expected


def test_tie_through_the_scorer_and_brevity_penalty() -> None:
    """hyp "a b c d e" (5), refs of 4 and 6 tokens: r = 4 < c = 5, so BP = 1."""
    scorer = BleuStream(Settings(tokenize="13a"))
    stats = scorer.add("a b c d e", ["a b c d", "a b c d e f"])
    assert (stats.hyp_len, stats.ref_len) == (5, 4)
    assert scorer.score().bp == 1.0


def test_brevity_penalty_hand_computed() -> None:
    """hyp "a b c" against "a b c d e": c = 3, r = 5, BP = exp(1 - 5/3) = exp(-2/3).

    Every n-gram matches (3/3, 2/2, 1/1) but there is no 4-gram (0/0): the
    corpus score is 0 (a missing order counts as log 0), while with
    effective order the mean runs over orders 1-3 only: BLEU = 100 * BP.
    """
    settings = Settings(tokenize="13a")
    stats = stats_of("a b c", ["a b c d e"], settings)
    assert stats.matches == [3, 2, 1, 0]
    assert stats.totals == [3, 2, 1, 0]
    corpus = compute_bleu(stats, settings)
    assert corpus.bp == pytest.approx(0.513417119032592, abs=1e-15)
    assert corpus.bp == pytest.approx(math.exp(-2 / 3), abs=1e-15)
    assert corpus.score == 0.0
    sentence = compute_bleu(stats, sentence_settings(settings))
    assert sentence.score == pytest.approx(100 * math.exp(-2 / 3), abs=1e-9)
    assert round(sentence.score, 2) == 51.34


def test_empty_hypothesis() -> None:
    """No hypothesis tokens: BP = 0 (sys_len = 0 < ref_len), no matches, BLEU = 0."""
    stats = stats_of("", ["a b"], Settings())
    assert (stats.hyp_len, stats.ref_len, stats.matches, stats.totals) == (0, 2, [0] * 4, [0] * 4)
    score = compute_bleu(stats, Settings())
    assert (score.score, score.bp, score.ratio) == (0.0, 0.0, 0.0)


def test_settings_validation() -> None:
    with pytest.raises(ValueError):
        Settings(tokenize="moses")
    with pytest.raises(ValueError):
        Settings(smooth_method="add-one")
    with pytest.raises(ValueError):
        Settings(max_order=0)
    with pytest.raises(ValueError):
        Settings(max_order=101)  # the command line's bound
    with pytest.raises(ValueError):
        Settings(smooth_value=0.5)  # exp takes no value
    with pytest.raises(ValueError):
        Settings(smooth_method="floor", smooth_value=-0.1)
    with pytest.raises(ValueError):
        Settings(smooth_method="floor", smooth_value=float("nan"))
    with pytest.raises(ValueError):
        Settings(smooth_method="add-k", smooth_value=1_000_001)
    with pytest.raises(ValueError):
        compute_bleu(Stats.zero(3), Settings())  # order 3 statistics, order 4 settings
    assert Settings(smooth_method="floor").effective_smooth_value == 0.1
    assert Settings(smooth_method="add-k").effective_smooth_value == 1
    assert Settings(smooth_method="add-k", smooth_value=0.5).effective_smooth_value == 0.5
    assert Settings(smooth_method="exp").effective_smooth_value is None


def test_segment_counter_needs_a_reference() -> None:
    with pytest.raises(ValueError):
        segment_counter(Settings())("a b", [])


# --------------------------------------------------------------------------
# Stats
# --------------------------------------------------------------------------


def _some_stats(seed: int, max_order: int = 4) -> list[Stats]:
    rng = random.Random(seed)
    out = []
    for _ in range(50):
        n = rng.randint(0, 30)
        totals = [max(n - k, 0) for k in range(max_order)]
        out.append(Stats(n, rng.randint(0, 30), [rng.randint(0, t) for t in totals], totals, 1))
    return out


def test_stats_add_is_the_sum_of_segments() -> None:
    parts = _some_stats(1)
    total = Stats.zero(4)
    for p in parts:
        total = total + p
    assert total.hyp_len == sum(p.hyp_len for p in parts)
    assert total.ref_len == sum(p.ref_len for p in parts)
    assert total.matches == [sum(p.matches[k] for p in parts) for k in range(4)]
    assert total.totals == [sum(p.totals[k] for p in parts) for k in range(4)]
    assert total.segments == len(parts)


def test_stats_add_does_not_mutate_and_iadd_does() -> None:
    a = Stats(3, 4, [2, 1, 0, 0], [3, 2, 1, 0], 1)
    b = Stats(5, 5, [5, 4, 3, 2], [5, 4, 3, 2], 1)
    a_before = Stats(3, 4, [2, 1, 0, 0], [3, 2, 1, 0], 1)
    c = a + b
    assert a == a_before
    assert c == Stats(8, 9, [7, 5, 3, 2], [8, 6, 4, 2], 2)
    assert c.matches is not a.matches and c.totals is not a.totals
    alias = a
    alias_matches = a.matches
    a += b
    assert a is alias  # in place
    assert a.matches is alias_matches
    assert a == Stats(8, 9, [7, 5, 3, 2], [8, 6, 4, 2], 2)
    assert b == Stats(5, 5, [5, 4, 3, 2], [5, 4, 3, 2], 1)


def test_stats_mismatched_orders_raise() -> None:
    a, b = Stats.zero(4), Stats.zero(3)
    with pytest.raises(ValueError):
        a + b
    with pytest.raises(ValueError):
        a += b
    with pytest.raises(TypeError):
        Stats.zero(4) + 1  # type: ignore[operator]


def test_stats_zero() -> None:
    z = Stats.zero(6)
    assert (z.hyp_len, z.ref_len, z.matches, z.totals, z.segments) == (0, 0, [0] * 6, [0] * 6, 0)
    assert z.max_order == 6
    z.matches[0] = 1
    assert Stats.zero(6).matches == [0] * 6  # no shared default list


def test_stats_dict_round_trip() -> None:
    s = Stats(12, 13, [9, 5, 2, 1], [11, 10, 9, 8], 3)
    d = s.to_dict()
    assert d == {
        "hyp_len": 12,
        "ref_len": 13,
        "counts": [9, 5, 2, 1],
        "totals": [11, 10, 9, 8],
        "segments": 3,
    }
    back = Stats.from_dict(d)
    assert back == s
    d["counts"][0] = 0
    assert s.matches[0] == 9  # to_dict copies
    assert Stats.from_dict({"hyp_len": 1, "ref_len": 1, "counts": [1], "totals": [1]}).segments == 0


def test_merging_shards_equals_whole_corpus() -> None:
    from tests.helpers.adversarial import Adversary

    hyps, streams = Adversary(11).corpus(300, 2)
    settings = Settings(tokenize="13a")
    whole = BleuStream(settings)
    shards = [BleuStream(settings) for _ in range(3)]
    for i, hyp in enumerate(hyps):
        refs = [s[i] for s in streams]
        whole.add(hyp, refs)
        shards[i % 3].add(hyp, refs)
    merged = shards[0].total + shards[1].total + shards[2].total
    assert merged == whole.total
    assert merged.segments == 300
    # Through JSON-ready dicts, as shards would travel between processes.
    round_tripped = sum((Stats.from_dict(s.total.to_dict()) for s in shards), Stats.zero(4))
    assert compute_bleu(round_tripped, settings).score == whole.score().score
    expected = oracle_bleu(settings).corpus_score(hyps, streams).score
    assert compute_bleu(merged, settings).score == pytest.approx(expected, abs=1e-9)


# --------------------------------------------------------------------------
# compute_bleu equals SacreBLEU's on generated statistics
# --------------------------------------------------------------------------


def generated_stats(max_order: int, seed: int) -> list[Stats]:
    """Corpus-like statistics, plus the edge cases compute_bleu must survive."""
    rng = random.Random(seed * 100 + max_order)
    out: list[Stats] = []

    def corpus(n_segments: int, max_len: int, match_rate: float) -> Stats:
        total = Stats.zero(max_order)
        for _ in range(n_segments):
            n = rng.randint(0, max_len)
            totals = [max(n - k, 0) for k in range(max_order)]
            matches = []
            for t in totals:
                m = sum(rng.random() < match_rate for _ in range(t))
                matches.append(min(m, matches[-1]) if matches else m)
            ref = max(0, n + rng.randint(-5, 5))
            total += Stats(n, ref, matches, totals, 1)
        return total

    for _ in range(60):
        out.append(corpus(rng.randint(1, 30), rng.choice([3, 8, 40]), rng.random()))
    # short segments: zero totals at the high orders
    for _ in range(20):
        out.append(corpus(rng.randint(1, 3), rng.randint(0, max_order), rng.random()))
    # all-zero matches
    for _ in range(10):
        s = corpus(rng.randint(1, 10), 20, 0.5)
        out.append(Stats(s.hyp_len, s.ref_len, [0] * max_order, s.totals, s.segments))
    # matches only up to some order, then none
    for k in range(max_order + 1):
        s = corpus(5, 20, 0.9)
        out.append(Stats(s.hyp_len, s.ref_len, s.matches[:k] + [0] * (max_order - k), s.totals, 5))
    # sys_len 0, ref_len 0, both 0
    zero = [0] * max_order
    out += [Stats(0, 7, zero, zero, 1), Stats(0, 0, zero, zero, 1), Stats.zero(max_order)]
    n = 6
    totals = [max(n - k, 0) for k in range(max_order)]
    out.append(Stats(n, 0, list(totals), totals, 1))  # perfect match, empty reference
    out.append(Stats(n, 0, [1, *zero[1:]], totals, 1))
    out.append(Stats(n, n, list(totals), totals, 1))  # perfect
    out.append(Stats(n, 2 * n, list(totals), totals, 1))  # short
    return out


@pytest.mark.parametrize("effective_order", [False, True], ids=["eff-no", "eff-yes"])
@pytest.mark.parametrize(
    ("method", "value"), SMOOTHINGS, ids=[smoothing_id(m, v) for m, v in SMOOTHINGS]
)
@pytest.mark.parametrize("max_order", range(1, 7), ids=lambda n: f"order{n}")
def test_compute_bleu_equals_sacrebleu(
    max_order: int, method: str, value: float | None, effective_order: bool
) -> None:
    settings = Settings(
        smooth_method=method,
        smooth_value=value,
        effective_order=effective_order,
        max_order=max_order,
    )
    problems = []
    for stats in generated_stats(max_order, seed=1):
        ours = compute_bleu(stats, settings)
        theirs = sacrebleu.metrics.bleu.BLEU.compute_bleu(
            correct=list(stats.matches),
            total=list(stats.totals),
            sys_len=stats.hyp_len,
            ref_len=stats.ref_len,
            smooth_method=method,
            smooth_value=value,
            effective_order=effective_order,
            max_ngram_order=max_order,
        )
        problems += [f"{stats}: {p}" for p in score_mismatches(ours, theirs)]
        assert ours.row == stats.row()
    assert problems[:10] == []


def test_compute_bleu_does_not_mutate_stats() -> None:
    """add-k adds to the counts inside SacreBLEU; our statistics must stay raw."""
    stats = Stats(10, 12, [7, 3, 1, 0], [10, 9, 8, 7], 1)
    compute_bleu(stats, Settings(smooth_method="add-k"))
    assert stats == Stats(10, 12, [7, 3, 1, 0], [10, 9, 8, 7], 1)


def test_generated_stats_cover_the_edge_cases() -> None:
    for max_order in range(1, 7):
        cases = generated_stats(max_order, seed=1)
        assert any(s.hyp_len == 0 and s.ref_len > 0 for s in cases)
        assert any(s.ref_len == 0 and s.hyp_len > 0 for s in cases)
        assert any(not any(s.matches) and s.hyp_len > 0 for s in cases)
        # every order matched (no smoothing applies) and some order not
        assert any(0 not in s.matches for s in cases)
        if max_order > 1:
            assert any(0 in s.matches and any(s.matches) for s in cases)
            assert any(s.totals[-1] == 0 and s.totals[0] > 0 for s in cases)
        assert any(s.hyp_len < s.ref_len for s in cases) and any(
            s.hyp_len > s.ref_len for s in cases
        )


# --------------------------------------------------------------------------
# signatures
# --------------------------------------------------------------------------


def test_signature_hand_written() -> None:
    version = bleustream.__version__
    assert (
        format_signature(signature_fields(Settings(), 1))
        == f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:bleustream-{version}"
    )
    floor = Settings(tokenize="intl", lowercase=True, smooth_method="floor")
    assert (
        format_signature(signature_fields(floor, 2))
        == f"nrefs:2|case:lc|eff:no|tok:intl|smooth:floor[0.10]|version:bleustream-{version}"
    )
    addk = Settings(tokenize="zh", smooth_method="add-k", effective_order=True)
    assert (
        format_signature(signature_fields(addk, "var"))
        == f"nrefs:var|case:mixed|eff:yes|tok:zh|smooth:add-k[1.00]|version:bleustream-{version}"
    )
    assert list(signature_fields(Settings(max_order=3), 1)) == [
        "nrefs", "case", "eff", "tok", "smooth", "order", "version",
    ]  # fmt: skip
    assert signature_fields(Settings(max_order=3), 1)["order"] == "3"


SIGNATURE_CASES = [
    (tok, lc, method, value, eff)
    for tok in ("13a", "intl", "zh", "char", "none")
    for lc in (False, True)
    for method, value in (*SMOOTHINGS, ("floor", 0.123), ("add-k", 2))
    for eff in (False, True)
]


@pytest.mark.parametrize("n_refs", [1, 3, "var"])
def test_signature_equals_sacrebleu(n_refs: int | str) -> None:
    hyps = ["a b c", "d e"]
    if n_refs == "var":
        refs: list[list[str | None]] = [["a b", "d"], ["a", None]]
    else:
        refs = [["a b c", "d e"] for _ in range(int(n_refs))]
    problems = []
    for tok, lc, method, value, eff in SIGNATURE_CASES:
        settings = Settings(tok, lc, method, value, eff)
        bleu = oracle_bleu(settings)
        bleu.corpus_score(hyps, refs)
        theirs = bleu.get_signature().format()
        theirs = theirs.replace(
            f"version:{sacrebleu.__version__}", f"version:bleustream-{bleustream.__version__}"
        )
        ours = format_signature(signature_fields(settings, n_refs))
        if ours != theirs:
            problems.append(f"{ours} != {theirs}")
    assert problems == []


@pytest.mark.parametrize("max_order", [1, 2, 3, 5, 6])
def test_signature_with_other_orders(max_order: int) -> None:
    """SacreBLEU's signature has no order field; ours adds one, the rest is equal."""
    settings = Settings(max_order=max_order)
    bleu = oracle_bleu(settings)
    bleu.corpus_score(["a b"], [["a b"]])
    theirs = bleu.get_signature().format().split("|")
    fields = signature_fields(settings, 1)
    assert fields.pop("order") == str(max_order)
    assert format_signature(fields).split("|")[:-1] == theirs[:-1]


def test_sentence_settings_only_turn_on_effective_order() -> None:
    base = Settings("intl", True, "floor", 0.2, False, 3)
    sentence = sentence_settings(base)
    assert sentence == Settings("intl", True, "floor", 0.2, True, 3)
    assert base.effective_order is False  # a copy, not a mutation


# --------------------------------------------------------------------------
# rows of tokens kept by the caller (the analyses count BLEU from their words)
# --------------------------------------------------------------------------

TOKEN_ROW_SETTINGS = [
    Settings(),
    Settings(lowercase=True),
    Settings(tokenize="zh"),
    Settings(tokenize="intl", max_order=2),
    Settings(tokenize="char", max_order=6),
    NONE_TOK,
]


def _token_row_twins() -> list[tuple[str, object, object]]:
    """(name, prepare_ref_tokens, count_tokens) of each bound twin: the pure
    ones, and the compiled ones where the extension is built."""
    twins = [("pure", bleu.py_prepare_ref_tokens, bleu.py_count_tokens)]
    if NATIVE is not None:
        twins.append(("compiled", bleu.c_prepare_ref_tokens, bleu.c_count_tokens))
    return twins


@pytest.mark.parametrize("settings", TOKEN_ROW_SETTINGS, ids=lambda s: f"{s.tokenize}{s.max_order}")
@pytest.mark.parametrize("n_refs", [1, 3])
def test_a_row_of_kept_tokens_is_sacrebleus_row(settings: Settings, n_refs: int) -> None:
    adversary = Adversary(7 + n_refs)
    oracle = oracle_bleu(settings)
    prepare = bleu.preprocess(settings)
    for _ in range(60):
        hyp, refs = adversary.segment(n_refs)
        wanted = oracle._extract_corpus_statistics([hyp], [[r] for r in refs])[0]
        for name, prepare_refs, count in _token_row_twins():
            with _native_as(name):
                prepared = prepare_refs(settings)([prepare(r) for r in refs])  # type: ignore[operator]
                row = count(settings)(prepare(hyp), prepared)  # type: ignore[operator]
            assert list(row) == list(wanted), (name, hyp, refs)


def test_the_token_rows_are_bound_to_the_twin_the_kernels_chose() -> None:
    compiled = bleustream.kernels.native is not None
    assert (bleu.count_tokens is bleu.c_count_tokens) is compiled
    assert (bleu.prepare_ref_tokens is bleu.c_prepare_ref_tokens) is compiled


def test_token_rows_need_a_reference() -> None:
    for _, prepare_refs, _ in _token_row_twins():
        with pytest.raises(ValueError, match="at least one reference"):
            prepare_refs(Settings())([])  # type: ignore[operator]


@contextmanager
def _native_as(name: str) -> Iterator[None]:
    """``bleu.native`` is the extension for the compiled twins (on the pure
    path too, where it is None), and as it was for the pure ones."""
    saved = bleu.native
    bleu.native = NATIVE if name == "compiled" else saved  # type: ignore[attr-defined]
    try:
        yield
    finally:
        bleu.native = saved  # type: ignore[attr-defined]
