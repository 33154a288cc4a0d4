"""COMET in the Python API: ``bleustream.spec("comet", model=...)`` in a
``Scorer``, segments added with their sources, one at a time or a batch.

Run in a subprocess with the model double installed as ``bleustream.comet``
(``fake_comet``); the expected numbers are the double's scores, computed here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.comet.fake_comet import fake_score, make_checkpoint
from tests.helpers.paths import ROOT

SCRIPT = """
import json, sys
from tests.comet.fake_comet import install
install()
import bleustream
model, src, hyp, ref = sys.argv[1:5]
lines = [open(p, encoding="utf-8").read().splitlines() for p in (src, hyp, ref)]
segments = [(s, (h,), (r,)) for s, h, r in zip(*lines)]
specs = [bleustream.spec("bleu"), bleustream.spec("comet", model=model, batch_size=4)]
batch = bleustream.Scorer(*specs)
batch.add_segments(segments)
alone = bleustream.Scorer(*specs)
rows = [alone.add(h, r, s) for s, h, r in segments]
print(json.dumps({
    "batch": [x.score for x in batch.score()],
    "alone": [x.score for x in alone.score()],
    "rows": [r[0][1] for r in rows],
}))
"""


def test_a_scorer_adds_comet_segments_with_their_sources(tmp_path: Path) -> None:
    src = ["Dobrý deň.", "Ako sa máš?", "", "Ďakujem pekne."]
    hyp = ["Good day.", "How are you?", "Nothing", ""]
    ref = ["Hello.", "How are you doing?", "Nothing.", "Thank you very much."]
    paths = []
    for name, lines in (("src", src), ("hyp", hyp), ("ref", ref)):
        paths.append(tmp_path / name)
        paths[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = make_checkpoint(tmp_path / "model")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(model), *map(str, paths)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout)
    scores = [fake_score(s, h, r) for s, h, r in zip(src, hyp, ref)]
    assert out["rows"] == [[score, 1] for score in scores]
    assert out["batch"][1] == out["alone"][1] == sum(scores) / len(scores)
    assert out["batch"][0] == out["alone"][0]  # BLEU beside it, unchanged


REWARD = """
import json, sys
from tests.comet.fake_comet import install
install()
from bleustream import rewards
kiwi = rewards.comet_kiwi(sys.argv[1], batch_size=2)
completions = [[{"role": "assistant", "content": "Good day."}], "How are you?", ""]
print(json.dumps(kiwi(completions=completions, source=["Dobrý deň.", "Ako sa máš?", "Ahoj"])))
"""


def test_a_comet_kiwi_reward_scores_completions_against_their_sources(tmp_path: Path) -> None:
    model = make_checkpoint(tmp_path / "kiwi", family="referenceless")
    done = subprocess.run(
        [sys.executable, "-c", REWARD, str(model)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    expected = [
        fake_score("Dobrý deň.", "Good day.", None),
        fake_score("Ako sa máš?", "How are you?", None),
        fake_score("Ahoj", "", None),
    ]
    assert json.loads(done.stdout) == expected


SENTENCES = """
import json, sys
from tests.comet.fake_comet import install
install()
import bleustream
model, kiwi = sys.argv[1:3]
src = ["Dobrý deň.", "Ako sa máš?", "Ahoj", "Ďakujem."]
hyp = ["Good day.", "How are you?", "", "Thanks."]
ref = ["Hello.", "How are you doing?", "Hi.", "Thank you."]
out = {
    "scores": [s.score for s in bleustream.sentence_scores(
        "comet", hyp, [ref], sources=src, model=model, batch_size=2)],
    "kiwi": [s.score for s in bleustream.sentence_scores(
        "comet", hyp, [], sources=src, model=kiwi)],
    "name": bleustream.sentence_scores("comet", hyp[:1], [ref[:1]], sources=src[:1],
                                       model=model)[0].name,
    "empty": bleustream.sentence_scores("comet", [], [[]], sources=[], model=model),
}
errors = []
for call in (
    lambda: bleustream.sentence_scores("comet", hyp, [ref], model=model),
    lambda: bleustream.sentence_scores("comet", hyp, [ref], sources=src[:3], model=model),
    lambda: bleustream.sentence_scores("bleu", hyp, [ref], sources=src),
):
    try:
        call()
    except (TypeError, ValueError) as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
out["errors"] = errors
print(json.dumps(out))
"""


def test_sentence_scores_of_comet_are_the_models_segment_scores(tmp_path: Path) -> None:
    model = make_checkpoint(tmp_path / "model")
    kiwi = make_checkpoint(tmp_path / "kiwi", family="referenceless")
    done = subprocess.run(
        [sys.executable, "-c", SENTENCES, str(model), str(kiwi)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout)
    src = ["Dobrý deň.", "Ako sa máš?", "Ahoj", "Ďakujem."]
    hyp = ["Good day.", "How are you?", "", "Thanks."]
    ref = ["Hello.", "How are you doing?", "Hi.", "Thank you."]
    assert out["scores"] == [fake_score(s, h, r) for s, h, r in zip(src, hyp, ref)]
    assert out["kiwi"] == [fake_score(s, h, None) for s, h in zip(src, hyp)]
    assert out["name"] == "COMET"
    assert out["empty"] == []
    assert out["errors"] == [
        "TypeError: sentence_scores('comet') needs sources=[...], one per hypothesis",
        "ValueError: 4 hypotheses, but 3 sources",
        "TypeError: sentence_scores('bleu') reads no sources",
    ]
