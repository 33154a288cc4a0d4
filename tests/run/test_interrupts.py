"""No unmarked partial score, ever (the rule of the manual's EXIT STATUS).

A run is interrupted mid-stream by SIGINT or SIGTERM, with ``-j 1`` and
``-j 2``, in every format, with ``-b``, several systems, paired tests,
``--every``, ``-sl``, compat mode, NIST and Self-BLEU.  Then:

* the exit status is 130 (SIGINT) or 143 (SIGTERM);
* standard output holds either the partial score marked on every line or
  record that carries it, or no score at all (the records written before
  the signal, whole, stay);
* in the second case standard error holds it, each line marked partial;
* either way the score is that of the segments read, which stderr counts:
  the uninterrupted run's over those segments, marks aside.

The signal is sent once the process shows it has read the lines written:
its records on stdout, else the kernel's word that it waits for more input
(``tests.helpers.waiting``); never after a fixed sleep.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from sacrebleu.metrics.bleu import BLEU

from tests.helpers.clirun import COMMAND, run
from tests.helpers.waiting import (
    HAS_PROC,
    handlers_installed,
    read_line,
    signals_unblocked,  # noqa: F401 (a fixture)
    wait_for,
    wait_until_waiting_for_input,
    wait_until_writing_the_end,
)

pytestmark = [
    pytest.mark.skipif(not HAS_PROC, reason="the signs of readiness are read in /proc"),
    pytest.mark.usefixtures("signals_unblocked"),
]

HYPS = [
    "The cat sat on the mat by the door.",
    "A dog barked at the postman twice this morning.",
    "We will meet again at noon in the old market.",
    "Prices rose sharply in the last quarter.",
    "She reads a book every week before bed.",
    "The train was late because of the snow.",
]
OTHER = [
    "The cat is sitting on the mat near the door.",
    "A dog barked at the mailman this morning.",
    "We meet again at noon in the market.",
    "Prices went up fast last quarter.",
    "She read one book each week.",
    "Snow made the train late.",
]
REFS = [
    "The cat sat on the mat near the door.",
    "A dog barked twice at the postman this morning.",
    "We shall meet again at noon in the old market.",
    "Prices rose steeply in the last quarter.",
    "Every week she reads a book before going to bed.",
    "Because of the snow, the train was late.",
]
SENT = 4  # lines written before the signal; the input would have had 6
STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    marked: bool  # stdout carries the partial score, marked; else none at all
    per_line: int = 0  # records on stdout per line read (the sign); 0: /proc
    header: int = 0  # lines on stdout before any record
    systems: int = 1
    sentences: bool = False  # Self-BLEU: one sentence a line


CASES = {
    # The streaming loop, one system.
    "text": Case(("-f", "text"), marked=True),
    "jsonl": Case(("-f", "jsonl", "-m", "bleu", "chrf"), marked=True),
    "tsv": Case(("-f", "tsv", "-m", "bleu", "ter"), marked=True, header=1),
    "json": Case(("-f", "json", "-m", "bleu", "chrf"), marked=True),
    "stats": Case(("-f", "stats"), marked=True),
    "score-only": Case(("-b",), marked=False),
    "score-only-jsonl": Case(("-b", "-f", "jsonl", "-m", "bleu", "chrf"), marked=False),
    "score-only-tsv": Case(("-b", "-f", "tsv"), marked=False),
    "confidence-text": Case(("-ci", "-cin", "50"), marked=True),
    "every-text": Case(("--every", "1"), marked=True, per_line=1),
    "every-score-only": Case(("--every", "1", "-b"), marked=False, per_line=1),
    "every-tsv": Case(("--every", "1", "-f", "tsv"), marked=True, per_line=1, header=1),
    "sentences-jsonl": Case(("-sl", "-f", "jsonl"), marked=True, per_line=1),
    "compat-json": Case(("--compat", "sacrebleu"), marked=False),
    "compat-text": Case(("--compat", "sacrebleu", "-f", "text"), marked=False),
    "compat-confidence": Case(("--compat", "sacrebleu", "-ci", "-cin", "50"), marked=False),
    "compat-every": Case(("--compat", "sacrebleu", "-f", "text", "--every", "1"), False, 1),
    # -sl in SacreBLEU's layout: the segment lines only, each whole.
    "compat-sentences": Case(("--compat", "sacrebleu", "-sl"), marked=True, per_line=1),
    # Several systems, paired tests.
    "systems-text": Case(("--systems", "2"), marked=False, systems=2),
    "systems-jsonl": Case(("--systems", "2", "-f", "jsonl"), marked=True, systems=2),
    "systems-json": Case(("--systems", "2", "-f", "json"), marked=True, systems=2),
    "latex": Case(("--systems", "2", "-f", "latex"), marked=False, systems=2),
    "paired-bs-text": Case(("--systems", "2", "-pbs", "-pbsn", "50"), False, systems=2),
    "paired-bs-json": Case(("--systems", "2", "-pbs", "-pbsn", "50", "-f", "json"), True, 0, 0, 2),
    "paired-ar-tsv": Case(("--systems", "2", "-par", "-parn", "50", "-f", "tsv"), True, 0, 1, 2),
    "paired-bs-every": Case(
        ("--systems", "2", "-pbs", "-pbsn", "50", "--every", "1"), False, 2, 0, 2
    ),
    "compat-paired-bs": Case(
        ("--compat", "sacrebleu", "--systems", "2", "-pbs", "-pbsn", "50"), False, 0, 0, 2
    ),
    # NIST's corpus-wide loop: every record is scored at the end.
    "nist-jsonl": Case(("-m", "nist", "-f", "jsonl", "-sl"), marked=True),
    "nist-text": Case(("-m", "nist", "-sl"), marked=True),
    "nist-tsv": Case(("-m", "nist", "-f", "tsv", "-sl"), marked=True),
    "nist-score-only": Case(("-m", "nist", "-sl", "-b"), marked=False),
    "nist-compat": Case(("-m", "nist", "--compat", "sacrebleu"), marked=False),
    "nist-stats": Case(("-m", "nist", "-f", "stats"), marked=True),
    # Self-BLEU's set loop.
    "self-bleu-jsonl": Case(
        ("--self-bleu", "sacrebleu", "-sl", "-f", "jsonl"), True, sentences=True
    ),
    "self-bleu-text": Case(("--self-bleu", "sacrebleu", "-sl"), marked=True, sentences=True),
    "self-bleu-score-only": Case(("--self-bleu", "texygen", "-b"), marked=False, sentences=True),
    "self-bleu-compat": Case(
        ("--self-bleu", "sacrebleu", "--compat", "sacrebleu"), False, sentences=True
    ),
}


def input_lines(case: Case, count: int) -> bytes:
    """The first ``count`` lines of the case's input."""
    if case.sentences:
        rows = [[hyp] for hyp in HYPS[:count]]
    elif case.systems == 2:
        rows = [list(row) for row in zip(HYPS, OTHER, REFS)][:count]
    else:
        rows = [list(row) for row in zip(HYPS, REFS)][:count]
    return "".join("\t".join(row) + "\n" for row in rows).encode()


