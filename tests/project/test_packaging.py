"""Packaging: a wheel carries the compiled kernels; an sdist without a
compiler installs the pure path, saying so in one warning.

Both are built from a copy of the project's files, installed into fresh
virtual environments, and used there through the ``bleustream`` command.
pip builds them in isolated environments, which need setuptools from the
package index: where it cannot be reached the test is skipped, saying so,
and in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

from tests.helpers.paths import ROOT
from tests.helpers.required import missing

SAMPLE = b"the cat sat on the mat\tthe cat sat on the mat\na b c d\ta b c e\n"
OFFLINE_SIGNS = ("No matching distribution", "Could not find a version", "NewConnectionError")


def _project_copy(where: Path) -> Path:
    """The files git knows (committed or not), without build output."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    copy = where / "project"
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file() and not name.startswith(".ci"):
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    return copy


def _pip(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    _checked(done)
    return done


def _checked(done: subprocess.CompletedProcess[str]) -> None:
    """A pip run that succeeded; a skip (a failure in CI) if it could not
    reach the package index."""
    if done.returncode != 0 and any(sign in done.stdout + done.stderr for sign in OFFLINE_SIGNS):
        missing("pip could not reach the package index for the build's setuptools")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def _fresh_venv(where: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(where)
    return where / ("Scripts" if os.name == "nt" else "bin")


def _kernels_and_score(bin_dir: Path, env: dict[str, str], cwd: Path) -> tuple[str, str]:
    python = bin_dir / "python"
    kernels = subprocess.run(
        [python, "-c", "import bleustream; print(bleustream.KERNELS)"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert kernels.returncode == 0, kernels.stderr
    scored = subprocess.run(
        [bin_dir / "bleustream", "-b"], input=SAMPLE, cwd=cwd, env=env, capture_output=True
    )
    assert scored.returncode == 0, scored.stderr
    return kernels.stdout.strip(), scored.stdout.decode().strip()


def _install(bin_dir: Path, args: list[str], env: dict[str, str], build: bool = False) -> str:
    """pip install into a venv; its output.  Only a ``build`` (of an sdist)
    needs the package index, and may be skipped where it cannot be reached."""
    done = subprocess.run(
        [bin_dir / "python", "-m", "pip", "install", "--no-deps", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if build:
        _checked(done)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("BLEUSTREAM_PUREPYTHON", "PYTHONPATH")}


def test_a_wheel_installs_its_kernels_without_a_compiler(tmp_path: Path) -> None:
    project = _project_copy(tmp_path)
    env = _env()
    _pip(["wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(project)], env, tmp_path)
    (wheel,) = (tmp_path / "dist").glob("bleustream-*.whl")
    assert "-none-any" not in wheel.name  # a platform wheel: it holds the extension
    bin_dir = _fresh_venv(tmp_path / "venv")
    no_compiler = {**env, "CC": "false", "CXX": "false"}
    _install(bin_dir, ["--no-index", str(wheel)], no_compiler)
    kernels, score = _kernels_and_score(bin_dir, no_compiler, tmp_path)
    assert kernels == "compiled"
    assert float(score) > 0


def test_an_sdist_without_a_compiler_installs_the_pure_path_with_one_warning(
    tmp_path: Path,
) -> None:
    project = _project_copy(tmp_path)
    env = _env()
    sdist = subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "dist")],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert sdist.returncode == 0, sdist.stderr
    (archive,) = (tmp_path / "dist").glob("bleustream-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {"/".join(Path(name).parts[-2:]) for name in tar.getnames()}
    # the C kernels' sources, their header and their stubs
    kernels_dir = ROOT / "bleustream" / "_native"
    shipped = {
        f"_native/{p.name}" for p in kernels_dir.glob("*") if p.suffix in (".c", ".h", ".pyi")
    }
    assert {"_native/module.c", "_native/kernels.h", "_native/_kernels.pyi"} <= shipped
    assert shipped <= names
    bin_dir = _fresh_venv(tmp_path / "venv")
    no_compiler = {**env, "CC": "false", "CXX": "false"}
    output = _install(bin_dir, ["-v", str(archive)], no_compiler, build=True)
    warned = [line for line in output.splitlines() if "pure-Python" in line]
    assert warned, output[-3000:]
    kernels, score = _kernels_and_score(bin_dir, no_compiler, tmp_path)
    assert kernels == "python"
    assert float(score) > 0
