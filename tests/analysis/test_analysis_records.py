"""Analysis records read back (``--input-format stats --analyze``): only
what a run could have written is merged.

Every record here starts as real ``--analyze -f stats`` output of the real
command.  Edited, a record no run could write (a claim of a million
segments in a shard of twelve, a NaN among the sums, a bucket number past
the buckets) is bad input: status 65 and one line naming the file, the
line and the field.  The fuzz tests mutate such records (a field removed,
a value of another type, huge, negative, NaN or infinite numbers, a line
cut short, a byte that is not UTF-8) and require, for every mutation,
status 65 with that one line, or a document that states no number the
unmutated record's document does not.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.clirun import assert_clean_stderr, run
from tests.helpers.paths import ROOT

pytest.importorskip("numpy")

WORDS = ["the", "a", "cat", "dog", "sat", "ran", "on", "under", "mat", "house"]
WORDS += ["big", "small", "red", "blue", "and", "it", "was"]
# The options every shard is counted with, and the merging run gives again.
COUNTED = ("-m", "bleu", "chrf", "ter", "--examples", "2")
KEPT = ("--analyze-n", "5")
UNKEPT = ("--analyze-n", "0")


def write_texts(folder: Path, segments: int = 12, seed: int = 3) -> list[Path]:
    rng = random.Random(seed)
    lines: list[list[str]] = [[], [], [], []]
    for _ in range(segments):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 9))]
        lines[0].append(" ".join(words))
        lines[1].append(" ".join(w for w in words if rng.random() > 0.2))
        lines[2].append(" ".join(w if rng.random() > 0.3 else rng.choice(WORDS) for w in words))
        lines[3].append(f"source {len(lines[3]) + 1}")
    paths = []
    for name, text in zip(("ref", "A", "B", "src"), lines):
        path = folder / name
        path.write_text("".join(x + "\n" for x in text), encoding="utf-8")
        paths.append(path)
    return paths


@cache
def shard(kept: bool) -> tuple[str, bytes]:
    """A real record (with --src: every kind of field filled) and the JSON
    document merging it gives."""
    folder = Path(tempfile.mkdtemp(prefix="analysis-records-"))
    ref, a, b, src = write_texts(folder)
    n = KEPT if kept else UNKEPT
    proc = run(ref, "-i", a, b, "--analyze", *COUNTED, *n, "--src", src, "-f", "stats")
    assert proc.returncode == 0, proc.stderr
    record = proc.stdout.decode("utf-8").strip()
    path = folder / "whole.stats"
    path.write_text(record + "\n", encoding="utf-8")
    merged = run("--input-format", "stats", "--analyze", *COUNTED, *n, "-f", "json", path)
    assert merged.returncode == 0, merged.stderr
    return record, merged.stdout


def merge_args(kept: bool, path: Path | str) -> list[str]:
    n = KEPT if kept else UNKEPT
    return ["--input-format", "stats", "--analyze", *COUNTED, *n, "-f", "json", str(path)]


def refused(proc: Any, where: str, message: str) -> None:
    assert proc.returncode == 65, proc.stderr
    assert proc.stdout == b""
    assert_clean_stderr(proc)
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith(f"bleustream: {where}: "), line
    assert message in line, line


def edited(tmp_path: Path, kept: bool, edit: Callable[[dict[str, Any]], None]) -> Any:
    record = json.loads(shard(kept)[0])
    edit(record)
    path = tmp_path / "edited.stats"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path, run(*merge_args(kept, path))


# ----------------------------------------------------------------------------
# The cases of the issue
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("kept", [True, False])
def test_a_million_segments_in_a_shard_of_twelve(tmp_path: Path, kept: bool) -> None:
    """It claimed a million segments, with the sums of twelve."""

    def edit(record: dict[str, Any]) -> None:
        record["segments"] = 1_000_000

    path, proc = edited(tmp_path, kept, edit)
    message = "field buckets.length.segments: hold 12 segments, not 1000000"
    refused(proc, f"{path}:1", f"analysis record: {message}")


def test_a_nan_among_the_sums(tmp_path: Path) -> None:
    """It exited 0 and printed the NaN."""

    def edit(record: dict[str, Any]) -> None:
        record["totals"][1][2][1] = float("nan")

    path, proc = edited(tmp_path, False, edit)
    refused(proc, f"{path}:1", "analysis record: field totals[1][2]: ter statistics")


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda r: r.pop("metrics"), "metrics: must be a list"),
        (lambda r: r["metrics"].__setitem__(0, "bleu"), "metrics[0]: must be an object"),
        (lambda r: r["buckets"]["length"]["keys"].__setitem__(0, 99), "buckets.length.keys[0]"),
        (lambda r: r["store"][0][0][1].__setitem__(0, 2**40), "store[0][0][1]: bleu statistics"),
        (lambda r: r["store"][1].pop(), "store[1]: must have 3 entries"),
        (lambda r: r["examples"][0].__setitem__(0, [0, 1]), "examples[0][0]: must have 5"),
        (lambda r: r["examples"][0][0].__setitem__(0, -3), "examples[0][0][0]"),
        (lambda r: r["words"]["out"][0].update(zz=1), "words.out[0]: are not the words"),
        (lambda r: r["ngrams"][1].pop(), "ngrams[1]: "),
        (lambda r: r["words"]["segment_rows"].__setitem__(1, 99), "words.segment_rows: do not"),
        (lambda r: r["words"]["segment_ends"].reverse(), "words.segment_ends: do not cut"),
        (lambda r: r["running"].__setitem__("step", 3), "running.step: must be a power of 2"),
        (lambda r: r["nrefs"].append(0), "nrefs: must be increasing"),
        (lambda r: r["systems"].__setitem__(1, 7), "systems[1]: must be a string"),
    ],
)
def test_fields_no_run_writes_are_refused(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], field: str
) -> None:
    """Each was a traceback (AttributeError, TypeError, IndexError, OverflowError...)."""
    path, proc = edited(tmp_path, True, edit)
    refused(proc, f"{path}:1", f"analysis record: field {field}")


def test_an_example_moved_to_another_segment(tmp_path: Path) -> None:
    """Its scores are its segment's, counted again from its texts and from
    the rows kept: another segment's number is refused."""

    def edit(record: dict[str, Any]) -> None:
        held = {example[0] for example in record["examples"][0]}
        record["examples"][0][0][0] = min(set(range(record["segments"])) - held)

    path, proc = edited(tmp_path, True, edit)
    refused(proc, f"{path}:1", "analysis record: field examples[0]: segment")


