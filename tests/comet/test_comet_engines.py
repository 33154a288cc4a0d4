"""``-m comet`` on the distributed engines: a real checkpoint (built locally
with unbabel-comet's classes), scored by ``examples/dask_score.py`` on a
real Dask cluster of two worker processes, each loading the model and
reading its part of ``--src`` beside the texts, prints what the
``bleustream`` command prints; the ``Job`` API cut into any number of
parts does too; a source file of another length is the command's one line
of error.

Every record but COMET's is the command's, byte for byte.  A part starts
windows of its own, and a segment's COMET score moves with the batch it is
run in (its padding changes the shapes of fp32 matrix products) by about
1e-8: COMET's numbers are the command's within 1e-6, unbabel-comet's own
tolerance for any batching, and everything else in its records is equal."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bleustream import engines
from bleustream.errors import InputError
from tests.conftest import REAL_DATA, require_real_data
from tests.helpers.clirun import run
from tests.helpers.engine_cases import assert_same_records
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.slow  # a real cluster, a real model in each worker

distributed = pytest.importorskip(
    "distributed", reason="Dask is not installed: pip install 'bleustream[dask]'"
)

LINES = 60
SET = REAL_DATA / "wmt21-en-de"
SRC, HYP, HYP2, REF = (
    "newstest2021.en-de.src.en",
    "newstest2021.en-de.hyp.Facebook-AI.de",
    "newstest2021.en-de.hyp.Online-W.de",
    "newstest2021.en-de.ref.A.de",
)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    require_real_data()
    out = {}
    for key, name in (("src", SRC), ("hyp", HYP), ("hyp2", HYP2), ("ref", REF)):
        lines = (SET / name).read_text(encoding="utf-8").splitlines()[:LINES]
        out[key] = tmp_path / name
        out[key].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def argv(files: dict[str, Path], checkpoint: Path, *extra: str) -> list[str]:
    return [
        str(files["ref"]),
        "-i",
        str(files["hyp"]),
        str(files["hyp2"]),
        "--src",
        str(files["src"]),
        "-m",
        "bleu",
        "comet",
        "--comet-model",
        str(checkpoint),
        "--comet-device",
        "cpu",
        "-f",
        "jsonl",
        "--no-config",
        *extra,
    ]


@pytest.mark.parametrize("extra", [[], ["--paired-bs"]], ids=["corpus", "paired-bs"])
def test_a_dask_cluster_prints_what_the_command_prints(
    extra: list[str],
    scheduler: str,
    files: dict[str, Path],
    comet_checkpoint: Callable[[str], Path],
) -> None:
    args = argv(files, comet_checkpoint("regression"), *extra)
    cluster = ["--scheduler", scheduler, "--partitions", "3"]
    expected = run(*args, timeout=600)
    assert expected.returncode == 0, expected.stderr
    got = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "dask_score.py"), *args, *cluster],
        capture_output=True,
        timeout=600,
        cwd=ROOT,
    )
    assert got.returncode == 0, got.stderr.decode()
    assert_same_records(got.stdout, expected.stdout)
    assert b"COMET" in got.stdout


def test_any_number_of_parts_gives_the_commands_records(
    files: dict[str, Path], comet_checkpoint: Callable[[str], Path]
) -> None:
    args = argv(files, comet_checkpoint("regression"))
    expected = run(*args, timeout=600)
    assert expected.returncode == 0, expected.stderr
    job = engines.Job.from_argv(args)
    for parts in (1, 4, 7):
        pieces = [job.part_stats(part) for part in job.parts(parts)]
        total = sum(reversed(pieces), job.zero())  # any order
        assert_same_records(job.records(total), expected.stdout)


@pytest.mark.parametrize("change", [-1, 1], ids=["shorter", "longer"])
def test_a_source_file_of_another_length_is_the_commands_error(
    change: int, files: dict[str, Path], comet_checkpoint: Callable[[str], Path]
) -> None:
    lines = files["src"].read_text(encoding="utf-8").splitlines()
    lines = lines[:change] if change < 0 else [*lines, "one more"]
    files["src"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = argv(files, comet_checkpoint("regression"))
    expected = run(*args, timeout=600)
    assert expected.returncode == 65
    job = engines.Job.from_argv(args)
    total = sum((job.part_stats(part) for part in job.parts(3)), job.zero())
    with pytest.raises(InputError) as raised:
        job.records(total)
    # The command says the model's truncation first; its error is the last line.
    assert expected.stderr.decode("utf-8").splitlines()[-1] == f"bleustream: {raised.value}"


def test_dask_workers_share_one_cache_file(
    scheduler: str, files: dict[str, Path], comet_checkpoint: Callable[[str], Path], tmp_path: Path
) -> None:
    """Two worker processes write their scores into one --comet-cache file
    (SQLite's lock, a writer waiting its turn); the command then reads every
    score back from it, with no forward pass."""
    cache = tmp_path / "scores.db"
    args = argv(files, comet_checkpoint("regression"), "--comet-cache", str(cache))
    cluster = ["--scheduler", scheduler, "--partitions", "6"]
    got = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "dask_score.py"), *args, *cluster],
        capture_output=True,
        timeout=600,
        cwd=ROOT,
    )
    assert got.returncode == 0, got.stderr.decode()
    again = run(*args, timeout=600)
    assert again.returncode == 0, again.stderr
    assert_same_records(got.stdout, again.stdout)
    assert f"--comet-cache {cache}: " in again.stderr.decode()
    assert " 0 scored by the model in 0 forward passes" in again.stderr.decode()
