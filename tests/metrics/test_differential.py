"""bleustream against SacreBLEU end to end: generated corpora and the real data sets.

Per-segment statistics come from ``BleuStream.add`` (i.e. ``segment_counter``)
and are compared with SacreBLEU's ``_extract_corpus_statistics``; corpus
scores with SacreBLEU's ``corpus_score`` (or, for the variants that only
change the final arithmetic, with SacreBLEU's own aggregation of its own
per-segment statistics); sentence scores with ``sentence_score`` under
effective order, as SacreBLEU's sentence-level BLEU does.

Scores must agree to 1e-9 and, beyond that, to the bit: a failure message
says "not bit-identical" when only the latter fails.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache, lru_cache

import pytest
from sacrebleu.metrics.bleu import BLEU, BLEUScore
from sacrebleu.utils import sum_of_lists

from bleustream.metrics.bleu import Settings, sentence_settings
from tests.conftest import RealSet, RealSystem, read_refs, read_segments
from tests.helpers.adversarial import Adversary
from tests.helpers.bleu_stats import Stats, compute_bleu
from tests.helpers.oracle import (
    SMOOTHINGS,
    TOKENIZER_NAMES,
    BleuStream,
    oracle_bleu,
    oracle_row,
    score_mismatches,
    segment_counter,
    smoothing_id,
)

Corpus = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def run_scorer(
    settings: Settings, hyps: Sequence[str], streams: Sequence[Sequence[str]]
) -> tuple[BleuStream, list[Stats]]:
    """Feeds a corpus through BleuStream; returns it and the per-segment statistics."""
    scorer = BleuStream(settings)
    per_segment = [scorer.add(hyp, [s[i] for s in streams]) for i, hyp in enumerate(hyps)]
    return scorer, per_segment


def segment_mismatches(
    ours: Sequence[Stats], theirs: Sequence[Sequence[int]], hyps: Sequence[str], limit: int = 5
) -> list[str]:
    assert len(ours) == len(theirs)
    out = []
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if oracle_row(a) != list(b) or a.segments != 1:
            out.append(
                f"segment {i} {hyps[i][:80]!r}: bleustream {oracle_row(a)} != SacreBLEU {list(b)}"
            )
            if len(out) >= limit:
                break
    return out


def total_mismatches(total: Stats, theirs: BLEUScore, raw_counts: bool = True) -> list[str]:
    """The summed statistics against a SacreBLEU corpus score (counts only without add-k)."""
    out = []
    if (total.hyp_len, total.ref_len) != (theirs.sys_len, theirs.ref_len):
        out.append(
            f"lengths {(total.hyp_len, total.ref_len)} != {(theirs.sys_len, theirs.ref_len)}"
        )
    if raw_counts and (total.matches, total.totals) != (list(theirs.counts), list(theirs.totals)):
        out.append(f"counts {total.matches}/{total.totals} != {theirs.counts}/{theirs.totals}")
    return out


def settings_id(settings: Settings) -> str:
    return (
        f"{settings.tokenize}-{'lc' if settings.lowercase else 'cased'}-"
        f"{smoothing_id(settings.smooth_method, settings.smooth_value)}-"
        f"eff-{'yes' if settings.effective_order else 'no'}-order{settings.max_order}"
    )


def variants(base: Settings) -> list[Settings]:
    """``base`` under every smoothing (default and explicit values) x effective order."""
    return [
        Settings(base.tokenize, base.lowercase, method, value, eff, base.max_order)
        for method, value in SMOOTHINGS
        for eff in (False, True)
    ]


def variant_mismatches(base: Settings, total: Stats, rows: Sequence[Sequence[int]]) -> list[str]:
    """Every smoothing x effective order on the same statistics, against SacreBLEU.

    SacreBLEU sums its own per-segment statistics (``sum_of_lists``, as in
    ``_aggregate_and_compute``) and scores the sum under each variant.
    """
    summed = sum_of_lists([list(r) for r in rows]) if len(rows) > 1 else list(rows[0])
    problems = []
    for variant in variants(base):
        theirs = oracle_bleu(variant)._compute_score_from_stats(list(summed))
        ours = compute_bleu(total, variant)
        problems += [f"{settings_id(variant)}: {p}" for p in score_mismatches(ours, theirs)]
    return problems


# --------------------------------------------------------------------------
# generated adversarial corpora
# --------------------------------------------------------------------------

# (seed, number of references)
CORPORA = ((1, 1), (2, 2), (3, 3), (4, 4))
SEGMENTS = 150


@cache
def generated_corpus(seed: int, n_refs: int) -> Corpus:
    hyps, streams = Adversary(seed).corpus(SEGMENTS, n_refs)
    return tuple(hyps), tuple(tuple(s) for s in streams)


@cache
def oracle_rows(
    seed: int, n_refs: int, tokenize: str, lowercase: bool, max_order: int = 4
) -> tuple[tuple[int, ...], ...]:
    hyps, streams = generated_corpus(seed, n_refs)
    bleu = oracle_bleu(Settings(tokenize, lowercase, max_order=max_order))
    return tuple(tuple(r) for r in bleu._extract_corpus_statistics(hyps, streams))


def corpus_id(corpus: tuple[int, int]) -> str:
    return f"seed{corpus[0]}-refs{corpus[1]}"


@pytest.mark.parametrize("corpus", CORPORA, ids=corpus_id)
@pytest.mark.parametrize("lowercase", [False, True], ids=["cased", "lc"])
@pytest.mark.parametrize("tokenize", TOKENIZER_NAMES)
def test_generated_corpus(tokenize: str, lowercase: bool, corpus: tuple[int, int]) -> None:
    """Segment statistics, then the corpus score under every smoothing x effective order.

    Smoothing and effective order change only the arithmetic on the summed
    statistics, so one pass over the corpus serves all fourteen variants;
    a failing variant is named in full in the message.
    """
    hyps, streams = generated_corpus(*corpus)
    settings = Settings(tokenize, lowercase)
    scorer, per_segment = run_scorer(settings, hyps, streams)
    rows = oracle_rows(*corpus, tokenize, lowercase)
    assert segment_mismatches(per_segment, rows, hyps) == []
    assert scorer.total.segments == len(hyps)
    assert scorer.total == sum(per_segment, Stats.zero(4))
    assert variant_mismatches(settings, scorer.total, rows) == []


@pytest.mark.parametrize("settings", variants(Settings("13a", lowercase=True)), ids=settings_id)
def test_generated_stream_scorer_score(settings: Settings) -> None:
    """BleuStream(settings).score() itself, per variant, against SacreBLEU's corpus_score."""
    hyps, streams = generated_corpus(4, 4)
    scorer, _ = run_scorer(settings, hyps, streams)
    theirs = oracle_bleu(settings).corpus_score(list(hyps), [list(s) for s in streams])
    assert (
        total_mismatches(scorer.total, theirs, raw_counts=settings.smooth_method != "add-k") == []
    )
    assert score_mismatches(scorer.score(), theirs) == []