@cache
def whole_run(args: tuple[str, ...], data: bytes) -> str:
    """The stdout of an uninterrupted run over ``data``: what the interrupted
    run must have scored, marks aside."""
    proc = run("--no-config", *args, input=data)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode()


def interrupt(case: Case, jobs: int, signum: int) -> tuple[int, str, str]:
    """The status, stdout and stderr of a run of ``case`` sent SENT lines,
    then ``signum`` once it shows it has read them; its stdin stays open."""
    proc = subprocess.Popen(
        [*COMMAND, "--no-config", "-j", str(jobs), *case.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(input_lines(case, SENT))
        proc.stdin.flush()
        early = b""
        if case.per_line:
            for _ in range(case.header + case.per_line * SENT):
                early += read_line(proc.stdout, timeout=60)
        else:
            wait_until_waiting_for_input(proc)
        proc.send_signal(signum)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return proc.returncode, (early + rest).decode(), err.decode()


_TEXT_MARK = re.compile(r" \[PARTIAL: input interrupted(?: after \d+ (?:segment|sentence)s?)?\]")


def _format(case: Case) -> str:
    return case.args[case.args.index("-f") + 1] if "-f" in case.args else "text"


def comparable(stdout: str, case: Case) -> str:
    """A JSON document as its data (its layout is SacreBLEU's, tested elsewhere)."""
    if _format(case) != "json":
        return stdout
    return json.dumps(json.loads(stdout), sort_keys=True)


def unmarked(stdout: str, case: Case) -> str:
    """``stdout`` with its partial marks taken off, each checked: on every
    record or line that carries a score made at the end."""
    fmt = _format(case)
    at_the_end = case.sentences or "nist" in case.args  # every record is scored then
    if fmt == "json":
        documents = json.loads(stdout)
        for document in documents if isinstance(documents, list) else [documents]:
            assert document.pop("partial") is True, document
            assert document.pop("segments") == SENT, document
        return json.dumps(documents, sort_keys=True)
    if fmt in ("jsonl", "stats"):
        out = []
        for line in stdout.splitlines():
            record = json.loads(line)
            if record["type"] == "corpus":
                assert record["partial"] is True, record
                record["partial"] = False
            elif at_the_end:
                assert record.pop("partial") is True, record
            else:
                assert "partial" not in record, record
            out.append(json.dumps(record, ensure_ascii=False) + "\n")
        return "".join(out)
    if fmt == "tsv":
        out = []
        for index, line in enumerate(stdout.splitlines()):
            fields = line.split("\t")
            if index and (fields[0] == "corpus" or at_the_end):
                assert fields[-1] == "1", line
                fields[-1] = "0"
            elif index:
                assert fields[-1] == "0", line
            out.append("\t".join(fields) + "\n")
        return "".join(out)
    before = case.header + case.per_line * SENT  # lines written as the input came
    for index, line in enumerate(stdout.splitlines()):
        if " = " in line and (index >= before or at_the_end):
            assert _TEXT_MARK.search(line), line
    return _TEXT_MARK.sub("", stdout)


_SCORE_BLOCK = re.compile(r"bleustream: (PARTIAL|the partial score)")


def check(case: Case, status: int, stdout: str, stderr: str, signum: int) -> None:
    assert status == STATUS[signum], stderr
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert all(line.startswith("bleustream: ") for line in lines), stderr
    noun = "sentences" if case.sentences else "segments"
    said = f"bleustream: interrupted; the score covers the {SENT} {noun} read so far"
    assert said in lines, stderr
    # Before it, what the run said as it began; compat mode's SacreBLEU
    # notes ("Found 2 systems.") may come with the scoring at the end.
    after = [line for line in lines[lines.index(said) + 1 :] if _SCORE_BLOCK.match(line)]
    whole = whole_run(case.args, input_lines(case, SENT))
    if case.marked:
        assert after == [], stderr
        assert unmarked(stdout, case) == comparable(whole, case)
        return
    # No score on stdout: the records written before the signal alone,
    # whole; the rest of the uninterrupted run's output is on stderr, marked.
    assert after[0].startswith("bleustream: the partial score is not written to standard output (")
    prefix = f"bleustream: PARTIAL ({SENT} {noun}): "
    assert after[1:] and all(line.startswith(prefix) for line in after[1:]), stderr
    withheld = [line[len(prefix) :] for line in after[1:]]
    kept = [line for line in withheld if not line.startswith("[PARTIAL: input interrupted")]
    assert whole.startswith(stdout), (stdout, whole)
    assert kept == [line for line in whole[len(stdout) :].splitlines() if line.strip()]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize(
    "jobs, signum", [(1, signal.SIGINT), (2, signal.SIGTERM)], ids=["j1-SIGINT", "j2-SIGTERM"]
)
def test_an_interrupted_run_marks_its_score_or_keeps_it_off_stdout(
    name: str, jobs: int, signum: int
) -> None:
    case = CASES[name]
    status, stdout, stderr = interrupt(case, jobs, signum)
    check(case, status, stdout, stderr, signum)


@pytest.mark.parametrize("name", ["json", "score-only", "paired-bs-text", "every-text"])
@pytest.mark.parametrize(
    "jobs, signum", [(1, signal.SIGTERM), (2, signal.SIGINT)], ids=["j1-SIGTERM", "j2-SIGINT"]
)
def test_either_signal_with_either_jobs(name: str, jobs: int, signum: int) -> None:
    case = CASES[name]
    status, stdout, stderr = interrupt(case, jobs, signum)
    check(case, status, stdout, stderr, signum)


def test_score_only_for_a_makefile_gives_nothing_to_use() -> None:
    """``BLEU := $(shell ... | bleustream ref -b)`` interrupted: stdout is
    empty, stderr has SacreBLEU's score of the lines read, marked."""
    status, stdout, stderr = interrupt(CASES["score-only"], 1, signal.SIGINT)
    assert (status, stdout) == (130, "")
    expected = BLEU().corpus_score(HYPS[:SENT], [REFS[:SENT]]).score
    whole = BLEU().corpus_score(HYPS, [REFS]).score
    assert f"{expected:.1f}" != f"{whole:.1f}"  # the partial score would mislead
    assert stderr.splitlines()[-1] == f"bleustream: PARTIAL ({SENT} segments): {expected:.1f}"


def test_ctrl_c_in_a_terminal_reaches_every_process_of_the_group() -> None:
    """Ctrl-C signals the whole process group, -j 2's workers too: the run
    still ends with its partial score, and the workers with it."""
    case = CASES["systems-jsonl"]
    proc = subprocess.Popen(
        [*COMMAND, "--no-config", "-j", "2", *case.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(input_lines(case, SENT))
        proc.stdin.flush()
        wait_until_waiting_for_input(proc)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    check(case, proc.returncode, stdout.decode(), stderr.decode(), signal.SIGINT)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.slow
def test_a_signal_during_the_final_scoring_waits_for_the_whole_score(signum: int) -> None:
    """All input read, the paired test running: the signal waits until the
    score of the whole input is out (unmarked: it is whole), then the
    status says the run was interrupted."""
    case = CASES["paired-bs-json"]
    args = ("--systems", "2", "-pbs", "-pbsn", "200000", "-f", "json")
    data = input_lines(case, len(HYPS))
    proc = subprocess.Popen(
        [*COMMAND, "--no-config", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()  # the end of input: the final scoring begins
        wait_until_writing_the_end(proc)
        proc.send_signal(signum)
        stdout, stderr = proc.stdout.read(), proc.stderr.read()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.returncode == STATUS[signum], stderr
    assert stderr == b""
    assert stdout.decode() == whole_run(args, data)


# ----------------------------------------------------------------------------
# Statistics read back from an interrupted run: the same rule
# ----------------------------------------------------------------------------

# The shards: the stats records of an interrupted run, as it wrote them.
SHARDS = {
    "corpus": Case(("-f", "stats", "-m", "bleu", "chrf"), marked=True),
    "segments": Case(("-sl", "-f", "stats"), marked=True, per_line=1),
    "systems": Case(("--systems", "2", "-sl", "-f", "stats"), True, per_line=2, systems=2),
    "nist": Case(("-m", "nist", "-f", "stats"), marked=True),
}
# How each shard is read back: (options, whether stdout can mark the score).
READ_BACK = {
    "corpus": [
        (("-f", "text"), True),
        (("-f", "jsonl"), True),
        (("-f", "tsv"), True),
        (("-f", "json"), True),
        (("-f", "stats"), True),
        (("-b",), False),
        (("-b", "-f", "jsonl"), False),
        (("--compat", "sacrebleu"), False),
        (("--compat", "sacrebleu", "-f", "text"), False),
    ],
    "segments": [(("-f", "text"), True), (("-f", "jsonl"), True), (("-b",), False)],
    "systems": [
        (("-f", "text"), False),
        (("-f", "latex"), False),
        (("-f", "jsonl"), True),
        (("-pbs", "-pbsn", "50"), False),
        (("-pbs", "-pbsn", "50", "-f", "json"), True),
    ],
    "nist": [(("-f", "text"), True), (("-f", "jsonl"), True), (("-b",), False)],
}
_READ_MARK = re.compile(r" \[PARTIAL: statistics read back from an interrupted run \(([^)]*)\)\]")


@cache
def partial_shard(name: str, directory: str) -> tuple[str, int]:
    """A shard written by an interrupted run (SIGINT once it has read SENT
    lines), and the line of its record that says so."""
    status, stdout, stderr = interrupt(SHARDS[name], 1, signal.SIGINT)
    assert status == 130, stderr
    path = os.path.join(directory, f"{name}.stats")
    with open(path, "w", encoding="utf-8") as out:
        out.write(stdout)
    lines = [json.loads(line) for line in stdout.splitlines()]
    marked = [i + 1 for i, record in enumerate(lines) if record.get("partial") is True]
    assert marked, stdout  # the run says the shard is partial
    return path, marked[0]


def _unmark_read_back(stdout: str, fmt: str, where: str) -> str:
    """``stdout`` of a read-back with its marks checked (each naming
    ``where``) and taken off, as a run of the text would write it whole."""
    if fmt == "json":
        documents = json.loads(stdout)
        for document in documents if isinstance(documents, list) else [documents]:
            assert document.pop("partial") is True, document
            assert document.pop("partial_input") == where, document
            assert document.pop("segments") == SENT, document
        return json.dumps(documents, sort_keys=True)
    if fmt in ("jsonl", "stats"):
        out = []
        for line in stdout.splitlines():
            record = json.loads(line)
            if record["type"] == "corpus":
                assert record["partial"] is True, record
                record["partial"] = False
                if fmt == "jsonl":
                    assert record.pop("partial_input") == where, record
            else:
                assert "partial" not in record, record
            out.append(json.dumps(record, ensure_ascii=False) + "\n")
        return "".join(out)
    if fmt == "tsv":
        rows = [line.split("\t") for line in stdout.splitlines()]
        for fields in rows[1:]:
            assert fields[-1] == ("1" if fields[0] == "corpus" else "0"), fields
            fields[-1] = "0"
        return "".join("\t".join(fields) + "\n" for fields in rows)
    for line in stdout.splitlines():
        if line.startswith(("corpus", "BLEU", "chrF", "NIST")) or ": BLEU" in line:
            assert [m.group(1) for m in _READ_MARK.finditer(line)] == [where], line
    return _READ_MARK.sub("", stdout)


@pytest.mark.parametrize(
    "shard, args, marked",
    [(shard, args, marked) for shard, cases in READ_BACK.items() for args, marked in cases],
    ids=[f"{shard}-{' '.join(args)}" for shard, cases in READ_BACK.items() for args, _ in cases],
)
def test_a_partial_shard_read_back_is_marked_or_kept_off_stdout(
    shard: str, args: tuple[str, ...], marked: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Statistics of an interrupted run, read back in any format: status 65,
    one line naming the record's file and line, and the score marked on
    every line that carries it or kept off stdout (on stderr, marked)."""
    path, line = partial_shard(shard, str(tmp_path_factory.getbasetemp()))
    where = f"{path}:{line}"
    case = SHARDS[shard]
    proc = run("--no-config", "--input-format", "stats", *args, path)
    stdout, stderr = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 65, stderr
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    said = f'bleustream: {where}: a record of an interrupted run ("partial": true): '
    assert lines[0] == said + "the score read back is partial", stderr
    # What a run over the same lines writes, whole (the numbers read back
    # are that run's: the shard holds exactly what was read).
    text_args = tuple(a for a in case.args if a not in ("-f", "stats", "-sl"))
    whole = whole_run((*text_args, *args), input_lines(case, SENT))
    fmt = args[args.index("-f") + 1] if "-f" in args else "text"
    if marked:
        assert lines[1:] == [], stderr
        if fmt == "json":
            whole = json.dumps(json.loads(whole), sort_keys=True)
        assert _unmark_read_back(stdout, fmt, where) == whole
        return
    assert stdout == ""
    assert lines[1].startswith("bleustream: the partial score is not written to standard output")
    prefix = f"bleustream: PARTIAL ({SENT} segments): "
    assert lines[2:] and all(line.startswith(prefix) for line in lines[2:]), stderr
    withheld = [line[len(prefix) :] for line in lines[2:]]
    # A table's mark is a line of its own, after the signatures.
    kept = [_READ_MARK.sub("", line) for line in withheld if _READ_MARK.sub("", " " + line)]
    assert kept == [line for line in whole.splitlines() if line.strip()]


def test_a_partial_record_written_by_hand_is_named_by_its_line(tmp_path: Path) -> None:
    """Two shards, the second's record marked partial by hand (after an
    empty line): the one line names that file and line, ``-b`` prints
    nothing to use, and stderr has the score of both shards, marked."""
    proc = run("--no-config", "-f", "stats", input=input_lines(CASES["text"], 2))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    first, second = tmp_path / "a.stats", tmp_path / "b.stats"
    first.write_text(json.dumps(record) + "\n", encoding="utf-8")
    second.write_text("\n" + json.dumps({**record, "partial": True}) + "\n", encoding="utf-8")
    proc = run("--no-config", "--input-format", "stats", "-b", first, second)
    assert (proc.returncode, proc.stdout) == (65, b"")
    lines = proc.stderr.decode().splitlines()
    assert lines[0].startswith(f"bleustream: {second}:2: a record of an interrupted run"), lines
    expected = BLEU().corpus_score(HYPS[:2] * 2, [REFS[:2] * 2]).score
    assert lines[-1] == f"bleustream: PARTIAL (4 segments): {expected:.1f}"
    # Read again without the partial shard: a whole score, status 0.
    proc = run("--no-config", "--input-format", "stats", "-b", first)
    assert (proc.returncode, proc.stderr) == (0, b"")


# ----------------------------------------------------------------------------
# A signal while the command starts
# ----------------------------------------------------------------------------

STARTS = {
    "console-script": COMMAND,
    "python-m": [sys.executable, "-m", "bleustream"],
}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("start", STARTS)
def test_a_signal_as_soon_as_the_handlers_are_in_place_gives_no_traceback(
    start: str, signum: int
) -> None:
    """The signal is sent the moment the process catches SIGTERM, which the
    entry point does first, before it loads the command line: the run ends
    with status 130 or 143, lines of its own on stderr (no traceback), and
    no score on stdout."""
    proc = subprocess.Popen(
        [*STARTS[start], "--no-config", "-b", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(proc, lambda: handlers_installed(proc.pid), "its signal handlers")
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    text = stderr.decode()
    assert proc.returncode == STATUS[signum], text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    lines = text.splitlines()
    assert lines and all(line.startswith("bleustream: ") for line in lines), text
    assert "interrupted" in lines[0], text
    assert stdout == b""


def test_python_m_runs_the_command_as_the_console_script_does() -> None:
    """``python -m bleustream`` scores and exits as ``bleustream`` does."""
    data = input_lines(CASES["text"], SENT)
    outs = []
    for command in STARTS.values():
        proc = subprocess.run(
            [*command, "--no-config", "-f", "jsonl"], input=data, capture_output=True, check=False
        )
        outs.append((proc.returncode, proc.stdout, proc.stderr))
    assert outs[0] == outs[1]
    assert outs[0][0] == 0 and outs[0][1], outs[0]


def test_the_entry_point_loads_nothing_of_the_command_before_its_handlers() -> None:
    """What makes the window small: the console script is the entry module,
    whose import loads neither the command line nor argparse, and whose
    first act installs the handlers."""
    script = COMMAND[0] if len(COMMAND) == 1 else None
    if script is not None:
        with open(script, encoding="utf-8") as text:
            assert "from bleustream.cli.entry import main" in text.read()
    code = (
        "import signal, sys\n"
        "import bleustream.cli.entry as entry\n"
        "from bleustream.cli.signals import raise_interrupted\n"
        "loaded = sorted(m for m in ('argparse', 'bleustream.cli.main', 'bleustream.run')"
        " if m in sys.modules)\n"
        "assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL\n"
        "entry.install_handlers()\n"
        "assert signal.getsignal(signal.SIGTERM) is raise_interrupted\n"
        "print(loaded)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"[]\n", b"")
