"""The one line ``import bleustream`` writes when the compiled kernels were
expected and are missing: a source tree whose extension is not built.

Each case imports a copy of the package in a fresh interpreter: a checkout
(``setup.py`` beside the package) without the built extension says so once
on standard error; the same with ``BLEUSTREAM_PUREPYTHON=1``, an installed
copy without kernels (no ``setup.py`` beside it: a pure install by design)
and the built tree say nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

SHOW = "import bleustream; print(bleustream.KERNELS)"


def _copy(where: Path, with_setup: bool) -> Path:
    """The package without any built extension; ``setup.py`` beside it if asked."""
    shutil.copytree(
        ROOT / "bleustream",
        where / "bleustream",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
    )
    if with_setup:
        shutil.copy2(ROOT / "setup.py", where / "setup.py")
    return where


def _import(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    unset = ("BLEUSTREAM_PUREPYTHON", "PYTHONPATH")
    clean = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run(
        [sys.executable, "-c", SHOW],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_unbuilt_source_tree_says_so_once(tmp_path: Path) -> None:
    tree = _copy(tmp_path, with_setup=True)
    done = _import(tree)
    assert done.returncode == 0 and done.stdout == "python\n"
    (line,) = done.stderr.splitlines()
    assert line.startswith("bleustream: the compiled kernels are not built in the source tree ")
    assert str(tree.resolve()) in line
    assert "build_ext --inplace" in line and "BLEUSTREAM_PUREPYTHON=1" in line


@pytest.mark.parametrize(
    ("with_setup", "env"),
    [(True, {"BLEUSTREAM_PUREPYTHON": "1"}), (False, {}), (False, {"BLEUSTREAM_PUREPYTHON": "0"})],
    ids=["pure-asked", "installed-pure", "installed-pure-0"],
)
def test_no_line_for_the_pure_path_asked_or_installed(
    tmp_path: Path, with_setup: bool, env: dict[str, str]
) -> None:
    done = _import(_copy(tmp_path, with_setup), **env)
    assert done.returncode == 0 and done.stdout == "python\n"
    assert done.stderr == ""


def test_no_line_from_the_built_tree() -> None:
    done = _import(ROOT)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == "compiled\n"
