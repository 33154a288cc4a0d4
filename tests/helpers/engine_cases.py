"""What the engine tests share: small real inputs, the cases, and the examples run here.

Each case is a ``bleustream`` command line on the first ``HEAD`` lines of
real WMT sets; an engine's output for it must be the command's, byte for
byte.  The examples run in the test process (``main(argv)``), on the engine
its test module started once.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from bleustream import engines
from tests.conftest import real_sets, require_real_data
from tests.helpers.clirun import run
from tests.helpers.paths import ROOT

HEAD = 300  # lines of each file: the engines' overhead, not the counting, is tested


@dataclass(frozen=True)
class Small:
    """The first HEAD lines of WMT17 en-de (one reference) and WMT21 en-de (three)."""

    ref17: Path
    hyps17: tuple[Path, ...]
    refs21: tuple[Path, ...]
    hyp21: Path


def head(source: Path, target: Path, lines: int = HEAD) -> Path:
    data = source.read_bytes().split(b"\n")[:lines]
    target.write_bytes(b"".join(line + b"\n" for line in data))
    return target


def small_inputs(directory: Path) -> Small:
    require_real_data()
    sets = {s.name: s for s in real_sets()}
    wmt17, wmt21 = sets["sacrebleu-wmt17-en-de"], sets["wmt21-en-de"]
    return Small(
        head(wmt17.refs[0], directory / "ref17.de"),
        tuple(head(h, directory / f"hyp17.{k}.de") for k, h in enumerate(wmt17.hyps[:2])),
        tuple(head(r, directory / f"ref21.{k}.de") for k, r in enumerate(wmt21.refs)),
        head(wmt21.hyps[0], directory / "hyp21.de"),
    )


CASES: dict[str, Callable[[Small], list[str | Path]]] = {
    "bleu": lambda s: [s.ref17, "-i", s.hyps17[0]],
    "chrf-two-systems": lambda s: [s.ref17, "-i", *s.hyps17, "-m", "chrf"],
    "ter-three-refs-json": lambda s: [*s.refs21, "-i", s.hyp21, "-m", "ter", "-f", "json"],
    "paired-bs": lambda s: [
        s.ref17, "-i", *s.hyps17, "-m", "bleu", "chrf", "ter", "--paired-bs", "-pbsn", "50",
    ],
}  # fmt: skip


@cache
def command_output(*args: str) -> bytes:
    """What the ``bleustream`` command prints for ``args``."""
    done = run(*args, "--no-config", timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def load_example(name: str) -> ModuleType:
    path = ROOT / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def failing(job: engines.Job) -> engines.Job:
    """The job, with every part but the first failing in the worker (a bug, not bad input)."""

    class Failing(engines.Job):  # defined here: the engines pickle it by value
        def part_stats(self, part: engines.Part) -> engines.Stats:
            if part.first:
                raise RuntimeError("injected failure")
            return super().part_stats(part)

    return Failing(job.options, job.names, job.paths, src_files=job.src_files)


def dropping(job: engines.Job) -> engines.Job:
    """The job, with its second part's statistics lost on the way (an engine
    that drops a block): the worker returns nothing counted for it."""

    class Dropping(engines.Job):  # defined here: the engines pickle it by value
        def part_stats(self, part: engines.Part) -> engines.Stats:
            stats = super().part_stats(part)
            return self.zero() if part.first and not part.last else stats

    return Dropping(job.options, job.names, job.paths, src_files=job.src_files)


def check_engine(
    example: ModuleType,
    engine: str,
    small: Small,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[bytes],
) -> None:
    """An engine's example against the command, on the engine its test started.

    Every case's output is the command's, byte for byte.  A worker that
    fails is one error naming the engine; a part the engine loses is one
    error saying which segments are missing; both exit 71.  A bad line in a
    later part is the command's error (65).  None of them prints a score.
    """
    for case, make in CASES.items():
        args = [str(a) for a in make(small)]
        status = example.main([*args, "--no-config", "--parts", "3"])
        out, err = capsys.readouterr()
        assert status == 0, (case, err)
        assert out == command_output(*args), case

    argv = [str(small.ref17), "-i", str(small.hyps17[0]), "--no-config", "--parts", "3"]
    for broken, ending in (
        (failing, f"{engine} failed ("),
        (dropping, "statistics of segments 101 to 200 are missing; no score is printed"),
    ):
        status = engines.run(
            lambda job, args, broken=broken: example.score(broken(job), args),
            argv,
            prog=example.PROG,
            engine=engine,
            extra=f"bleustream[{engine.lower()}]",
            parser=example.build_parser(),
        )
        out, err = capsys.readouterr()
        assert status == 71, err
        assert out == b""
        line = last_line(err)  # the engine may log lines of its own before it
        assert line.startswith(f"{example.PROG}: "), line
        if broken is failing:
            assert line.startswith(f"{example.PROG}: {ending}"), line
            assert "RuntimeError: injected failure" in line
            assert line.endswith("; no score is printed")
        else:
            assert line == f"{example.PROG}: {ending}"

    lines = small.hyps17[0].read_bytes().split(b"\n")
    lines[250] = lines[250][:3] + b"\xff" + lines[250][3:]
    bad = tmp_path / "bad.de"
    bad.write_bytes(b"\n".join(lines))
    status = example.main([str(small.ref17), "-i", str(bad), "--no-config", "--parts", "3"])
    out, err = capsys.readouterr()
    assert status == 65
    assert out == b""
    assert last_line(err).startswith(f"{example.PROG}: {bad}:251: ")


def one_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8").splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def last_line(stderr: bytes) -> str:
    """The last line on stderr: the script's own, after anything the engine logged."""
    lines = stderr.decode("utf-8").splitlines()
    assert lines
    assert not any(line.startswith("Traceback") for line in lines), lines
    return lines[-1]


