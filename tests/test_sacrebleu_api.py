"""SacreBLEU 2.6.0's own API tests, run with ``import bleustream as sacrebleu``.

The test files (``test_api.py``, ``test_bleu.py``, ``test_chrf.py``,
``test_ter.py``, ``test_sentence_bleu.py`` of SacreBLEU's sdist) are read
from the directory ``$BLEUSTREAM_SACREBLEU_TESTS`` (or its ``test/``), which
CI fills (``.ci/run``). They run in a pytest subprocess with the shim
``tests/sacrebleu_shim/sacrebleu_as_bleustream.py`` copied in as the run's
``conftest.py`` (it is not named so here: pytest would load it into the
whole suite), and every test must pass except those in ``EXCLUDED``.
Without the files the test fails in CI (``CI=true``) and is skipped
elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

SHIM = Path(__file__).resolve().parent / "sacrebleu_shim" / "sacrebleu_as_bleustream.py"
FILES = ("test_api.py", "test_bleu.py", "test_chrf.py", "test_ter.py", "test_sentence_bleu.py")
VARIABLE = "BLEUSTREAM_SACREBLEU_TESTS"

# Test functions that are expected to fail, with the reason: they read test
# sets that are not in the cache, which SacreBLEU's own downloader fetches
# from the network (they fail offline with SacreBLEU too).  The registry's
# tests (get_available_testsets...) run: bleustream.utils is SacreBLEU's
# registry, through the testsets extra.
EXCLUDED = {
    "test_api.py::test_api_get_source": "downloads a WMT test set (3 cases)",
    "test_api.py::test_api_get_reference": "downloads a WMT test set (3 cases)",
}
EXCLUDED_CASES = 6  # the parametrized cases of EXCLUDED
TOTAL_CASES = 98  # every test of the five files


def _test_files() -> Path | None:
    given = os.environ.get(VARIABLE)
    if not given:
        return None
    for folder in (Path(given), Path(given) / "test"):
        if all((folder / name).is_file() for name in FILES):
            return folder
    return None


def test_sacrebleus_api_tests_pass_on_bleustream(tmp_path: Path) -> None:
    folder = _test_files()
    if folder is None:
        reason = f"SacreBLEU 2.6.0's test files not found: set {VARIABLE} (see .ci/run)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    for name in FILES:
        shutil.copy(folder / name, tmp_path / name)
    shutil.copy(SHIM, tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    report = tmp_path / "report.xml"
    plugins_off = ("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *plugins_off, f"--junitxml={report}", *FILES],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "REAL SACREBLEU IMPORTED" not in done.stdout, done.stdout[-2000:]
    assert report.is_file(), done.stdout[-2000:] + done.stderr[-2000:]
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[-1]
        node = f"{module}.py::{case.get('name')}"
        bad = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[node] = bad[0] if bad else "passed"
    assert len(outcomes) == TOTAL_CASES, done.stdout[-3000:]

    def excluded(node: str) -> bool:
        return node.split("[", 1)[0] in EXCLUDED

    unexpected = {n: o for n, o in outcomes.items() if o != "passed" and not excluded(n)}
    assert unexpected == {}, done.stdout[-5000:]
    # Offline they fail; with the network they may pass.
    assert len([n for n in outcomes if excluded(n)]) == EXCLUDED_CASES, sorted(outcomes)