@pytest.mark.parametrize("lowercase", [False, True], ids=["cased", "lc"])
@pytest.mark.parametrize("tokenize", TOKENIZER_NAMES)
def test_generated_corpus_score_public_api(tokenize: str, lowercase: bool) -> None:
    """SacreBLEU's public corpus_score end to end (default smoothing), no cached rows."""
    hyps, streams = generated_corpus(3, 3)
    settings = Settings(tokenize, lowercase)
    scorer, _ = run_scorer(settings, hyps, streams)
    theirs = oracle_bleu(settings).corpus_score(list(hyps), [list(s) for s in streams])
    assert total_mismatches(scorer.total, theirs) == []
    assert score_mismatches(scorer.score(), theirs) == []


@pytest.mark.parametrize("max_order", [1, 2, 3, 5, 6], ids=lambda n: f"order{n}")
@pytest.mark.parametrize("tokenize", ["13a", "char"])
def test_generated_corpus_other_orders(tokenize: str, max_order: int) -> None:
    hyps, streams = generated_corpus(3, 3)
    settings = Settings(tokenize, max_order=max_order)
    scorer, per_segment = run_scorer(settings, hyps, streams)
    rows = oracle_rows(3, 3, tokenize, False, max_order)
    assert segment_mismatches(per_segment, rows, hyps) == []
    assert variant_mismatches(settings, scorer.total, rows) == []