# COMET on an engine: a part starts windows of its own, and a segment's
# score moves with the batch it is run in (padding changes the shapes of
# fp32 matrix products) by about 1e-8.  COMET's numbers are the command's
# within unbabel-comet's tolerance for any batching; all else is equal.
COMET_TOLERANCE = 1e-6
COMET_NUMBERS = ("score", "score_sum", "mean", "ci")


def assert_same_records(got: bytes | str, expected: bytes) -> None:
    """The command's JSON Lines records: COMET's numbers within
    COMET_TOLERANCE, everything else equal, every other record byte for byte."""
    text = got.decode("utf-8") if isinstance(got, bytes) else got
    ours, theirs = text.splitlines(), expected.decode("utf-8").splitlines()
    assert len(ours) == len(theirs)
    for line, want in zip(ours, theirs):
        a, b = json.loads(line), json.loads(want)
        if a.get("metric") != "COMET":
            assert line == want
            continue
        for key in COMET_NUMBERS:
            if b.get(key) is not None:
                assert abs(a.pop(key) - b.pop(key)) <= COMET_TOLERANCE, key
        assert a == b


def comet_args(small: Small, checkpoint: Path, src: Path) -> list[str]:
    """WMT21's first system against its first reference, BLEU and COMET (a
    real checkpoint) with intervals: every segment's rows travel."""
    return [
        *map(str, (small.refs21[0], "-i", small.hyp21, "--src", src, "--comet-model", checkpoint)),
        *("-m", "bleu", "comet", "--comet-device", "cpu", "-ci", "-f", "jsonl"),
    ]


def check_comet_engine(
    example: ModuleType,
    small: Small,
    checkpoint: Path,
    capsys: pytest.CaptureFixture[bytes],
) -> None:
    """COMET beside BLEU on an engine: each worker loads the model and reads
    its part of --src; the records are the command's (``assert_same_records``)."""
    require_real_data()
    wmt21 = next(s for s in real_sets() if s.name == "wmt21-en-de")
    src = head(wmt21.directory / "newstest2021.en-de.src.en", small.hyp21.with_name("src21.en"))
    args = comet_args(small, checkpoint, src)
    status = example.main([*args, "--no-config", "--parts", "3"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert_same_records(out, command_output(*args))
