"""examples/dask_score.py prints what the ``bleustream`` command prints.

The example runs as a subprocess on real Dask clusters of two worker
processes: one started here and shared by the module (``--scheduler``),
and one the example starts itself.  Its output is compared, byte for byte,
with the real ``bleustream`` command's for the same files and options, for
every registered metric; its errors with the command's errors.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bleustream import engines
from bleustream.metrics.registry import METRICS
from bleustream.parallel.blocks import MAX_MARKS
from tests.conftest import RealSet, real_sets, require_real_data
from tests.helpers.clirun import run
from tests.helpers.paths import ROOT

distributed = pytest.importorskip(
    "distributed", reason="Dask is not installed: pip install 'bleustream[dask]'"
)

EXAMPLE = ROOT / "examples" / "dask_score.py"
EXAMPLE_PREFIX = "dask_score.py: "
CLI_PREFIX = "bleustream: "


def example(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *map(str, args)],
        capture_output=True,
        timeout=timeout,
        cwd=ROOT,
    )


def real(name: str) -> RealSet:
    require_real_data()
    return next(s for s in real_sets() if s.name == name)


def lines_of(path: Path) -> list[bytes]:
    """A file's lines as bleustream splits them (at "\\n" only), without their ends."""
    lines = path.read_bytes().split(b"\n")
    return lines[:-1] if lines[-1] == b"" else lines


def operands(real_set: RealSet) -> list[str | Path]:
    """All the set's references, and its first system."""
    return [*real_set.refs, "-i", real_set.hyps[0]]


def error_line(proc: subprocess.CompletedProcess[bytes], prefix: str) -> str:
    """The one line on stderr, without the program's name."""
    lines = proc.stderr.decode("utf-8").splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(prefix), lines
    return lines[0][len(prefix) :]


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a two-process LocalCluster, shared by this module's tests."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


# ----------------------------------------------------------------------------
# The same output
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.slow
def test_json_matches_the_command_line(scheduler: str, metric: str) -> None:
    """WMT21 en-de, three references, cut into 7 partitions (uneven, not a power of 2).

    JSON carries every float at full precision: TER's summed average
    reference length (a float for three references) must be added in input
    order, as one process adds it, to come out the same.
    """
    args = [*operands(real("wmt21-en-de")), "-m", metric, "-f", "jsonl", "--no-config"]
    expected = run(*args, timeout=120)
    assert expected.returncode == 0, expected.stderr
    got = example(*args, "--scheduler", scheduler, "--partitions", "7")
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == expected.stdout
    assert b"Traceback" not in got.stderr


@pytest.mark.slow
def test_text_of_every_metric_on_its_own_local_cluster(tmp_path: Path) -> None:
    """No --scheduler: the example starts two worker processes and stops them.

    The first 1200 lines of WMT17 en-de as one paste file, every metric at
    once, text with four decimals.
    """
    wmt17 = real("sacrebleu-wmt17-en-de")
    hyp, ref = lines_of(wmt17.hyps[0])[:1200], lines_of(wmt17.refs[0])[:1200]
    paste = tmp_path / "wmt17.tsv"
    paste.write_bytes(b"".join(h + b"\t" + r + b"\n" for h, r in zip(hyp, ref)))
    args = ["-i", paste, "-m", *METRICS, "-w", "4", "--no-config"]
    expected = run(*args, timeout=120)
    assert expected.returncode == 0, expected.stderr
    assert len(expected.stdout.splitlines()) == len(METRICS)
    got = example(*args, "--workers", "2", "--partitions", "5")
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == expected.stdout


