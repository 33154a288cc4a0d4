"""Shared test setup: the SacreBLEU oracle and the real WMT/TED data sets.

The real data lives outside the repository, in ``../shared/data/real``
relative to the repository root (or where ``BLEUSTREAM_REAL_DATA`` says).
``MANIFEST.json`` there lists, per set (one directory each), its
references and system outputs; sources are ignored.
Tests that use it are parametrized here, in ``pytest_generate_tests``:

* a test asking for ``real_set`` runs once per set;
* a test asking for ``real_system`` runs once per (set, system output), or
  for only the first N systems of each set when marked
  ``@pytest.mark.real_systems(per_set=N)``.

Both are marked ``slow``: the fast subset (``-m "not slow"``) leaves them out.

When the directory is absent those tests are collected once and skipped with
a reason that says so.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from bleustream import kernels
from bleustream.metrics import ter, ter_search
from bleustream.parallel.pool import available_cores


def _real_data() -> Path:
    """``$BLEUSTREAM_REAL_DATA``, else ``../shared/data/real`` beside the repository.

    In a git worktree, "the repository" is the main checkout the worktree
    belongs to, so that every worktree finds the same shared data.
    """
    given = os.environ.get("BLEUSTREAM_REAL_DATA")
    if given:
        return Path(given)
    root = Path(__file__).resolve().parents[1]
    dot_git = root / ".git"
    if dot_git.is_file():  # a worktree: "gitdir: <main>/.git/worktrees/<name>"
        text = dot_git.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            gitdir = Path(text[len("gitdir:") :].strip())
            if gitdir.parent.name == "worktrees":
                root = gitdir.parent.parent.parent
    return root.parent / "shared" / "data" / "real"


REAL_DATA = _real_data()
REAL_DATA_MISSING = (
    f"{REAL_DATA} not present: real-data checks need the shared WMT/TED sets "
    "(../shared/data/real beside the repository, or $BLEUSTREAM_REAL_DATA)"
)


@dataclass(frozen=True)
class RealSet:
    """One directory of the real data: aligned references and system outputs."""

    name: str
    directory: Path
    trg: str
    lines: int
    refs: tuple[Path, ...]
    hyps: tuple[Path, ...]


@dataclass(frozen=True)
class RealSystem:
    """One system output of a set, scored against all of the set's references."""

    real_set: RealSet
    hyp: Path

    @property
    def id(self) -> str:
        return f"{self.real_set.name}/{self.hyp.name}"


def real_data_present() -> bool:
    return (REAL_DATA / "MANIFEST.json").is_file()


@cache
def real_sets() -> tuple[RealSet, ...]:
    """The sets listed in MANIFEST.json, references and hypotheses grouped per set.

    Each manifest key is a directory below REAL_DATA; a set's files are named
    relative to it.  Source files are left out.
    """
    if not real_data_present():
        return ()
    manifest = json.loads((REAL_DATA / "MANIFEST.json").read_text(encoding="utf-8"))
    out = []
    for name, entry in sorted(manifest.items()):
        directory = REAL_DATA / name
        out.append(
            RealSet(
                name=name,
                directory=directory,
                trg=entry.get("trg", ""),
                lines=int(entry["lines"]),
                refs=tuple(directory / f for f in entry["refs"]),
                hyps=tuple(directory / f for f in entry["hyps"]),
            )
        )
    return tuple(out)


@cache
def read_segments(path: Path) -> tuple[str, ...]:
    """A file's segments as SacreBLEU's command line reads them.

    UTF-8 (a byte-order mark stays part of the first line, as with
    SacreBLEU), lines split at "\\n" only, each line right-stripped.
    """
    with open(path, encoding="utf-8", newline="\n") as f:
        return tuple(line.rstrip() for line in f)


def read_refs(real_set: RealSet) -> tuple[tuple[str, ...], ...]:
    """The set's reference streams, one tuple of segments per reference file."""
    return tuple(read_segments(p) for p in real_set.refs)


def require_real_data() -> None:
    if not real_data_present():
        pytest.skip(REAL_DATA_MISSING)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "real_systems(per_set): run a real_system test on the first per_set systems of each set",
    )


def pytest_report_header(config: pytest.Config) -> str:
    """Which kernels this run scores with: ``compiled`` (the C extension) or
    ``python`` (not built, or ``BLEUSTREAM_PUREPYTHON`` set)."""
    forced = (
        f", {kernels.ENV_VAR}={os.environ[kernels.ENV_VAR]}" if kernels.pure_python_forced() else ""
    )
    return f"bleustream kernels: {kernels.KERNELS}{forced}"


