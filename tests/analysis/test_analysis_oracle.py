"""The analyses against their oracles: compare-mt 0.2.10 where the
definitions agree (word accuracy by frequency, sentence buckets, n-gram
differences), SacreBLEU for every bucket's score, interval and p-value.

compare-mt is given the tokens bleustream counts (``-tok none``: the line
split at white space), so both see the same words.  The places where
bleustream differs on purpose (docs/analysis.md) have tests of their own at
the end.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

import bleustream
from tests.conftest import REAL_DATA, REAL_DATA_MISSING, read_segments, real_data_present

compare_mt = pytest.importorskip("compare_mt", reason="compare-mt (the test extra) is the oracle")
sacrebleu = pytest.importorskip("sacrebleu")
np = pytest.importorskip("numpy")

from compare_mt import bucketers, ngram_utils, scorers, sign_utils, stat_utils  # noqa: E402

# The sets with a reference and two systems; compare-mt's own TED sample first.
SETS = ("compare-mt-ted-slk-en-tok", "compare-mt-ted-slk-en-detok", "sacrebleu-wmt17-en-de")
SAMPLES = 200


@cache
def loaded(name: str) -> tuple[list[str], list[str], list[str]]:
    import json

    if not real_data_present():
        pytest.skip(REAL_DATA_MISSING)
    entry = json.loads((REAL_DATA / "MANIFEST.json").read_text(encoding="utf-8"))[name]
    directory = REAL_DATA / name
    ref = list(read_segments(directory / entry["refs"][0]))
    if len(entry["hyps"]) < 2:
        pytest.skip(f"{name} has fewer than two systems")
    a, b = (list(read_segments(directory / Path(h))) for h in entry["hyps"][:2])
    return ref, a, b


@cache
def document(name: str, every_metric: bool = False) -> dict:
    """The analysis of a set's first two systems (BLEU only, and no
    intervals, unless ``every_metric``: BLEU, chrF, TER with intervals)."""
    ref, a, b = loaded(name)
    bleu = bleustream.spec("bleu", tokenize="none")
    return bleustream.analyze(
        [a, b],
        [ref],
        names=["A", "B"],
        metrics=[bleu, "chrf", "ter"] if every_metric else [bleu],
        samples=SAMPLES if every_metric else 0,
    )


def words(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines]


@pytest.mark.parametrize("name", SETS)
def test_word_accuracy_by_reference_frequency_is_compare_mts(name: str) -> None:
    ref, a, b = loaded(name)
    bucketer = bucketers.FreqWordBucketer(freq_data=words(ref))
    statistics, *_ = bucketer.calc_statistics(words(ref), [words(a), words(b)])
    doc = document(name)["word_accuracy"]
    assert [bucket["label"] for bucket in doc["buckets"]] == bucketer.bucket_strs
    for b_index, bucket in enumerate(doc["buckets"]):
        for s, system in enumerate(bucket["systems"]):
            matches, rcnt, ocnt, rec, prec, fmeas = statistics[s][b_index]
            assert (system["matches"], bucket["reference_words"], system["words"]) == (
                matches,
                rcnt,
                ocnt,
            )
            assert (system["recall"], system["precision"], system["f_measure"]) == (
                rec,
                prec,
                fmeas,
            )


def test_word_accuracy_with_counts_given_is_compare_mts() -> None:
    ref, a, b = loaded(SETS[0])
    counts = {w: i % 7 for i, w in enumerate(sorted({w for line in a for w in line.split()}))}
    bucketer = bucketers.FreqWordBucketer(freq_counts=counts, bucket_cutoffs=[1, 3, 5])
    statistics, *_ = bucketer.calc_statistics(words(ref), [words(a), words(b)])
    doc = bleustream.analyze(
        [a, b],
        [ref],
        metrics=[bleustream.spec("bleu", tokenize="none")],
        frequencies=counts,
        frequency_edges=[1, 3, 5],
        samples=0,
    )["word_accuracy"]
    assert doc["frequency_from"] == "counts"
    got = [
        [
            (
                bucket["systems"][s]["matches"],
                bucket["reference_words"],
                bucket["systems"][s]["words"],
                bucket["systems"][s]["recall"],
                bucket["systems"][s]["precision"],
                bucket["systems"][s]["f_measure"],
            )
            for bucket in doc["buckets"]
        ]
        for s in (0, 1)
    ]
    assert got == [list(statistics[0]), list(statistics[1])]


def bucket_lengths(lines: list[str]) -> list[int]:
    return [len(line.split()) for line in lines]


@pytest.mark.parametrize("name", SETS)
def test_sentence_bucket_counts_are_compare_mts(name: str) -> None:
    ref, a, b = loaded(name)
    doc = {d["by"]: d for d in document(name)["sentence_buckets"]}
    length = bucketers.LengthSentenceBucketer()
    corpus = length.create_bucketed_corpus(words(a), ref=words(ref))
    assert [x["label"] for x in doc["length"]["buckets"]] == length.bucket_strs
    assert [x["segments"] for x in doc["length"]["buckets"]] == [len(c[0]) for c in corpus]
    diff = bucketers.LengthDiffSentenceBucketer()
    assert [x["label"] for x in doc["length_diff"]["buckets"]] == diff.bucket_strs
    for s, out in enumerate((a, b)):
        corpus = diff.create_bucketed_corpus(words(out), ref=words(ref))
        own = [x["systems"][s]["own_count"] for x in doc["length_diff"]["buckets"]]
        assert own == [len(c[0]) for c in corpus]
    # Paired buckets follow the baseline: its own count is the bucket's.
    assert [x["segments"] for x in doc["length_diff"]["buckets"]] == [
        x["systems"][0]["own_count"] for x in doc["length_diff"]["buckets"]
    ]
    score = bucketers.ScoreSentenceBucketer("sentbleu")
    assert [x["label"] for x in doc["sentence_bleu"]["buckets"]] == score.bucket_strs


@pytest.mark.parametrize("name", SETS)
def test_length_bucket_bleu_is_compare_mts_where_its_bleu_is_sacrebleus(name: str) -> None:
    """compare-mt's corpus BLEU counts at least one n-gram of each order for
    every hypothesis (docs/analysis.md); where every hypothesis of a bucket
    has four words or more the two BLEUs are one."""
    ref, a, b = loaded(name)
    doc = {d["by"]: d for d in document(name)["sentence_buckets"]}
    length = bucketers.LengthSentenceBucketer()
    scorer = scorers.BleuScorer()
    compared = 0
    for s, out in enumerate((a, b)):
        corpus = length.create_bucketed_corpus(words(out), ref=words(ref))
        for bucket, (outs, refs, _) in zip(doc["length"]["buckets"], corpus):
            if not outs or min(len(o) for o in outs) < 4:
                continue
            theirs, _ = scorer.score_corpus(refs, outs)
            assert bucket["systems"][s]["metrics"]["BLEU"]["score"] == pytest.approx(
                theirs, rel=1e-12
            )
            compared += 1
    assert compared >= 4


def salient(ref: list[str], out1: list[str], out2: list[str]) -> tuple[Any, Any, Any]:
    _, m1, *_ = ngram_utils.compare_ngrams(words(ref), words(out1))
    _, m2, *_ = ngram_utils.compare_ngrams(words(ref), words(out2))
    scores = stat_utils.extract_salient_features(m1, m2, alpha=1.0)
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True), m1, m2


@pytest.mark.parametrize("name", SETS)
def test_ngram_differences_are_compare_mts(name: str) -> None:
    ref, a, b = loaded(name)
    ranked, m1, m2 = salient(ref, a, b)
    (compared,) = document(name)["ngram_differences"]["compared"]
    for ours, theirs in (
        (compared["baseline_more"], ranked[:50]),
        (compared["system_more"], list(reversed(ranked[-50:]))),
    ):
        assert [x["score"] for x in ours] == [v for _, v in theirs]
        for x in ours:
            gram = tuple(x["ngram"].split(" "))
            assert (x["baseline"], x["system"]) == (m1[gram], m2[gram])
        # compare-mt orders ties as a set iterates; the n-grams scored above
        # the last one listed are the same.
        last = theirs[-1][1]
        above = {" ".join(k) for k, v in theirs if v != last}
        assert {x["ngram"] for x in ours if x["score"] != last} == above


def segments_in(doc_bucket_index: int, keys: list[int]) -> list[int]:
    return [i for i, k in enumerate(keys) if k == doc_bucket_index]


@pytest.mark.slow
def test_bucket_scores_intervals_and_p_values_are_sacrebleus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each length bucket: SacreBLEU's corpus score of its segments, and its
    paired bootstrap (--paired-bs, the same seed) on them."""
    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest

    ref, a, b = loaded(SETS[0])
    doc = {d["by"]: d for d in document(SETS[0], every_metric=True)["sentence_buckets"]}
    edges = bleustream.analysis.Edges(tuple(doc["length"]["edges"]))
    keys = [edges.index(n) for n in bucket_lengths(ref)]
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    checked = 0
    for index, bucket in enumerate(doc["length"]["buckets"]):
        chosen = segments_in(index, keys)
        assert len(chosen) == bucket["segments"]
        if len(chosen) < 20 or checked == 3:
            continue
        refs = [[ref[i] for i in chosen]]
        metrics = {
            "BLEU": BLEU(tokenize="none", references=refs),
            "chrF2": CHRF(references=refs),
            "TER": TER(references=refs),
        }
        hyps = [("A", [a[i] for i in chosen]), ("B", [b[i] for i in chosen])]
        _, results = PairedTest(hyps, metrics, None, test_type="bs", n_samples=SAMPLES)()
        for s, entry in enumerate(bucket["systems"]):
            for label, ours in entry["metrics"].items():
                theirs = results[label][s]
                assert ours["score"] == theirs.score
                assert (ours["mean"], ours["ci"], ours["p_value"]) == (
                    theirs.mean,
                    theirs.ci,
                    theirs.p_value,
                )
        checked += 1
    assert checked == 3


