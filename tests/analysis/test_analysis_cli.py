"""``--analyze`` through the real command: every output format from one
document, the same document as ``bleustream.analyze``, the live report, and
one-line errors."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

import bleustream
from tests.helpers.clirun import COMMAND, assert_clean_stderr, run
from tests.helpers.paths import ROOT

pytest.importorskip("numpy")

WORDS = [
    "the",
    "a",
    "cat",
    "dog",
    "sat",
    "ran",
    "on",
    "under",
    "mat",
    "house",
    "big",
    "small",
    "red",
    "blue",
    "and",
    "or",
    "it",
    "was",
    "is",
]


def corpus(n: int = 60, seed: int = 7) -> tuple[list[str], list[str], list[str]]:
    """A reference and two systems that differ from it by chance."""
    rng = random.Random(seed)
    ref, a, b = [], [], []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 25))]
        ref.append(" ".join(words))
        a.append(" ".join(w for w in words if rng.random() > 0.2))
        b.append(" ".join(w if rng.random() > 0.15 else rng.choice(WORDS) for w in words))
    return ref, a, b


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    paths = []
    for name, lines in zip(("ref.txt", "a.txt", "b.txt"), corpus()):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1], paths[2]


def analyze_cli(*args: object, files: tuple[Path, Path, Path]) -> bytes:
    ref, a, b = files
    proc = run(ref, "-i", a, b, "--analyze", "--analyze-n", "50", *args)
    assert proc.returncode == 0, proc.stderr
    assert_clean_stderr(proc)
    return proc.stdout


def test_json_is_the_python_apis_document(files: tuple[Path, Path, Path]) -> None:
    out = analyze_cli("-m", "bleu", "chrf", "-f", "json", "--examples", "3", files=files)
    ref, a, b = corpus()
    expected = bleustream.analyze(
        [a, b], [ref], names=["a.txt", "b.txt"], metrics=["bleu", "chrf"], samples=50, examples=3
    )
    assert json.loads(out) == json.loads(json.dumps(expected))


def test_paste_input_gives_the_same_numbers(files: tuple[Path, Path, Path]) -> None:
    ref, a, b = corpus()
    paste = "".join(f"{x}\t{y}\t{r}\n" for x, y, r in zip(a, b, ref))
    proc = run("--systems", "2", "--analyze", "--analyze-n", "50", "-f", "json", input=paste)
    assert proc.returncode == 0, proc.stderr
    pasted = json.loads(proc.stdout)
    from_files = json.loads(analyze_cli("-f", "json", files=files))
    assert pasted["systems"] == ["field 1", "field 2"]
    for doc in (pasted, from_files):
        del doc["systems"], doc["baseline"]
    text = json.dumps(from_files).replace('"a.txt"', '"field 1"').replace('"b.txt"', '"field 2"')
    assert pasted == json.loads(text)


def test_tsv_holds_the_documents_numbers(files: tuple[Path, Path, Path]) -> None:
    doc = json.loads(analyze_cli("-f", "json", files=files))
    lines = analyze_cli("-f", "tsv", files=files).decode().splitlines()
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in lines[1:]]
    scores = [r for r in rows if r["analysis"] == "scores"]
    assert [(r["system"], float(r["value"]), float(r["ci"])) for r in scores] == [
        (e["system"], e["metrics"]["BLEU"]["score"], e["metrics"]["BLEU"]["ci"])
        for e in doc["scores"]
    ]
    length = [r for r in rows if r["by"] == "length" and r["system"] == "b.txt"]
    buckets = doc["sentence_buckets"][0]["buckets"]
    assert [r["bucket"] for r in length] == [b["label"] for b in buckets]
    assert [r["p_value"] for r in length] == [
        ""
        if b["systems"][1]["metrics"]["BLEU"].get("p_value") is None
        else repr(b["systems"][1]["metrics"]["BLEU"]["p_value"])
        for b in buckets
    ]


def test_text_and_latex_tables(files: tuple[Path, Path, Path]) -> None:
    text = analyze_cli("--src", files[0], files=files).decode()
    assert text.startswith("Scores: 60 segments, baseline a.txt (paired bootstrap, 50 samples")
    for title in ("by reference length", "Word F-measure by frequency", "N-grams (1 to 4 words)"):
        assert title in text
    assert "  src: " in text
    latex = analyze_cli("-f", "latex", files=files).decode()
    assert latex.count(r"\begin{tabular}") == 4 and r"$<$10" in latex


def test_counts_file_and_training_corpus(files: tuple[Path, Path, Path], tmp_path: Path) -> None:
    ref, a, b = corpus()
    counts = {w: i for i, w in enumerate(WORDS)}
    counts_file = tmp_path / "counts.tsv"
    counts_file.write_text("".join(f"{w}\t{n}\n" for w, n in counts.items()), encoding="utf-8")
    doc = json.loads(analyze_cli("-f", "json", "--freq-counts", counts_file, files=files))
    api = bleustream.analyze(
        [a, b], [ref], names=["a.txt", "b.txt"], metrics=["bleu"], frequencies=counts, samples=50
    )
    assert (
        doc["word_accuracy"]["buckets"] == json.loads(json.dumps(api))["word_accuracy"]["buckets"]
    )
    assert doc["word_accuracy"]["frequency_from"] == f"counts file {counts_file}"
    training = tmp_path / "train.txt"
    training.write_text("cat cat dog\nthe the the cat\n", encoding="utf-8")
    doc = json.loads(analyze_cli("-f", "json", "--freq-corpus", training, files=files))
    api = bleustream.analyze(
        [a, b],
        [ref],
        names=["a.txt", "b.txt"],
        metrics=["bleu"],
        frequencies={"cat": 3, "dog": 1, "the": 3},
        samples=50,
    )
    assert (
        doc["word_accuracy"]["buckets"] == json.loads(json.dumps(api))["word_accuracy"]["buckets"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-f", "jsonl"], "--analyze writes -f text, tsv, json, latex, stats, not -f jsonl"),
        (["-m", "chrf"], "--analyze: the analyses need BLEU among the metrics"),
        (["--length-edges", "10:5"], "edges must increase"),
        (["--ngram-orders", "0:3"], "orders must be LOW:HIGH"),
    ],
)
def test_usage_errors_are_one_line(
    files: tuple[Path, Path, Path], args: list[str], message: str
) -> None:
    ref, a, b = files
    proc = run(ref, "-i", a, b, "--analyze", *args)
    assert proc.returncode == 2
    assert_clean_stderr(proc)
    (line,) = proc.stderr.decode().splitlines()
    assert message in line


def test_a_short_source_file_names_the_line(files: tuple[Path, Path, Path], tmp_path: Path) -> None:
    src = tmp_path / "src.txt"
    src.write_text("one\ntwo\n", encoding="utf-8")
    ref, a, b = files
    proc = run(ref, "-i", a, b, "--analyze", "--src", src)
    assert proc.returncode == 65
    assert_clean_stderr(proc)
    (line,) = proc.stderr.decode().splitlines()
    assert f"{a}:3: fewer source lines (2) than segments: --src {src} has no line here" in line


def test_a_long_source_file_names_its_first_line_left_over(
    files: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    ref, a, b = files
    lines = ref.read_text(encoding="utf-8").splitlines()
    src = tmp_path / "src.txt"
    src.write_text("".join(f"source {i}\n" for i in range(len(lines) + 2)), encoding="utf-8")
    proc = run(ref, "-i", a, b, "--analyze", "--src", src)
    assert proc.returncode == 65
    assert_clean_stderr(proc)
    (line,) = proc.stderr.decode().splitlines()
    wanted = "more source lines than segments (one a segment for --analyze)"
    assert f"{src}:{len(lines) + 1}: {wanted}" in line


def test_a_last_line_skipped_as_bad_keeps_its_source_line(
    files: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    ref, a, b = files
    lines = b.read_bytes().rstrip(b"\n").split(b"\n")
    lines[-1] = b"bad \xff byte"
    b.write_bytes(b"\n".join(lines) + b"\n")
    src = tmp_path / "src.txt"
    src.write_text("".join(f"source {i}\n" for i in range(len(lines))), encoding="utf-8")
    proc = run(ref, "-i", a, b, "--analyze", "--skip-bad-lines", "--src", src, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["segments"] == len(lines) - 1


def test_a_logs_sources_pair_in_the_order_its_segments_come(tmp_path: Path) -> None:
    log = tmp_path / "gen.log"
    log.write_text(
        "S-1\tdas ist gut\nT-1\tthis is good\nD-1\t-0.1\tthis is good\n"
        "S-0\tein haus\nT-0\ta house\nD-0\t-0.2\tthe house\n",
        encoding="utf-8",
    )
    src = tmp_path / "src.txt"
    src.write_text("only one\n", encoding="utf-8")
    proc = run("--input-format", "fairseq", "-i", log, "--analyze", "--src", src)
    assert proc.returncode == 65
    assert_clean_stderr(proc)
    (line,) = proc.stderr.decode().splitlines()
    assert f"{src}:2: fewer source lines (1) than segments: --src {src} has no line here" in line


def test_a_missing_plotting_library_is_one_line(
    files: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    hidden = tmp_path / "hidden"
    (hidden / "matplotlib").mkdir(parents=True)
    (hidden / "matplotlib" / "__init__.py").write_text("raise ImportError('hidden')\n")
    ref, a, b = files
    env = {**os.environ, "PYTHONPATH": str(hidden)}
    proc = subprocess.run(
        [
            *COMMAND,
            str(ref),
            "-i",
            str(a),
            str(b),
            "--analyze",
            "--report",
            str(tmp_path / "r.html"),
        ],
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "bleustream: --report needs matplotlib: pip install 'bleustream[report]'"
    ]
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_the_report_is_rewritten_every_n_segments(tmp_path: Path) -> None:
    """With --every 10 the page shows the first 10 segments while the input
    is still open, then all of them; no temporary file is left behind."""
    pytest.importorskip("matplotlib")
    ref, a, b = corpus(25)
    page = tmp_path / "live.html"
    proc = subprocess.Popen(
        [
            *COMMAND,
            "--systems",
            "2",
            "--analyze",
            "--analyze-n",
            "20",
            "--every",
            "10",
            "--report",
            str(page),
            "-f",
            "json",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    lines = [f"{x}\t{y}\t{r}\n" for x, y, r in zip(a, b, ref)]
    proc.stdin.write("".join(lines[:12]).encode())
    proc.stdin.flush()
    try:
        while not page.exists():  # the sign: the first page, after 10 segments
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert "<p>10 segments;" in page.read_text(encoding="utf-8")
        out, err = proc.communicate("".join(lines[12:]).encode(), timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert json.loads(out)["segments"] == 25
    assert "<p>25 segments;" in page.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live.html"]


def write_parts(folder: Path, lines: tuple[list[str], ...], cuts: list[int]) -> list[Path]:
    """The corpus cut into parts, each a folder with ref.txt, a.txt, b.txt."""
    bounds = [0, *cuts, len(lines[0])]
    folders = []
    for k, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
        part = folder / f"part{k}"
        part.mkdir()
        for name, text in zip(("ref.txt", "a.txt", "b.txt"), lines):
            (part / name).write_text("".join(x + "\n" for x in text[lo:hi]), encoding="utf-8")
        folders.append(part)
    return folders


def analyzed(folder: Path, *args: object) -> bytes:
    proc = run(folder / "ref.txt", "-i", folder / "a.txt", folder / "b.txt", "--analyze", *args)
    assert proc.returncode == 0, proc.stderr
    assert_clean_stderr(proc)
    return proc.stdout


@pytest.mark.slow
def test_two_workers_and_shards_give_one_process_document(tmp_path: Path) -> None:
    """-j 2 (batches of 1000 segments) and shards written with -f stats and
    merged give the JSON document of one process, byte for byte."""
    lines = corpus(2300)
    (tmp_path / "whole").mkdir()
    (whole,) = write_parts(tmp_path / "whole", lines, [])
    args = ("-m", "bleu", "chrf", "ter", "--analyze-n", "40", "--examples", "4")
    one = analyzed(whole, *args, "-f", "json")
    assert json.loads(one)["segments"] == 2300
    assert analyzed(whole, *args, "-f", "json", "-j", "2") == one
    (tmp_path / "shards").mkdir()
    parts = write_parts(tmp_path / "shards", lines, [700, 1500])
    records = []
    for part in parts:
        record = analyzed(part, *args, "-f", "stats")
        path = part / "analysis.stats"
        path.write_bytes(record)
        records.append(path)
    merged = run("--input-format", "stats", "--analyze", *records, *args, "-f", "json")
    assert merged.returncode == 0, merged.stderr
    assert merged.stdout == one
    piped = run(
        "--input-format",
        "stats",
        "--analyze",
        *args,
        "-f",
        "json",
        input=b"".join(p.read_bytes() for p in records),
    )
    assert piped.stdout == one


def test_shards_without_intervals_differ_only_in_the_running_points(tmp_path: Path) -> None:
    """With --analyze-n 0 nothing per segment is kept: a shard does not know
    where it starts, so its running points fall elsewhere (docs/analysis.md)."""
    lines = corpus(500)
    (tmp_path / "whole").mkdir()
    (whole,) = write_parts(tmp_path / "whole", lines, [])
    one = json.loads(analyzed(whole, "--analyze-n", "0", "-f", "json"))
    (tmp_path / "shards").mkdir()
    records = []
    for part in write_parts(tmp_path / "shards", lines, [123]):
        path = part / "analysis.stats"
        path.write_bytes(analyzed(part, "--analyze-n", "0", "-f", "stats"))
        records.append(path)
    merged = json.loads(
        run(
            "--input-format", "stats", "--analyze", *records, "--analyze-n", "0", "-f", "json"
        ).stdout
    )
    assert [k for k in one if one[k] != merged[k]] == ["running"]
    assert merged["running"]["points"][-1] == one["running"]["points"][-1]


def test_parts_counted_otherwise_do_not_merge(tmp_path: Path) -> None:
    lines = corpus(40)
    parts = write_parts(tmp_path, lines, [20])
    records = []
    for part, edges in zip(parts, ("10:20", "10:30")):
        path = part / "analysis.stats"
        path.write_bytes(analyzed(part, "--length-edges", edges, "-f", "stats"))
        records.append(path)
    proc = run("--input-format", "stats", "--analyze", *records, "--length-edges", "10:20")
    assert proc.returncode == 65
    assert_clean_stderr(proc)
    (line,) = proc.stderr.decode().splitlines()
    assert f"{records[1]}:1: not an analysis record to merge: counted with length_edges" in line


def test_a_translation_log_is_analyzed_as_it_is_scored() -> None:
    """A fairseq log (one system): its segments paired by id, as a run reads them."""
    log = ROOT / "examples" / "data" / "generate.log"
    proc = run(
        "--input-format", "fairseq", "-i", log, "--analyze", "--analyze-n", "20", "-f", "json"
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    scored = run("--input-format", "fairseq", "-i", log, "-f", "json")
    assert doc["systems"] == ["generate.log"]
    assert doc["segments"] == 3
    assert (
        round(doc["scores"][0]["metrics"]["BLEU"]["score"], 1) == json.loads(scored.stdout)["score"]
    )
