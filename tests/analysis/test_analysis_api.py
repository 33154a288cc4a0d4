"""``bleustream.analyze`` from Python: one system's intervals, the word
accuracy intervals, the examples and the running score, each against a
SacreBLEU call or a computation written out here."""

from __future__ import annotations

import random
import statistics

import pytest

import bleustream

np = pytest.importorskip("numpy")
sacrebleu = pytest.importorskip("sacrebleu")

WORDS = ["the", "a", "cat", "dog", "sat", "ran", "on", "mat", "big", "red", "and", "it", "was"]


def corpus(n: int, seed: int = 3) -> tuple[list[str], list[str], list[str]]:
    rng = random.Random(seed)
    ref, a, b = [], [], []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 18))]
        ref.append(" ".join(words))
        a.append(" ".join(w for w in words if rng.random() > 0.25))
        b.append(" ".join(w if rng.random() > 0.2 else rng.choice(WORDS) for w in words))
    return ref, a, b


def test_one_systems_buckets_have_sacrebleus_bootstrap_intervals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With one system, each bucket's interval is SacreBLEU's
    ``corpus_score(n_bootstrap=N)`` of that bucket's segments (-ci)."""
    ref, a, _ = corpus(150)
    doc = bleustream.analyze([a], [ref], metrics=["bleu", "chrf"], samples=300)
    assert doc["resampling"]["test"] == "ci"
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    edges = doc["sentence_buckets"][0]["edges"]
    lengths = [len(r.split()) for r in ref]  # no punctuation: 13a's tokens are the words
    checked = 0
    for index, bucket in enumerate(doc["sentence_buckets"][0]["buckets"]):
        chosen = [i for i, n in enumerate(lengths) if sum(n >= e for e in edges) == index]
        assert len(chosen) == bucket["segments"]
        if not chosen:
            continue
        hyps, refs = [a[i] for i in chosen], [[ref[i] for i in chosen]]
        for label, metric in (("BLEU", sacrebleu.BLEU()), ("chrF2", sacrebleu.CHRF())):
            theirs = metric.corpus_score(hyps, refs, n_bootstrap=300)
            ours = bucket["systems"][0]["metrics"][label]
            assert (ours["score"], ours["mean"], ours["ci"]) == (
                theirs.score,
                theirs._mean,
                theirs._ci,
            )
            assert ours["p_value"] is None
        checked += 1
    assert checked >= 2


def test_word_accuracy_intervals_are_the_bootstrap_of_segments() -> None:
    """Written out: SacreBLEU's draws (default_rng(seed).choice over the
    segments), each resample's counts summed, the measure of the sums, and
    SacreBLEU's mean and half the 95% range."""
    ref, a, b = corpus(60)
    samples = 200
    doc = bleustream.analyze(
        [a, b], [ref], metrics=["bleu"], samples=samples, frequency_edges=[2, 10]
    )["word_accuracy"]
    refs = [r.split() for r in ref]
    frequency: dict[str, int] = {}
    for words in refs:
        for w in words:
            frequency[w] = frequency.get(w, 0) + 1

    def bucket(word: str) -> int:
        return sum(frequency.get(word, 0) >= e for e in (2, 10))

    rng = np.random.default_rng(12345)
    draws = rng.choice(len(ref), size=(samples, len(ref)), replace=True)
    for s, hyps in enumerate((a, b)):
        per_segment = np.zeros((len(ref), 3, 3))  # segment, bucket, (matches, ref, out)
        for i, (r, h) in enumerate(zip(refs, hyps)):
            h = h.split()
            for w in set(r) | set(h):
                per_segment[i, bucket(w)] += (min(r.count(w), h.count(w)), r.count(w), h.count(w))
        for k, entry in enumerate(doc["buckets"]):
            sums = per_segment[draws][:, :, k, :].sum(axis=1)
            f = []
            for m, rc, oc in sums:
                p, rec = (m / oc, m / rc) if m else (0.0, 0.0)
                f.append(2 * p * rec / (p + rec) if m else 0.0)
            f = sorted(f)
            low = samples // 40
            wanted = (statistics.mean(f), 0.5 * (f[samples - low - 1] - f[low]))
            got = entry["systems"][s]["intervals"]["f_measure"]
            assert (got["mean"], got["ci"]) == pytest.approx(wanted, rel=1e-12, abs=1e-15)


def test_examples_are_the_largest_sentence_bleu_differences() -> None:
    ref, a, b = corpus(80)
    doc = bleustream.analyze([a, b], [ref], metrics=["bleu"], samples=0, examples=5)
    (compared,) = doc["examples"]["compared"]
    diffs = []
    seen = set()
    for i, (r, x, y) in enumerate(zip(ref, a, b)):
        if (r, x, y) in seen:
            continue
        seen.add((r, x, y))
        sx = sacrebleu.sentence_bleu(x, [r]).score
        sy = sacrebleu.sentence_bleu(y, [r]).score
        diffs.append((sy - sx, -i, i, sx, sy))
    better = sorted(diffs, reverse=True)[:5]
    worse = sorted(diffs, key=lambda d: (-d[0], -d[1]), reverse=True)[:5]
    for got, wanted in ((compared["better"], better), (compared["worse"], worse)):
        assert [(e["segment"], e["baseline_score"], e["system_score"]) for e in got] == [
            (i + 1, sx, sy) for _, _, i, sx, sy in wanted
        ]
    assert compared["better"][0]["reference"] == ref[better[0][2]]


def test_the_running_score_ends_at_the_corpus_score() -> None:
    ref, a, b = corpus(450)
    doc = bleustream.analyze([a, b], [ref], metrics=["bleu", "ter"], samples=0)
    points = doc["running"]["points"]
    # 450 segments: every 4th (112 points, at most 200), then the end.
    assert [p["segments"] for p in points] == [*range(4, 449, 4), 450]
    last = points[-1]["scores"]
    assert last[1][0] == sacrebleu.corpus_bleu(b, [ref]).score
    assert last[1][1] == sacrebleu.corpus_ter(b, [ref]).score
    first = points[0]
    assert first["scores"][0][0] == sacrebleu.corpus_bleu(a[:4], [ref[:4]]).score