# -- Where bleustream differs on purpose (docs/analysis.md) -------------------


def test_compare_mts_tie_count_also_counts_the_first_systems_wins() -> None:
    """compare-mt's third counter ("ties") counts every sample the second
    system does not win; bleustream counts ties as ties."""
    ref, a, b = loaded(SETS[0])
    np.random.seed(1)
    (wins,), _ = sign_utils.eval_with_paired_bootstrap(
        words(ref), [words(a), words(b)], None, scorers.BleuScorer(), [(1, 0)], num_samples=100
    )
    first, second, ties = wins  # B (better in every sample), A, "ties"
    assert (first, second, ties) == (1.0, 0.0, 1.0)
    ours = document(SETS[0], every_metric=True)["scores"][1]["differences"]["BLEU"]["wins"]
    assert ours["ties"] == 0
    assert ours["baseline"] + ours["system"] + ours["ties"] == SAMPLES


def test_compare_mts_bootstrap_draws_half_the_segments() -> None:
    """compare-mt resamples half the corpus (sample_ratio=0.5), so its
    interval is about sqrt(2) times wider than the full-size bootstrap's."""
    ref, a, _ = loaded(SETS[0])
    np.random.seed(1)
    _, stats = sign_utils.eval_with_paired_bootstrap(
        words(ref), [words(a)], None, scorers.BleuScorer(), None, num_samples=SAMPLES
    )
    theirs = (stats[0]["upper_bound"] - stats[0]["lower_bound"]) / 2
    ours = document(SETS[0], every_metric=True)["scores"][0]["metrics"]["BLEU"]["ci"]
    assert 1.2 < theirs / ours < 1.7


def test_sentence_bleu_is_sacrebleus_not_nltks() -> None:
    """Sentence buckets and examples use SacreBLEU's sentence BLEU; compare-mt's
    sentbleu is NLTK's with smoothing method 2, another number."""
    ref, hyp = "the cat sat on the mat today", "the cat sat on a mat"
    doc = bleustream.analyze(
        [[hyp], [hyp]], [[ref]], metrics=[bleustream.spec("bleu", tokenize="none")], samples=0
    )
    ours = doc["examples"]["compared"][0]["better"][0]["baseline_score"]
    theirs, _ = scorers.SentBleuScorer().score_sentence(ref.split(), hyp.split())
    assert ours == sacrebleu.sentence_bleu(hyp, [ref], tokenize="none").score
    assert ours != pytest.approx(theirs, abs=0.5)