def test_generated_corpora_are_adversarial() -> None:
    """The corpora exercise what they should: ties, clipping, empty segments, zero matches."""
    for corpus in CORPORA:
        hyps, streams = generated_corpus(*corpus)
        rows = oracle_rows(*corpus, "13a", False)
        assert any(h == "" for h in hyps)
        assert any(all(s[i] == "" for s in streams) for i in range(len(hyps)))
        assert any(r[0] > 0 and r[2] == 0 for r in rows)  # no unigram match
        assert any(r[2] == r[0] > 0 for r in rows)  # all unigrams match
        if corpus[1] > 1:
            # a tie: two references as far below as above the hypothesis length
            count = segment_counter(Settings("13a"))
            ties = 0
            for i, hyp in enumerate(hyps):
                refs = [s[i] for s in streams]
                n = count(hyp, refs[:1]).hyp_len
                lens = {count(hyp, [r]).ref_len for r in refs}
                ties += any(n - d in lens and n + d in lens for d in range(1, 5))
            assert ties >= 5
    # clipping: some hypothesis n-gram occurs more often than the references allow
    hyps, streams = generated_corpus(1, 1)
    counter = segment_counter(Settings("none"))
    clipped = 0
    for hyp, ref in zip(hyps, streams[0]):
        toks, rtoks = hyp.split(), ref.split()
        if any(toks.count(t) > rtoks.count(t) > 0 for t in set(toks)):
            clipped += 1
            assert counter(hyp, [ref]).matches[0] < len(toks)
    assert clipped >= 5


SENTENCE_CORPORA = ((1, 1), (3, 3))
SENTENCE_SEGMENTS = 50


@pytest.mark.parametrize("corpus", SENTENCE_CORPORA, ids=corpus_id)
@pytest.mark.parametrize(
    ("method", "value"), SMOOTHINGS, ids=[smoothing_id(m, v) for m, v in SMOOTHINGS]
)
@pytest.mark.parametrize("lowercase", [False, True], ids=["cased", "lc"])
@pytest.mark.parametrize("tokenize", TOKENIZER_NAMES)
def test_generated_sentence_scores(
    tokenize: str, lowercase: bool, method: str, value: float | None, corpus: tuple[int, int]
) -> None:
    hyps, streams = generated_corpus(*corpus)
    settings = sentence_settings(Settings(tokenize, lowercase, method, value))
    assert settings.effective_order
    count = segment_counter(settings)
    oracle = oracle_bleu(settings)
    problems = []
    for i, hyp in enumerate(hyps[:SENTENCE_SEGMENTS]):
        refs = [s[i] for s in streams]
        ours = compute_bleu(count(hyp, refs), settings)
        theirs = oracle.sentence_score(hyp, refs)
        problems += [f"segment {i} {hyp[:60]!r}: {p}" for p in score_mismatches(ours, theirs)]
    assert problems[:5] == []


# --------------------------------------------------------------------------
# the real data sets
# --------------------------------------------------------------------------

# Budget (the whole suite should run in about a minute on two cores):
# every system of every set with 13a, over all its segments and every
# smoothing; the first three systems of each set with every other tokenizer
# (all segments, every smoothing); the first system with lowercase, and at
# sentence level (the first segments only).
SENTENCE_LEVEL_SEGMENTS = 500


@lru_cache(maxsize=2)
def real_oracle(real_set: RealSet, tokenize: str, lowercase: bool, limit: int | None) -> BLEU:
    """SacreBLEU with the set's references preprocessed once (refs are cached)."""
    refs = [stream[:limit] for stream in read_refs(real_set)]
    return oracle_bleu(Settings(tokenize, lowercase), references=refs)


def check_real_system(
    real_system: RealSystem, settings: Settings, all_variants: bool, limit: int | None = None
) -> list[str]:
    """Segment statistics, summed statistics and scores of one system output against SacreBLEU."""
    real_set = real_system.real_set
    hyps = read_segments(real_system.hyp)[:limit]
    streams = [stream[:limit] for stream in read_refs(real_set)]
    oracle = real_oracle(real_set, settings.tokenize, settings.lowercase, limit)
    rows = oracle._extract_corpus_statistics(hyps, None)
    scorer, per_segment = run_scorer(settings, hyps, streams)
    problems = segment_mismatches(per_segment, rows, hyps)
    theirs = oracle._aggregate_and_compute(rows)
    problems += total_mismatches(scorer.total, theirs)
    problems += score_mismatches(scorer.score(), theirs)
    if all_variants:
        problems += variant_mismatches(settings, scorer.total, rows)
    return problems