def test_partial_sums_of_fractions_are_added_in_input_order(tmp_path: Path) -> None:
    """Why the parts keep their fractional statistics segment by segment.

    TER's average reference length of three references is a third: thirds
    summed in two halves and then added differ in the last bit from the
    same thirds summed one after the other, which is SacreBLEU's sum.
    """
    lengths = [7 * i % 23 + 3 for i in range(1000)]
    hyps = ["a b"] * 1000
    refs = [[" ".join("w" * n) for n in lengths], ["w"] * 1000, ["w"] * 1000]
    values = [(n + 2) / 3 for n in lengths]
    # Precondition: adding the halves' sums is not the sequential sum.
    assert sum_left(values[:373]) + sum_left(values[373:]) != sum_left(values)
    names = ["r1", "r2", "r3", "h"]
    for name, lines in zip(names, [*refs, hyps]):
        (tmp_path / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    args = ["r1", "r2", "r3", "-i", "h", "-m", "ter", "-f", "stats", "--no-config"]
    expected = run(*args, cwd=tmp_path)
    assert expected.returncode == 0, expected.stderr
    job = engines.Job.from_argv(args)
    halves = [
        job.batch_stats(first, [hyps[first:end]], [r[first:end] for r in refs], last=end == 1000)
        for first, end in ((373, 1000), (0, 373))
    ]
    assert job.records(halves[0] + halves[1]).encode() == expected.stdout
    assert repr(sum_left(values)).encode() in expected.stdout


def test_index_and_plan_cut_files_at_line_starts(tmp_path: Path) -> None:
    """The index keeps the offset of every stride-th line, the stride doubling as lines come.

    10,001 lines (some empty, the last without a newline) are more than one
    stride of 1 can keep; parts must cover every line once, each starting
    at the byte where its first line starts.
    """
    lines = [b"x" * (i % 7) + "é".encode() * (i % 3) for i in range(10_001)]
    path = tmp_path / "lines.txt"
    path.write_bytes(b"\n".join(lines))
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    index = engines.index_file(str(path), "lines.txt")
    assert index.lines == 10_001
    assert index.stride > 1
    assert len(index.marks) <= MAX_MARKS + 1
    assert list(index.marks) == starts[: index.lines : index.stride]
    job = engines.Job.from_argv([str(path), "-i", str(path), "--no-config"])
    parts = job.plan([index, index], 7)
    assert len(parts) == 7
    assert [p.first for p in parts] == sorted(p.first for p in parts)
    assert sum(p.count for p in parts) == 10_001
    assert [p.last for p in parts] == [False] * 6 + [True]
    for part, following in zip(parts, parts[1:]):
        assert part.first + part.count == following.first
    for part in parts:
        assert part.offsets == (starts[part.first], starts[part.first])


def sum_left(values: list[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


# ----------------------------------------------------------------------------
# The same errors
# ----------------------------------------------------------------------------


def bad_utf8_file(tmp_path: Path, source: Path, line: int) -> Path:
    """``source`` with an invalid byte in line ``line`` (1-based)."""
    lines = lines_of(source)
    lines[line - 1] = lines[line - 1][:5] + b"\xff" + lines[line - 1][5:]
    bad = tmp_path / "bad.de"
    bad.write_bytes(b"".join(text + b"\n" for text in lines))
    return bad


@pytest.mark.slow
def test_errors_are_the_command_lines(scheduler: str, tmp_path: Path) -> None:
    """A missing file (66), files of different lengths and a bad line deep in the file (65).

    Files are named as given: the missing one by its relative path.
    """
    wmt21 = real("wmt21-en-de")
    short = tmp_path / "short.de"
    short.write_bytes(b"".join(line + b"\n" for line in lines_of(wmt21.refs[1])[:900]))
    cases = [
        ([wmt21.refs[0], "examples/missing.de", "-i", wmt21.hyps[0]], 66),
        ([wmt21.refs[0], short, wmt21.refs[2], "-i", wmt21.hyps[0]], 65),
        ([wmt21.refs[0], "-i", bad_utf8_file(tmp_path, wmt21.hyps[0], 777)], 65),
    ]
    for args, status in cases:
        expected = run(*args, "--no-config", cwd=ROOT)
        assert expected.returncode == status, expected.stderr
        got = example(*args, "--no-config", "--scheduler", scheduler, "--partitions", "4")
        assert got.returncode == status, got.stderr.decode()
        assert got.stdout == b""
        assert error_line(got, EXAMPLE_PREFIX) == error_line(expected, CLI_PREFIX)


@pytest.mark.slow
def test_paste_line_with_other_fields_in_a_later_partition(scheduler: str, tmp_path: Path) -> None:
    """Each partition checks its lines against line 1's number of fields, as one process does."""
    wmt21 = real("wmt21-en-de")
    lines = [h + b"\t" + r for h, r in zip(lines_of(wmt21.hyps[0]), lines_of(wmt21.refs[0]))]
    lines[850] += b"\textra"
    paste = tmp_path / "paste.tsv"
    paste.write_bytes(b"\n".join(lines) + b"\n")
    expected = run("-i", paste, "--no-config")
    assert expected.returncode == 65
    got = example("-i", paste, "--no-config", "--scheduler", scheduler, "--partitions", "3")
    assert got.returncode == 65
    assert got.stdout == b""
    message = error_line(got, EXAMPLE_PREFIX)
    assert message == error_line(expected, CLI_PREFIX)
    assert message.startswith(f"{paste}:851: expected 2 tab-separated fields")


# ----------------------------------------------------------------------------
# Refusals (no cluster needed)
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option",
    [["-sl"], ["--sentence-level"], ["--every", "100"], ["--skip-bad-lines"]],
)
def test_records_other_than_the_corpus_record_are_refused(option: list[str]) -> None:
    got = example("examples/ref.en", "-i", "examples/hyp.en", "--no-config", *option)
    assert got.returncode == 2
    assert got.stdout == b""
    flag = "--sentence-level" if option[0] == "-sl" else option[0]
    assert error_line(got, EXAMPLE_PREFIX).startswith(f"{flag} is not supported here")


def test_without_dask_exits_2_naming_the_extra(tmp_path: Path) -> None:
    """A ``distributed`` that cannot be imported stands for Dask not installed."""
    (tmp_path / "distributed.py").write_text("raise ImportError('no Dask here')\n")
    python_path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "examples/ref.en", "-i", "examples/hyp.en", "--no-config"],
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *python_path])},
    )
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert error_line(proc, EXAMPLE_PREFIX) == "needs Dask: pip install 'bleustream[dask]'"


def test_an_unreachable_scheduler_exits_69_with_no_score() -> None:
    """A scheduler nobody listens at: EX_UNAVAILABLE, one line naming it, no score."""
    with socket.socket() as probe:  # a port that was free a moment ago, closed again
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    command = [sys.executable, str(EXAMPLE), "examples/ref.en", "-i", "examples/hyp.en"]
    proc = subprocess.run(
        [*command, "--no-config", "--scheduler", address],
        capture_output=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "3s"},
    )
    assert proc.returncode == 69
    assert proc.stdout == b""
    assert error_line(proc, EXAMPLE_PREFIX).startswith(f"cannot reach the scheduler at {address}: ")