# Files slow as a whole: those whose cases run the command in child
# processes (its end-to-end checks), and sweeps (every code point through
# every tokenizer, every TER setting against SacreBLEU's TER, the kernels'
# long property runs).  The fast subset (-m "not slow") is then the other
# in-process tests: BLEU, chrF and the differential tests against SacreBLEU,
# the analyses, the API and rewards, the drop-in, significance, the layering.
SLOW_FILES = frozenset(
    {
        "cli/test_cli.py",
        "cli/test_compat_cli.py",
        "cli/test_config.py",
        "cli/test_errors.py",
        "cli/test_metrics_cli.py",
        "cli/test_systems_cli.py",
        "comet/test_comet_analyze.py",
        "comet/test_comet_cli.py",
        "comet/test_comet_cli_parity.py",
        "comet/test_comet_statistics.py",
        "inputs/test_blocks.py",
        "inputs/test_logs.py",
        "inputs/test_merge.py",
        "inputs/test_shards.py",
        "inputs/test_stats_records.py",
        "inputs/test_stdin_lines.py",
        "metrics/test_nist.py",
        "metrics/test_self_bleu.py",
        "metrics/test_ter.py",
        "native/test_kernels.py",
        "native/test_kernels_scores.py",
        "native/test_kernels_ter.py",
        "output/test_live.py",
        "output/test_progress.py",
        "parallel/test_parallel.py",
        "parallel/test_parallel_files.py",
        "project/test_doc_examples.py",
        "project/test_packaging.py",
        "run/test_interrupts.py",
        "tokenizers/test_tokenizers.py",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test of ``SLOW_FILES`` slow."""
    here = Path(__file__).resolve().parent
    for item in items:
        if item.path.relative_to(here).as_posix() in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the default, in pyproject.toml): one worker per CPU this
    process may run on.  (pytest-xdist's own count is psutil's physical
    cores, which ignores CPU affinity and can be 1 on a two-CPU machine.)
    The count is ``-j 0``'s."""
    return available_cores()


# A test run once per real set or system output is a sweep over the real
# data: part of the whole suite, left out of the fast subset (-m "not slow").
SLOW = pytest.mark.slow


def _missing_param() -> list:
    return [pytest.param(None, id="no-real-data", marks=pytest.mark.skip(reason=REAL_DATA_MISSING))]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "real_set" in metafunc.fixturenames:
        sets = real_sets()
        params = (
            [pytest.param(s, id=s.name, marks=SLOW) for s in sets] if sets else _missing_param()
        )
        metafunc.parametrize("real_set", params)
    if "real_system" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("real_systems")
        per_set = marker.kwargs.get("per_set") if marker else None
        systems = [
            RealSystem(s, hyp) for s in real_sets() for hyp in s.hyps[slice(per_set)]
        ]  # manifest order within each set
        params = (
            [pytest.param(x, id=x.id, marks=SLOW) for x in systems] if systems else _missing_param()
        )
        metafunc.parametrize("real_system", params)


@pytest.fixture(autouse=True)
def _python_sigpipe() -> Iterator[None]:
    """Keep Python's SIGPIPE handling (ignored) in the test process.

    Importing SacreBLEU's command line module (some tests read its option
    parser) sets SIGPIPE to its default action, which would kill the whole
    test run the next time a test writes to a closed pipe.
    """
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    yield


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """For the TER tests: counts how often ``ter_search`` takes its rarer paths:
    the beam-limited DP for a hypothesis (its trace) and for a shift
    candidate, search rounds, and rounds voided by the candidate limit."""
    reached = {"beam trace": 0, "beam candidate": 0, "rounds": 0, "limit": 0}
    banded_rows = ter_search._Pair.banded_rows
    candidates = ter_search._shift_candidates

    def counting_rows(self, words, rows):  # type: ignore[no-untyped-def]
        reached["beam trace" if len(rows) == 1 else "beam candidate"] += 1
        return banded_rows(self, words, rows)

    def counting_candidates(pair, words, align, hyp_err, ref_err, budget):  # type: ignore[no-untyped-def]
        found, counted = candidates(pair, words, align, hyp_err, ref_err, budget)
        reached["rounds"] += 1
        reached["limit"] += counted >= budget
        return found, counted

    monkeypatch.setattr(ter_search._Pair, "banded_rows", counting_rows)
    monkeypatch.setattr(ter_search, "_shift_candidates", counting_candidates)
    # The paths counted are the pure module's, so TER's rows use it here too
    # (the compiled count_edits equals it: tests/native/test_kernels_ter.py).
    monkeypatch.setattr(ter, "count_edits", ter_search.py_count_edits)
    return reached