def test_real_data_layout(real_set: RealSet) -> None:
    """The manifest is read as intended: refs grouped with their hyps, sources left out."""
    assert real_set.directory.is_dir()
    assert real_set.refs and real_set.hyps
    assert not set(real_set.refs) & set(real_set.hyps)
    for path in real_set.refs + real_set.hyps:
        assert path.parent == real_set.directory
        assert len(read_segments(path)) == real_set.lines, path.name
    expected_refs = {
        "wmt21-en-de": 3,
        "wmt21-en-zh": 2,
        "wmt21-en-ja": 1,
        "sacrebleu-wmt17-en-de": 1,
        "compare-mt-ted-slk-en-detok": 1,
        "compare-mt-ted-slk-en-tok": 1,
    }
    if real_set.name in expected_refs:
        assert len(real_set.refs) == expected_refs[real_set.name]
    if real_set.name == "wmt21-en-de":
        assert sorted(p.name.split(".")[-2] for p in real_set.refs) == ["A", "C", "D"]
    if real_set.name == "sacrebleu-wmt17-en-de":
        assert len(real_set.hyps) == 16
        # One system starts with a byte-order mark, read as text: it stays a character.
        assert sum(read_segments(h)[0].startswith("\ufeff") for h in real_set.hyps) == 1


def test_real_13a(real_system: RealSystem) -> None:
    """Every system of every set, 13a: segment statistics, corpus score, every smoothing."""
    assert check_real_system(real_system, Settings("13a"), all_variants=True) == []


@pytest.mark.real_systems(per_set=1)
def test_real_13a_lowercase(real_system: RealSystem) -> None:
    assert check_real_system(real_system, Settings("13a", lowercase=True), all_variants=True) == []


@pytest.mark.real_systems(per_set=3)
@pytest.mark.parametrize("tokenize", [t for t in TOKENIZER_NAMES if t != "13a"])
def test_real_other_tokenizers(real_system: RealSystem, tokenize: str) -> None:
    assert check_real_system(real_system, Settings(tokenize), all_variants=True) == []


@pytest.mark.real_systems(per_set=1)
def test_real_sentence_scores(real_system: RealSystem) -> None:
    """Sentence BLEU (effective order) of the first segments, 13a, default smoothing."""
    hyps = read_segments(real_system.hyp)[:SENTENCE_LEVEL_SEGMENTS]
    streams = read_refs(real_system.real_set)
    settings = sentence_settings(Settings("13a"))
    count = segment_counter(settings)
    oracle = oracle_bleu(settings)
    problems = []
    for i, hyp in enumerate(hyps):
        refs = [s[i] for s in streams]
        ours = compute_bleu(count(hyp, refs), settings)
        theirs = oracle.sentence_score(hyp, refs)
        problems += [f"segment {i}: {p}" for p in score_mismatches(ours, theirs)]
    assert problems[:5] == []


@pytest.mark.parametrize("n_refs", [1, 3])
@pytest.mark.parametrize("max_order", [1, 4, 6])
def test_repeated_ngrams_on_both_sides(n_refs: int, max_order: int) -> None:
    """Words from a tiny vocabulary repeat n-grams of every order on both
    sides, in every combination of counts: the clipped counts' fast paths
    (a reference without repeats, common n-grams all single, the sum of
    the smaller counts) against SacreBLEU's plain loop."""
    rng = random.Random(10 * n_refs + max_order)

    def line() -> str:
        return " ".join(rng.choice("aab") for _ in range(rng.randrange(0, 16)))

    hyps = [line() for _ in range(80)]
    streams = [[line() for _ in hyps] for _ in range(n_refs)]
    settings = Settings("none", max_order=max_order)
    _, per_segment = run_scorer(settings, hyps, streams)
    rows = oracle_bleu(settings)._extract_corpus_statistics(hyps, streams)
    assert segment_mismatches(per_segment, rows, hyps) == []
