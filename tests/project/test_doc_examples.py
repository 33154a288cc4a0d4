"""Every shell example of the documentation runs, and prints what it shows.

An example is a line ``$ command`` followed by the exact lines the command
writes on standard output, inside a fenced ```console block of README.md or
docs/*.md, or inside an ``.EX``/``.EE`` block of the man page's EXAMPLES
section.  The commands of one block run in turn, each with ``bash -c``, in
a fresh copy of ``examples/`` with ``examples/data`` as the working
directory, so a block may make files for the commands after it.  The
version in signatures (``version:bleustream-0.2.0``) is compared as the
current version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

import bleustream
from tests.helpers.paths import ROOT

EXAMPLES = ROOT / "examples"
MAN = ROOT / "man" / "bleustream.1"
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

VERSION = re.compile(r"bleustream-\d+\.\d+\.\d+")


class Example(NamedTuple):
    command: str
    output: list[str]


class Block(NamedTuple):
    source: str  # file:line of the block
    examples: list[Example]


def session(lines: list[str]) -> list[Example]:
    """The examples of a shell session: ``$ command`` lines and their output."""
    examples: list[Example] = []
    for line in lines:
        if line.startswith("$ "):
            examples.append(Example(line[2:], []))
        elif examples:
            examples[-1].output.append(line)
        elif line.strip():
            raise ValueError(f"output before the first command: {line!r}")
    return examples


def markdown_blocks(path: Path) -> list[Block]:
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    start = None
    for number, line in enumerate(lines, 1):
        if start is None and line.strip() == "```console":
            start = number
        elif start is not None and line.strip() == "```":
            body = lines[start : number - 1]
            blocks.append(Block(f"{path.relative_to(ROOT)}:{start}", session(body)))
            start = None
    assert start is None, f"{path}:{start}: a console block is not closed"
    return blocks


def unescape_roff(line: str) -> str:
    """A line of an .EX block as man shows it."""
    for escape, text in (
        ("\\-", "-"),
        ("\\(aq", "'"),
        ("\\(dq", '"'),
        ("\\&", ""),
        ("\\(*m", "μ"),
        ("\\(+-", "±"),
        ("\\e", "\\"),
    ):
        line = line.replace(escape, text)
    return line


def man_section(name: str) -> list[str]:
    lines = MAN.read_text(encoding="utf-8").splitlines()
    start = lines.index(f".SH {name}")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(".SH ")), len(lines))
    return lines[start + 1 : end]


def man_blocks() -> list[Block]:
    lines = MAN.read_text(encoding="utf-8").splitlines()
    first = lines.index(".SH EXAMPLES") + 1
    blocks: list[Block] = []
    body: list[str] | None = None
    start = 0
    for number, line in enumerate(man_section("EXAMPLES"), first + 1):
        if line == ".EX":
            body, start = [], number
        elif line == ".EE":
            assert body is not None
            blocks.append(Block(f"man/bleustream.1:{start}", session(body)))
            body = None
        elif body is not None:
            body.append(unescape_roff(line))
    return blocks


def all_blocks() -> list[Block]:
    blocks = [block for path in MARKDOWN for block in markdown_blocks(path)]
    return blocks + man_blocks()


BLOCKS = [block for block in all_blocks() if block.examples]


def test_every_document_has_examples() -> None:
    sources = {block.source.split(":")[0] for block in BLOCKS}
    assert "README.md" in sources
    assert "man/bleustream.1" in sources
    count = sum(len(block.examples) for block in BLOCKS)
    assert 15 <= count <= 80, f"{count} example commands"


def test_man_examples_are_all_sessions() -> None:
    """Every block of the man page's EXAMPLES is run: none is left as plain text."""
    blocks = man_blocks()
    assert blocks
    for block in blocks:
        assert block.examples, f"{block.source}: an example block without a $ command"


@pytest.fixture(scope="module")
def path_with_bleustream(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH on which ``bleustream`` is the command of this checkout."""
    script = Path(sys.executable).with_name("bleustream")
    if script.exists():
        return f"{script.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    bindir = tmp_path_factory.mktemp("bin")
    shim = bindir / "bleustream"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m bleustream "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"


@pytest.mark.parametrize("block", BLOCKS, ids=[block.source for block in BLOCKS])
def test_example_prints_what_it_shows(
    block: Block, tmp_path: Path, path_with_bleustream: str
) -> None:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    cwd = copy / "data"
    env = {**os.environ, "PATH": path_with_bleustream, "LC_ALL": "C.UTF-8"}
    for example in block.examples:
        proc = subprocess.run(
            ["bash", "-c", example.command],
            cwd=cwd,
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        shown = "".join(
            VERSION.sub(f"bleustream-{bleustream.__version__}", line) + "\n"
            for line in example.output
        )
        got = proc.stdout.decode("utf-8")
        assert got == shown, (
            f"{block.source}: $ {example.command}\n"
            f"status {proc.returncode}, stderr:\n{proc.stderr.decode('utf-8', 'replace')}"
        )
