"""The man page and README document what the command does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clirun import run

ROOT = Path(__file__).resolve().parents[1]
MAN = ROOT / "man" / "bleustream.1"
README = ROOT / "README.md"


def help_options() -> set[str]:
    text = run("--help").stdout.decode()
    # An option stands after white space, a bracket or a comma.
    return set(re.findall(r"(?:^|(?<=[\s\[(,]))(--?[A-Za-z][\w-]*)", text, re.M))


def man_text() -> str:
    return (
        MAN.read_text(encoding="utf-8").replace("\\-", "-").replace("\\fB", "").replace("\\fP", "")
    )


def test_help_lists_options() -> None:
    options = help_options()
    assert {"--tokenize", "-tok", "--format", "--every", "--sentence-level"} <= options


def test_every_help_option_is_in_the_man_page() -> None:
    man = man_text()
    missing = sorted(
        opt for opt in help_options() if not re.search(rf"(?<![\w-]){opt}(?![\w-])", man)
    )
    assert not missing, f"options in --help but not in man/bleustream.1: {missing}"


def test_man_page_renders_without_warnings() -> None:
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed: cannot render the man page")
    proc = subprocess.run(
        ["groff", "-man", "-ww", "-z", str(MAN)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    assert proc.stderr == ""


def test_man_l_renders_without_warnings() -> None:
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    env = {**os.environ, "MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MAN_KEEP_FORMATTING": "0"}
    proc = subprocess.run(
        ["man", "--warnings", "-l", str(MAN)], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert "EXIT STATUS" in re.sub(".\b", "", proc.stdout)


def test_exit_statuses_agree_in_help_man_and_readme() -> None:
    statuses = {"0", "2", "65", "66", "74", "130", "143"}
    helptext = run("--help").stdout.decode()
    man = man_text()
    readme = README.read_text(encoding="utf-8")
    for status in statuses:
        assert (
            re.search(rf"^\s+{status}\s", helptext, re.M) or f"({status} for SIGTERM)" in helptext
        )
        assert re.search(rf"^\.B {status}$", man, re.M) or f"({status} for SIGTERM)" in man
        assert re.search(rf"^\| {status} \|", readme, re.M) or f"({status} for SIGTERM)" in readme


def test_readme_commands_are_what_ci_runs() -> None:
    readme = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = "python3 -m pip install -e '.[test]' && python3 -m pytest"
    assert test_command in readme
    assert test_command in ci