def test_the_header_is_the_stats_records_check(tmp_path: Path) -> None:
    record = shard(True)[0]
    path = tmp_path / "two.stats"
    path.write_text(record + "\n" + record.replace('"version": 1', '"version": 2') + "\n")
    refused(run(*merge_args(True, path)), f"{path}:2", "analysis format version 2")
    path.write_text(record[:-9] + "\n")
    refused(run(*merge_args(True, path)), f"{path}:1", "not a JSON analysis record (")
    path.write_text('{"format": "bleustream-stats"}\n')
    refused(run(*merge_args(True, path)), f"{path}:1", "not an analysis record: expected")


def test_an_unedited_record_merges_into_its_own_document(tmp_path: Path) -> None:
    """The checks refuse nothing a run wrote: its record, twice, is the
    document of its text twice (the sums doubled, the examples the same)."""
    for kept in (True, False):
        record, document = shard(kept)
        path = tmp_path / "twice.stats"
        path.write_text(record + "\n" + record + "\n", encoding="utf-8")
        proc = run(*merge_args(kept, path))
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["segments"] == 2 * json.loads(document)["segments"]


# ----------------------------------------------------------------------------
# Fuzzing
# ----------------------------------------------------------------------------

MUTATIONS = ("remove", "type", "huge", "negative", "nan", "inf", "truncate", "byte")
OTHER_VALUES: tuple[Any, ...] = ("x", None, [], {}, True, 3, 0.5, [[1]])
HUGE: tuple[Any, ...] = (2**64, 10**30, 1e308, 2**53 + 1, 2**31)
NEGATIVE: tuple[Any, ...] = (-1, -0.5, -(2**40))


