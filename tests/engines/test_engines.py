"""bleustream.engines without an engine, the scripts' refusals, and the evaluate module.

The statistics of parts add in any order to the command's output; a gap,
a part counted twice or a failed part is refused; a missing engine is exit
2 naming its extra.  The evaluate module gives SacreBLEU's numbers under
evaluate's keys, and its memory stays flat.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bleustream import engines
from tests.helpers.engine_cases import CASES, ROOT, Small, command_output, one_line
from tests.helpers.engine_cases import small_inputs as make_small

BleustreamError = engines.BleustreamError


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Small:
    return make_small(tmp_path_factory.mktemp("engines"))


@pytest.mark.parametrize("case", CASES)
def test_parts_in_any_order_are_the_command(small: Small, case: str) -> None:
    args = [str(a) for a in CASES[case](small)]
    job = engines.Job.from_argv([*args, "--no-config"])
    parts = job.parts(4)
    assert len(parts) == 4
    stats = [job.part_stats(part) for part in parts]
    total = stats[2] + (stats[3] + stats[0]) + stats[1]
    assert job.records(total).encode() == command_output(*args)


def test_batches_in_memory_are_the_command(small: Small) -> None:
    args = [str(a) for a in CASES["ter-three-refs-json"](small)]
    job = engines.Job.from_argv([*args, "--no-config"])
    hyps = small.hyp21.read_text(encoding="utf-8").splitlines()
    refs = [[line.rstrip() for line in r.read_text(encoding="utf-8").splitlines()]
            for r in small.refs21]  # fmt: skip
    hyps = [line.rstrip() for line in hyps]
    cuts = [0, 17, 150, len(hyps)]
    batches = [
        job.batch_stats(a, [hyps[a:b]], [r[a:b] for r in refs]) for a, b in zip(cuts, cuts[1:])
    ]
    total = sum(reversed(batches))
    assert job.records(total, segments=len(hyps)).encode() == command_output(*args)


def test_gaps_duplicates_and_failures_are_refused(small: Small, tmp_path: Path) -> None:
    job = engines.Job.from_argv([str(small.ref17), "-i", str(small.hyps17[0]), "--no-config"])
    a, b, c = (job.part_stats(part) for part in job.parts(3))
    with pytest.raises(BleustreamError, match=r"segments 101 to 200 are missing"):
        job.records(a + c)
    with pytest.raises(BleustreamError, match=r"segment 101 are counted twice"):
        job.records(a + b + b + c)
    with pytest.raises(BleustreamError, match=r"after segment 200 are missing"):
        job.records(a + b)
    with pytest.raises(BleustreamError, match=r"300 segments were expected, 200"):
        job.records(a + b, segments=300)
    lines = small.hyps17[0].read_bytes().split(b"\n")
    lines[150] = b"\xff" + lines[150]
    bad = tmp_path / "bad.de"
    bad.write_bytes(b"\n".join(lines))
    job = engines.Job.from_argv([str(small.ref17), "-i", str(bad), "--no-config"])
    total = sum(job.part_stats(part) for part in job.parts(3))
    with pytest.raises(engines.InputError) as exc:
        job.records(total)
    assert str(exc.value).startswith(f"{bad}:151: ")


def test_an_empty_input_is_the_commands(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    refused = engines.Job.from_argv([str(empty), "-i", str(empty), "--no-config"])
    total = sum(refused.part_stats(part) for part in refused.parts(8))
    with pytest.raises(engines.InputError, match=r"no segments in the input.*--allow-empty"):
        refused.records(total)
    job = engines.Job.from_argv([str(empty), "-i", str(empty), "--no-config", "--allow-empty"])
    total = sum(job.part_stats(part) for part in job.parts(8))
    expected = command_output(str(empty), "-i", str(empty), "--allow-empty")
    assert job.records(total).encode() == expected
    assert job.notes(total) == [f"no segments in the input ({empty}); BLEU is 0 by definition"]


@pytest.mark.parametrize(("script", "module", "extra"), [
    ("ray_score.py", "ray", "needs Ray: pip install 'bleustream[ray]'"),
    ("spark_score.py", "pyspark", "needs Spark: pip install 'bleustream[spark]'"),
])  # fmt: skip
def test_without_the_engine_exits_2_naming_the_extra(
    tmp_path: Path, script: str, module: str, extra: str
) -> None:
    (tmp_path / f"{module}.py").write_text("raise ImportError('not here')\n")
    python_path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "examples/ref.en", "-i",
         "examples/hyp.en", "--no-config"],
        capture_output=True, timeout=60, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *python_path])},
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == b""
    assert one_line(done.stderr) == f"{script}: {extra}"


@pytest.mark.parametrize("option", [["-sl"], ["--every", "10"], ["--skip-bad-lines"]])
def test_what_an_engine_cannot_print_is_refused(option: list[str]) -> None:
    with pytest.raises(engines.UsageError, match="is not supported here"):
        engines.Job.from_argv(["examples/ref.en", "-i", "examples/hyp.en", "--no-config", *option])


# ----------------------------------------------------------------------------
# The evaluate module
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hf(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("HF_HOME", str(tmp_path_factory.mktemp("hf")))
    evaluate = pytest.importorskip("evaluate", reason="pip install 'bleustream[hf]'")
    import bleustream

    return lambda name, **kw: evaluate.load(bleustream.evaluate_module_path(), name, **kw)


@pytest.mark.slow
def test_evaluate_results_are_sacrebleus(hf, small: Small) -> None:  # type: ignore[no-untyped-def]
    sacrebleu = pytest.importorskip("sacrebleu")
    hyps = small.hyps17[0].read_text(encoding="utf-8").splitlines()
    refs = [small.ref17.read_text(encoding="utf-8").splitlines(),
            small.hyps17[1].read_text(encoding="utf-8").splitlines()]  # fmt: skip
    per_prediction = [list(pair) for pair in zip(*refs)]

    bleu = hf("bleu", tokenize="intl")
    for k in range(0, len(hyps), 64):
        bleu.add_batch(predictions=hyps[k : k + 64], references=per_prediction[k : k + 64])
    got = bleu.compute(smooth_method="floor", smooth_value=0.2)
    want = sacrebleu.corpus_bleu(hyps, refs, tokenize="intl", smooth_method="floor",
                                 smooth_value=0.2)  # fmt: skip
    assert got == {"score": want.score, "counts": want.counts, "totals": want.totals,
                   "precisions": want.precisions, "bp": want.bp, "sys_len": want.sys_len,
                   "ref_len": want.ref_len}  # fmt: skip

    chrf = hf("chrf", word_order=2)
    chrf.add_batch(predictions=hyps, references=per_prediction)
    want_chrf = sacrebleu.corpus_chrf(hyps, refs, word_order=2)
    assert chrf.compute() == {"score": want_chrf.score, "char_order": 6, "word_order": 2,
                              "beta": 2}  # fmt: skip

    ter = hf("ter")
    got_ter = ter.compute(predictions=hyps, references=per_prediction, normalized=True)
    want_ter = sacrebleu.corpus_ter(hyps, refs, normalized=True)
    assert got_ter == {"score": want_ter.score, "num_edits": want_ter.num_edits,
                       "ref_length": want_ter.ref_length}  # fmt: skip


MEMORY = """
import os, resource
os.environ["HF_HUB_OFFLINE"] = "1"
import bleustream, evaluate
bleu = evaluate.load(bleustream.evaluate_module_path(), "bleu")
predictions, references = ["a"] * 1000, [["a"]] * 1000
def rss(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for _ in range(100): bleu.add_batch(predictions=predictions, references=references)
before = rss()
for _ in range(900): bleu.add_batch(predictions=predictions, references=references)
assert bleu.compute()["sys_len"] == 1_000_000
print(rss() - before)
"""


@pytest.mark.slow
def test_evaluate_add_batch_keeps_memory_flat(hf, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """10^6 segments: the peak RSS after the first 10^5 grows by under 2 MB."""
    done = subprocess.run(
        [sys.executable, "-c", MEMORY], capture_output=True, text=True, timeout=120,
        env={**os.environ, "HF_HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 2048  # KiB
