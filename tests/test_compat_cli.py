"""SacreBLEU's command lines, run by ``sacrebleu`` and by ``bleustream``.

A script written for SacreBLEU should keep its numbers when ``sacrebleu``
becomes ``bleustream``.  Each test runs both real commands on the same
files (small subsets of the shared WMT17 set, made in ``tmp_path``) and
compares what they print; no expected value is computed by bleustream.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clirun import COMMAND
from tests.conftest import REAL_DATA, REAL_DATA_MISSING

SACREBLEU = [sys.executable, "-m", "sacrebleu"]
WMT17 = REAL_DATA / "sacrebleu-wmt17-en-de"
SYSTEMS = ("online-B.0", "uedin-nmt.4722", "online-A.0")


def env_of(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SACREBLEU", "BLEUSTREAM"))}
    env.pop("NO_COLOR", None)
    env.update(extra or {})
    return env


def call(
    command: list[str],
    *args: str | Path,
    cwd: Path,
    input: bytes = b"",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*command, *map(str, args)],
        input=input,
        capture_output=True,
        cwd=cwd,
        env=env_of(env),
        timeout=300,
    )


def sacrebleu(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return call(SACREBLEU, *args, **kwargs)  # type: ignore[arg-type]


def bleustream(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return call(COMMAND, *args, **kwargs)  # type: ignore[arg-type]


def masked(text: bytes) -> str:
    """Output with the version fields masked (the only field that differs)."""
    out = text.decode("utf-8")
    out = re.sub(r"version:[^|\s\"]+", "version:X", out)
    out = re.sub(r"(?<=\|)v:[^|\s\"]+", "v:X", out)
    return re.sub(r'"version": "[^"]*"', '"version": "X"', out)


def scores(text: bytes) -> list[str]:
    """The numbers of a text output, in order (layouts aside)."""
    return re.findall(r"\d+\.\d+", re.sub(r"version:[^|\s]+", "", text.decode("utf-8")))


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 300 lines of the WMT17 en-de reference and three systems."""
    if not WMT17.is_dir():
        pytest.skip(REAL_DATA_MISSING)
    where = tmp_path_factory.mktemp("wmt17")

    def head(name: str, to: str) -> None:
        lines = (WMT17 / name).read_bytes().splitlines(keepends=True)[:300]
        (where / to).write_bytes(b"".join(lines))

    head("newstest2017.en-de.ref.de", "ref")
    for system in SYSTEMS:
        head(f"newstest2017.hyp.{system}.en-de.de", system)
    return where


def pasted(where: Path, *names: str) -> bytes:
    columns = [(where / name).read_text(encoding="utf-8").splitlines() for name in names]
    return "".join("\t".join(fields) + "\n" for fields in zip(*columns)).encode("utf-8")


# --------------------------------------------------------------------------
# Tab-separated stdin with REF operands: one system per field
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("-f", "text"),
        ("-f", "text", "-m", "bleu", "chrf"),
        ("-f", "text", "-pbs", "-pbsn", "20"),
        ("-f", "text", "-par", "-parn", "20", "-m", "bleu", "ter"),
    ],
    ids=["table", "two-metrics", "paired-bs", "paired-ar"],
)
def test_tab_separated_stdin_with_refs_is_several_systems(
    data: Path, args: tuple[str, ...]
) -> None:
    stdin = pasted(data, *SYSTEMS[:2])
    theirs = sacrebleu("ref", *args, cwd=data, input=stdin)
    ours = bleustream("ref", *args, cwd=data, input=stdin)
    assert theirs.returncode == ours.returncode == 0, ours.stderr.decode()
    assert scores(ours.stdout) == scores(theirs.stdout)
    names = re.findall(r"(Baseline|System \d)", theirs.stdout.decode())
    assert re.findall(r"(Baseline|System \d)", ours.stdout.decode()) == names


def test_tab_separated_stdin_systems_in_latex_are_sacrebleus(data: Path) -> None:
    stdin = pasted(data, *SYSTEMS)
    args = ("ref", "-f", "latex", "-m", "bleu", "chrf")
    theirs = sacrebleu(*args, cwd=data, input=stdin)
    ours = bleustream(*args, cwd=data, input=stdin)
    assert (ours.returncode, masked(ours.stdout)) == (0, masked(theirs.stdout))


def test_one_field_on_stdin_with_refs_is_one_system(data: Path) -> None:
    stdin = (data / SYSTEMS[0]).read_bytes()
    theirs = sacrebleu("ref", "-f", "text", cwd=data, input=stdin)
    ours = bleustream("ref", "-f", "text", cwd=data, input=stdin)
    assert masked(ours.stdout) == masked(theirs.stdout)


def test_paste_without_refs_is_still_hypothesis_and_reference(data: Path) -> None:
    """bleustream's own paste input keeps its meaning (SacreBLEU refuses it)."""
    pasted_input = pasted(data, SYSTEMS[0], "ref")
    ours = bleustream("-f", "text", cwd=data, input=pasted_input)
    theirs = sacrebleu("ref", "-i", SYSTEMS[0], "-f", "text", cwd=data)
    assert masked(ours.stdout) == masked(theirs.stdout)


def test_stdin_systems_of_uneven_fields_are_an_error(data: Path) -> None:
    ours = bleustream("ref", input=b"a\tb\nc\n" + b"d\te\n" * 298, cwd=data)
    assert ours.returncode == 65
    assert b"tab-separated" in ours.stderr and len(ours.stderr.splitlines()) == 1
