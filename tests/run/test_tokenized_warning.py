"""SacreBLEU's warning that a system looks tokenized (100 hypotheses or more
that end in " ."), said by every way a run counts: a batch at a time in
one process, blocks of files on ``-j`` workers, batches of standard input
on them, and segment by segment (``--every``).  SacreBLEU, run in the test,
says whether and what to warn."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.clirun import run

WARNING = "That's 100 lines that end in a tokenized period ('.')"


def _sacrebleu(*args: str, cwd: Path) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "sacrebleu", *args], capture_output=True, cwd=cwd, check=True
    )
    return [line.removeprefix("sacreBLEU: ") for line in proc.stderr.decode().splitlines()]


def _ours(*args: str, cwd: Path, stdin: bytes | None = None) -> list[str]:
    proc = run(*args, cwd=cwd, input=stdin)
    assert proc.returncode == 0, proc.stderr
    return [line.removeprefix("bleustream: ") for line in proc.stderr.decode().splitlines()]


@pytest.mark.parametrize(("lines", "tokenized"), [(700, 99), (700, 100), (300, 300)])
@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_the_warning_is_sacrebleus_on_every_counting_path(
    tmp_path: Path, lines: int, tokenized: int, metric: str
) -> None:
    # the tokenized-looking lines spread over the input (every block has some)
    step = lines // tokenized
    hyps = [
        f"the cat {i} sat ." if i % step == 0 and i // step < tokenized else f"the cat {i} sat."
        for i in range(lines)
    ]
    refs = [f"the cat {i} sat on it." for i in range(lines)]
    assert sum(h.endswith(" .") for h in hyps) == tokenized
    (tmp_path / "hyp").write_text("".join(h + "\n" for h in hyps), "utf-8")
    (tmp_path / "ref").write_text("".join(r + "\n" for r in refs), "utf-8")
    want = _sacrebleu("ref", "-i", "hyp", "-b", "-m", metric, cwd=tmp_path)
    assert (WARNING in want) is (tokenized >= 100 and metric == "bleu")
    pasted = "".join(f"{h}\t{r}\n" for h, r in zip(hyps, refs)).encode()
    for args, stdin in (
        (("ref", "-i", "hyp", "-j", "1"), None),
        (("ref", "-i", "hyp", "-j", "2"), None),
        (("ref", "-i", "hyp", "--every", "250", "-f", "tsv"), None),
        (("-j", "2"), pasted),
        (("-j", "1"), pasted),
    ):
        got = _ours(*args, "-b", "-m", metric, cwd=tmp_path, stdin=stdin)
        assert got == want, args