def places(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value in a record, the record itself left out."""
    if path:
        yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from places(value, (*path, i))


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def mutated(text: str, choose: Callable[[Sequence[Any]], Any]) -> bytes:
    """One mutation of a record's line, its choices made by ``choose``."""
    kind = choose(MUTATIONS)
    data = text.encode("utf-8")
    if kind == "truncate":
        return data[: choose(range(1, len(data)))]
    if kind == "byte":
        at = choose(range(len(data)))
        return data[:at] + b"\xff" + data[at:]
    record = json.loads(text)
    found = list(places(record))
    if kind in ("huge", "negative", "nan", "inf"):
        found = [p for p in found if is_number(get(record, p))]
    path = choose(found)
    parent, key = get(record, path[:-1]), path[-1]
    value = parent[key]
    if kind == "remove":
        del parent[key]
    elif kind == "type":
        parent[key] = choose([v for v in OTHER_VALUES if type(v) is not type(value)])
    elif kind == "huge":
        parent[key] = choose(HUGE)
    elif kind == "negative":
        parent[key] = choose(NEGATIVE)
    elif kind == "nan":
        parent[key] = float("nan")
    else:
        parent[key] = choose((float("inf"), float("-inf")))
    return json.dumps(record).encode("utf-8")


def get(node: Any, path: Sequence[Any]) -> Any:
    for key in path:
        node = node[key]
    return node


def assert_nothing_made_up(out: bytes, original: bytes) -> None:
    """A document merged from a mutated record states no number the
    original does not: the same, but for fewer held examples or running
    points (each one the original's)."""
    doc, whole = json.loads(out), json.loads(original)
    for key in whole:
        if key not in ("examples", "running"):
            assert doc[key] == whole[key], key
    assert doc["running"]["metrics"] == whole["running"]["metrics"]
    assert all(p in whole["running"]["points"] for p in doc["running"]["points"])
    assert doc["examples"]["k"] == whole["examples"]["k"]
    for mine, theirs in zip(doc["examples"]["compared"], whole["examples"]["compared"]):
        held = theirs["better"] + theirs["worse"]
        assert all(e in held for e in mine["better"] + mine["worse"]), mine


def assert_refused_or_same(status: int, out: bytes, err: bytes, where: str, kept: bool) -> None:
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    if status == 0:
        assert err == b"", text
        assert_nothing_made_up(out, shard(kept)[1])
        return
    assert status == 65, text
    assert out == b""
    (line,) = text.splitlines()
    assert line.startswith(f"bleustream: {where}:1: "), line


# Runs the command's main() on each case in one child process, as the
# console script does (its status, its stdout and stderr), so that hundreds
# of cases cost one start-up.
HARNESS = r"""
import io, json, sys, traceback
from bleustream.cli.main import main
out = []
for argv in json.load(sys.stdin):
    sys.stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    try:
        status = main(argv)
    except BaseException:
        status, trace = -1, traceback.format_exc()
    else:
        trace = ""
    sys.stdout.flush(); sys.stderr.flush()
    out.append([status, sys.stdout.buffer.getvalue().hex(),
                (sys.stderr.buffer.getvalue().decode("utf-8", "replace") + trace)])
sys.__stdout__.write(json.dumps(out))
"""


@pytest.mark.parametrize("kept", [True, False])
def test_three_hundred_mutations_are_refused_or_change_nothing(tmp_path: Path, kept: bool) -> None:
    """150 mutations of each kind of record (segments kept or not), drawn
    with a fixed seed, through the command's main() in one child process."""
    record = shard(kept)[0]
    rng = random.Random(20261207 + kept)
    cases = []
    for i in range(150):
        path = tmp_path / f"m{i}.stats"
        path.write_bytes(mutated(record, rng.choice) + b"\n")
        cases.append(["--no-config", *merge_args(kept, path)])
    child = subprocess.run(
        [sys.executable, "-c", HARNESS],
        input=json.dumps(cases).encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=600,
    )
    assert child.returncode == 0, child.stderr.decode()
    for case, (status, out, err) in zip(cases, json.loads(child.stdout)):
        path = case[-1]
        assert_refused_or_same(status, bytes.fromhex(out), err.encode(), path, kept)


@settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
@pytest.mark.slow
def test_each_mutation_through_the_command(tmp_path: Path, data: st.DataObject) -> None:
    """Mutations drawn by hypothesis, each run by the console script, its
    record on stdin."""
    kept = data.draw(st.booleans(), "kept")
    line = mutated(shard(kept)[0], lambda options: data.draw(st.sampled_from(list(options))))
    proc = run(*merge_args(kept, "-"), input=line + b"\n")
    assert_refused_or_same(proc.returncode, proc.stdout, proc.stderr, "<stdin>", kept)
