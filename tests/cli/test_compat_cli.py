"""SacreBLEU's command lines, run by ``sacrebleu`` and by ``bleustream``.

A script written for SacreBLEU should keep its numbers when ``sacrebleu``
becomes ``bleustream``.  Each test runs both real commands on the same
files (small subsets of the shared WMT17 set, made in ``tmp_path``) and
compares what they print; no expected value is computed by bleustream.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REAL_DATA, REAL_DATA_MISSING
from tests.helpers.clirun import COMMAND

SACREBLEU = [sys.executable, "-m", "sacrebleu"]
WMT17 = REAL_DATA / "sacrebleu-wmt17-en-de"
SYSTEMS = ("online-B.0", "uedin-nmt.4722", "online-A.0")
A, B = SYSTEMS[0], SYSTEMS[1]


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


PBS, PAR = ("-pbs", "-pbsn", "20"), ("-par", "-parn", "20")


# SacreBLEU 2.6 cannot write a paired test's JSON (numpy's float32): no such case.
@pytest.mark.parametrize(
    "fmt, test",
    [("json", ()), ("text", ()), ("latex", ()), ("text", PBS), ("latex", PBS), ("text", PAR)],
)
@pytest.mark.slow
def test_several_systems_metrics_are_in_sacrebleus_order(
    data: Path, fmt: str, test: tuple[str, ...]
) -> None:
    """SacreBLEU sorts the metrics of several systems by name, but keeps
    -m's order in a paired test."""
    args = ("ref", "-i", *SYSTEMS, "-m", "ter", "chrf", "bleu", "-f", fmt, *test)
    theirs = sacrebleu(*args, cwd=data)
    ours = bleustream(*args, "--compat", "sacrebleu", cwd=data)
    assert theirs.returncode == 0, theirs.stderr
    assert (ours.returncode, masked(ours.stdout)) == (0, masked(theirs.stdout)), ours.stderr


def test_several_systems_metrics_are_in_the_order_given_in_bleustreams_mode(data: Path) -> None:
    ours = bleustream("ref", "-i", A, B, "-m", "ter", "chrf", "bleu", "-f", "latex", cwd=data)
    assert ours.returncode == 0, ours.stderr
    header = next(line for line in ours.stdout.decode().splitlines() if "System" in line)
    assert header.split("&")[1:] == ["  TER  ", "  chrF2  ", "  BLEU  \\\\"]


def test_tab_separated_stdin_systems_in_latex_are_sacrebleus(data: Path) -> None:
    stdin = pasted(data, *SYSTEMS)
    args = ("ref", "-f", "latex", "-m", "bleu", "chrf")
    theirs = sacrebleu(*args, cwd=data, input=stdin)
    ours = bleustream(*args, cwd=data, input=stdin)
    assert (ours.returncode, masked(ours.stdout)) == (0, masked(theirs.stdout))


@pytest.mark.parametrize(
    "args, env",
    [
        (("-i", A, "-f", "latex"), {}),
        (("-i", A, "-f", "latex", "-m", "chrf", "bleu", "ter", "-w", "2"), {}),
        (("-i", A, "-f", "latex", "-b", "-m", "chrf", "bleu"), {}),
        (("-i", A, "-f", "latex", "-ci", "-cin", "10"), {}),
        (("-f", "latex"), {}),
        (("-i", A, "-f", "latex", "-sl"), {}),
        (("-i", A, "-sl", "-m", "chrf"), {"SACREBLEU_FORMAT": "latex"}),
    ],
    ids=["one", "three-metrics", "score-only", "ci", "stdin", "sl", "sl-env"],
)
def test_latex_of_one_system_is_sacrebleus_lines(
    data: Path, args: tuple[str, ...], env: dict[str, str]
) -> None:
    """SacreBLEU's -f latex is for several systems' table: one system's
    scores, or -sl's, are its usual lines."""
    stdin = (data / A).read_bytes() if "-i" not in args else b""
    theirs = sacrebleu("ref", *args, cwd=data, env=env, input=stdin)
    assert theirs.returncode == 0, theirs.stderr
    assert b"tabular" not in theirs.stdout and theirs.stdout
    ours = bleustream("ref", *args, "--compat", "sacrebleu", cwd=data, env=env, input=stdin)
    assert (ours.returncode, masked(ours.stdout)) == (0, masked(theirs.stdout)), ours.stderr


def test_latex_of_one_system_is_refused_in_bleustreams_mode(data: Path) -> None:
    ours = bleustream("ref", "-i", A, "-f", "latex", cwd=data)
    assert (ours.returncode, ours.stdout) == (2, b"")
    assert b"-f latex writes a table of at least two systems" in ours.stderr


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


# --------------------------------------------------------------------------
# Options and abbreviations as SacreBLEU reads them
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("--tok", "intl"),
        ("--token=char",),
        ("--lower",),
        ("--smooth-m", "floor"),
        ("--sh",),
        ("-sh", "-m", "ter"),
        ("--short", "-w", "3"),
        ("-e", "utf-8"),
        ("-j", "2"),
        ("--paired-jobs", "2"),
        ("--force", "-q", "-nc"),
        ("-tintl",),
    ],
)
def test_options_and_abbreviations_mean_what_they_mean_in_sacrebleu(
    data: Path, args: tuple[str, ...]
) -> None:
    line = ("ref", "-i", SYSTEMS[0], "-f", "text", *args)
    theirs = sacrebleu(*line, cwd=data)
    ours = bleustream(*line, cwd=data)
    assert ours.returncode != 0 or masked(ours.stdout) == masked(theirs.stdout), ours.stderr
    assert (ours.returncode == 0) == (theirs.returncode == 0), ours.stderr.decode()


def test_t_is_the_test_set_never_the_tokenizer(data: Path) -> None:
    """``-t none`` must not score with ``-tok none``: it names a test set."""
    ours = bleustream("-t", "none", "ref", "-i", SYSTEMS[0], cwd=data)
    assert ours.returncode == 2
    assert b"tok:none" not in ours.stdout
    assert len(ours.stderr.splitlines()) == 1


@pytest.mark.parametrize("abbreviation", ["--conf", "--chrf-w", "--paired", "-to"])
def test_abbreviations_ambiguous_to_sacrebleu_are_refused(data: Path, abbreviation: str) -> None:
    theirs = sacrebleu("ref", "-i", SYSTEMS[0], abbreviation, "1", cwd=data)
    ours = bleustream("ref", "-i", SYSTEMS[0], abbreviation, "1", cwd=data)
    assert theirs.returncode == ours.returncode == 2
    assert b"ambiguous" in ours.stderr


# --------------------------------------------------------------------------
# Test sets, from a SacreBLEU cache laid out in tmp_path
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A $SACREBLEU with WMT17 en-de's five field files (the reference real, the
    source and metadata empty: not in the shared data)."""
    if not WMT17.is_dir():
        pytest.skip(REAL_DATA_MISSING)
    where = tmp_path_factory.mktemp("sacrebleu-cache")
    (where / "wmt17").mkdir()
    reference = (WMT17 / "newstest2017.en-de.ref.de").read_bytes()
    (where / "wmt17" / "wmt17.en-de.ref").write_bytes(reference)
    for field in ("src", "docid", "genre", "origlang"):
        (where / "wmt17" / f"wmt17.en-de.{field}").write_bytes(b"")
    # The raw source that --origlang reads: two documents of our making, the
    # first 1000 segments written in English, the rest in German.
    raw = where / "wmt17" / "raw" / "test"
    raw.mkdir(parents=True)
    lines = reference.count(b"\n")
    docs = [("en", range(1, 1001)), ("de", range(1001, lines + 1))]
    sgm = ['<srcset setid="newstest2017" srclang="any">']
    for number, (lang, segments) in enumerate(docs):
        sgm.append(f'<doc sysid="ref" docid="d{number}" genre="news" origlang="{lang}">')
        sgm += [f'<seg id="{i}">x</seg>' for i in segments]
        sgm.append("</doc>")
    sgm.append("</srcset>")
    (raw / "newstest2017-ende-src.en.sgm").write_text("\n".join(sgm) + "\n", encoding="utf-8")
    return where


@pytest.mark.parametrize(
    "args",
    [
        ("-t", "wmt17", "-l", "en-de", "-f", "text"),
        ("-t", "wmt17", "-l", "en-de", "-f", "text", "-m", "chrf", "-b"),
        ("--test-set", "wmt17", "--language-pair", "en-de", "-f", "text", "-tok", "intl"),
        ("-t", "wmt17", "-l", "en-de", "--echo", "ref"),
        ("--list", "-t", "wmt17"),
        ("--list", "-l", "en-de"),
        ("--download", "wmt17", "-l", "en-de"),
    ],
)
@pytest.mark.slow
def test_test_sets_as_sacrebleu_reads_its_cache(cache: Path, args: tuple[str, ...]) -> None:
    hyp = WMT17 / "newstest2017.hyp.online-B.0.en-de.de"
    line = (*args, "-i", hyp) if "-i" not in args and "--echo" not in args else args
    if "--list" in args or "--download" in args:
        line = args
    env = {"SACREBLEU": str(cache)}
    theirs = sacrebleu(*line, cwd=cache, env=env)
    ours = bleustream(*line, cwd=cache, env=env)
    assert (ours.returncode, masked(ours.stdout)) == (theirs.returncode, masked(theirs.stdout))


@pytest.mark.parametrize(
    "args",
    [
        ("-t", "wmt17", "-l", "en-de", "--origlang", "de", "-f", "text"),
        ("-t", "wmt17", "-l", "en-de", "--origlang", "non-de", "-f", "text", "-m", "bleu", "chrf"),
        ("-t", "wmt17", "-l", "en-de", "-ol", "en", "-f", "text", "-j", "2"),
        ("-t", "wmt17,wmt17", "-l", "en-de", "-f", "text"),
        ("-t", "wmt17,wmt17", "-l", "en-de", "--origlang", "en", "-f", "text", "-m", "ter"),
    ],
    ids=["origlang", "non-origlang", "origlang-j2", "two-sets", "two-sets-origlang"],
)
@pytest.mark.slow
def test_origlang_and_several_test_sets_as_sacrebleu_scores_them(
    cache: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    """--origlang keeps the lines SacreBLEU's filter_subset keeps; -t a,b reads
    the sets one after the other; both as SacreBLEU's own command does."""
    hyp = (WMT17 / "newstest2017.hyp.online-B.0.en-de.de").read_bytes()
    copies = args[1].count(",") + 1
    (tmp_path / "hyp").write_bytes(hyp * copies)
    env = {"SACREBLEU": str(cache)}
    theirs = sacrebleu(*args, "-i", tmp_path / "hyp", cwd=cache, env=env)
    ours = bleustream(*args, "-i", tmp_path / "hyp", "--compat", "sacrebleu", cwd=cache, env=env)
    assert theirs.returncode == 0, theirs.stderr
    assert (ours.returncode, masked(ours.stdout)) == (0, masked(theirs.stdout)), ours.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("-t", "wmt17", "-l", "en-de", "-d", "-f", "text"),
        ("-t", "wmt17", "-l", "en-de", "-d", "-m", "bleu", "chrf", "ter", "-w", "2"),
        ("-t", "wmt17", "-l", "en-de", "-d", "-b"),
        ("-t", "wmt17", "-l", "en-de", "-d", "-b", "-m", "ter", "chrf", "bleu"),
        ("-t", "wmt17", "-l", "en-de", "-d", "-f", "json", "-m", "chrf", "bleu"),
        ("-t", "wmt17", "-l", "en-de", "-d", "-ci", "-cin", "10", "-f", "text"),
        ("-t", "wmt17", "-l", "en-de", "-d", "-sl", "-b", "-f", "text"),
        ("-t", "wmt17", "-l", "en-de", "-d", "-f", "latex", "-m", "chrf", "bleu"),
    ],
    ids=["bleu", "three-metrics", "score-only", "score-only-three", "json", "ci", "sl", "latex"],
)
@pytest.mark.slow
def test_detail_is_sacrebleus(cache: Path, args: tuple[str, ...]) -> None:
    """-d: after the scores, each origlang's (and domain's) as SacreBLEU prints them;
    the hypotheses from a file and from stdin."""
    hyp = WMT17 / "newstest2017.hyp.online-B.0.en-de.de"
    env = {"SACREBLEU": str(cache)}
    theirs = sacrebleu(*args, "-i", hyp, cwd=cache, env=env)
    assert theirs.returncode == 0, theirs.stderr
    assert (b"origlang=de domain=ALL" in theirs.stdout) == ("-sl" not in args)
    ours = bleustream(*args, "-i", hyp, "--compat", "sacrebleu", cwd=cache, env=env)
    assert (ours.returncode, masked(ours.stdout)) == (0, masked(theirs.stdout)), ours.stderr
    piped = bleustream(*args, "--compat", "sacrebleu", cwd=cache, env=env, input=hyp.read_bytes())
    assert piped.stdout == ours.stdout


def test_detail_with_origlang_scores_that_part_where_sacrebleu_fails(cache: Path) -> None:
    """SacreBLEU 2.6 filters the lines twice and fails (max() of nothing);
    bleustream scores the part, and prints its line."""
    hyp = WMT17 / "newstest2017.hyp.online-B.0.en-de.de"
    env = {"SACREBLEU": str(cache)}
    args = ("-t", "wmt17", "-l", "en-de", "--origlang", "en", "-f", "text")
    theirs = sacrebleu(*args, "-d", "-i", hyp, cwd=cache, env=env)
    assert theirs.returncode == 1 and b"ValueError: max() arg is an empty sequence" in theirs.stderr
    without = sacrebleu(*args, "-i", hyp, cwd=cache, env=env)
    ours = bleustream(*args, "-d", "-i", hyp, "--compat", "sacrebleu", cwd=cache, env=env)
    assert ours.returncode == 0, ours.stderr
    first, part = masked(ours.stdout).splitlines()
    assert first + "\n" == masked(without.stdout)
    assert part.startswith("origlang=en domain=ALL : sentences=1000   BLEU = ")


@pytest.mark.parametrize(
    "args",
    [
        ("-i", A),
        ("-i", A, "-b", "-m", "chrf", "bleu"),
        ("-i", A, B, "-f", "text"),
        ("-i", A, "-sl", "-f", "text"),
    ],
    ids=["one", "score-only", "two-systems", "sl"],
)
def test_detail_without_a_test_set_is_sacrebleus(data: Path, args: tuple[str, ...]) -> None:
    """Without -t, SacreBLEU scores and says it found no parts (one system,
    corpus scores); with several systems or -sl it passes -d over."""
    theirs = sacrebleu("ref", *args, "-d", cwd=data)
    assert theirs.returncode == 0, theirs.stderr
    ours = bleustream("ref", *args, "-d", "--compat", "sacrebleu", cwd=data)
    assert (ours.returncode, masked(ours.stdout)) == (0, masked(theirs.stdout)), ours.stderr
    said = b"No subset information found" in theirs.stdout
    assert said == (args in (("-i", A), ("-i", A, "-b", "-m", "chrf", "bleu")))


def test_detail_of_stdins_systems_is_passed_over_as_in_sacrebleu(data: Path) -> None:
    stdin = pasted(data, A, B)
    theirs = sacrebleu("ref", "-d", "-f", "text", cwd=data, input=stdin)
    ours = bleustream("ref", "-d", "-f", "text", "--compat", "sacrebleu", cwd=data, input=stdin)
    assert theirs.returncode == 0 and b"System 2" in theirs.stdout
    assert (ours.returncode, masked(ours.stdout)) == (0, masked(theirs.stdout)), ours.stderr


def test_detail_without_a_test_set_scores_and_says_so_in_bleustreams_mode(data: Path) -> None:
    plain = bleustream("ref", "-i", A, "-b", cwd=data)
    alone = bleustream("ref", "-i", A, "-b", "-d", cwd=data)
    assert (alone.returncode, alone.stdout) == (0, plain.stdout)
    assert alone.stderr == b"bleustream: --detail (-d): no test set (-t), so no parts to score\n"


@pytest.mark.parametrize("fmt", ["jsonl", "tsv", "stats"])
def test_detail_is_refused_where_its_text_lines_would_break_the_format(
    cache: Path, fmt: str
) -> None:
    hyp = WMT17 / "newstest2017.hyp.online-B.0.en-de.de"
    env = {"SACREBLEU": str(cache)}
    ours = bleustream("-t", "wmt17", "-l", "en-de", "-d", "-f", fmt, "-i", hyp, cwd=cache, env=env)
    assert (ours.returncode, ours.stdout) == (2, b"")
    assert ours.stderr.decode() == (
        f"bleustream: --detail (-d) adds SacreBLEU's text lines: not with -f {fmt} "
        "(use -f text or json)\n"
    )


def test_detail_of_several_systems_is_refused_in_bleustreams_mode(data: Path) -> None:
    two = bleustream("ref", "-i", A, B, "-d", cwd=data)
    assert (two.returncode, two.stdout) == (2, b"")
    assert two.stderr == (
        b"bleustream: --detail (-d) scores the parts of one system's test set: one system\n"
    )


def test_detail_scores_the_parts_in_the_same_read_with_workers(cache: Path) -> None:
    """The parts are running totals beside the whole's, added to from the
    rows the workers count: -j 2 prints what one process prints."""
    hyp = WMT17 / "newstest2017.hyp.online-B.0.en-de.de"
    env = {"SACREBLEU": str(cache)}
    args = ("-t", "wmt17", "-l", "en-de", "-d", "-m", "bleu", "chrf", "-f", "text")
    one = bleustream(*args, cwd=cache, env=env, input=hyp.read_bytes())
    two = bleustream(*args, "-j", "2", cwd=cache, env=env, input=hyp.read_bytes())
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    assert b"origlang=de domain=ALL" in two.stdout
    assert two.stdout == one.stdout


def test_detail_with_a_metric_scored_at_the_end_is_refused(cache: Path) -> None:
    hyp = WMT17 / "newstest2017.hyp.online-B.0.en-de.de"
    env = {"SACREBLEU": str(cache)}
    ours = bleustream(
        "-t", "wmt17", "-l", "en-de", "-d", "-m", "nist", "-i", hyp, cwd=cache, env=env
    )
    assert (ours.returncode, ours.stdout) == (2, b"")
    assert ours.stderr == (
        b"bleustream: --detail (-d) scores a test set's parts with streamed metrics: not NIST\n"
    )


def test_an_origlang_with_no_sentence_is_one_line(cache: Path) -> None:
    env = {"SACREBLEU": str(cache)}
    hyp = WMT17 / "newstest2017.hyp.online-B.0.en-de.de"
    ours = bleustream(
        "-t", "wmt17", "-l", "en-de", "--origlang", "fr", "-i", hyp, cwd=cache, env=env
    )
    assert (ours.returncode, ours.stdout) == (2, b"")
    assert ours.stderr == b"bleustream: test set 'wmt17' contains no sentence with origlang=fr\n"


def test_unknown_test_set_and_pair_are_one_line_with_the_hint(cache: Path) -> None:
    env = {"SACREBLEU": str(cache)}
    unknown = bleustream("-t", "wmt99", "-l", "en-de", cwd=cache, env=env)
    assert unknown.returncode == 2 and b"--list" in unknown.stderr
    pair = bleustream("-t", "wmt17", "-l", "en-xx", cwd=cache, env=env)
    assert pair.returncode == 2 and b"en-de" in pair.stderr
    assert len(unknown.stderr.splitlines()) == len(pair.stderr.splitlines()) == 1


def test_a_cache_that_cannot_be_filled_is_one_line_naming_it(tmp_path: Path) -> None:
    empty = tmp_path / "cache"
    empty.mkdir()
    (empty / "wmt17").mkdir()
    (empty / "wmt17" / "raw").write_text("not a directory")  # nothing can be fetched there
    ours = bleustream("-t", "wmt17", "-l", "en-de", env={"SACREBLEU": str(empty)}, cwd=tmp_path)
    assert ours.returncode == 74, ours.stderr
    (line,) = ours.stderr.decode().splitlines()
    assert "wmt17/en-de" in line and str(empty) in line


# Any download would go to a port where nothing listens, and fail at once.
OFFLINE = {"http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}


@pytest.mark.parametrize(
    "args", [("--list",), ("--list", "-l", "en-de"), ("--list", "-t", "wmt17", "-l", "en-de")]
)
def test_list_is_sacrebleus_offline_from_an_empty_cache(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """SacreBLEU lists its registry without the network; so does bleustream
    (the registry is the testsets extra's), and neither fills the cache."""
    empty = tmp_path / "cache"
    empty.mkdir()
    env = {"SACREBLEU": str(empty), **OFFLINE}
    theirs = sacrebleu(*args, cwd=tmp_path, env=env)
    assert theirs.returncode == 0 and theirs.stdout, theirs.stderr
    ours = bleustream(*args, cwd=tmp_path, env=env)
    assert (ours.returncode, ours.stdout, ours.stderr) == (0, theirs.stdout, b"")
    assert list(empty.iterdir()) == []


def test_list_of_a_set_whose_files_name_its_fields_says_why_offline(tmp_path: Path) -> None:
    """WMT's XML test sets name their fields in their files: SacreBLEU fetches
    them first, saying so (and ends in a traceback offline); bleustream says
    what SacreBLEU says, then why in one line (and only that with -q)."""
    empty = tmp_path / "cache"
    empty.mkdir()
    env = {"SACREBLEU": str(empty), **OFFLINE}
    args = ("--list", "-t", "wmt22", "-l", "en-de")
    theirs = sacrebleu(*args, cwd=tmp_path, env=env)
    assert theirs.returncode == 1 and b"Traceback" in theirs.stderr
    said = messages(theirs, "sacreBLEU: ")[0]
    assert said.startswith("Downloading https://")
    ours = bleustream(*args, cwd=tmp_path, env=env)
    assert (ours.returncode, ours.stdout) == (74, b"")
    first, why = messages(ours, "bleustream: ")
    assert first == said
    assert why.startswith(f"test set wmt22/en-de: could not get it into the cache {empty}")
    quiet = bleustream(*args, "-q", cwd=tmp_path, env=env)
    assert (quiet.returncode, messages(quiet, "bleustream: ")) == (74, [why])


def test_list_without_the_testsets_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    (blocker / "sacrebleu").mkdir(parents=True)
    (blocker / "sacrebleu" / "__init__.py").write_text("raise ImportError('not installed')\n")
    ours = bleustream("--list", env={"PYTHONPATH": str(blocker)}, cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (2, b"")
    assert ours.stderr == (
        b"bleustream: test-set options need SacreBLEU's test set registry: "
        b"pip install 'bleustream[testsets]'\n"
    )


def test_without_the_testsets_extra_a_test_set_is_one_line_naming_it(tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    (blocker / "sacrebleu").mkdir(parents=True)
    (blocker / "sacrebleu" / "__init__.py").write_text("raise ImportError('not installed')\n")
    env = {"PYTHONPATH": str(blocker)}
    ours = bleustream("-t", "wmt17", "-l", "en-de", env=env, cwd=tmp_path)
    assert ours.returncode == 2
    (line,) = ours.stderr.decode().splitlines()
    assert "bleustream[testsets]" in line


# --------------------------------------------------------------------------
# Empty input, SACREBLEU_SEED, the config file read, warnings
# --------------------------------------------------------------------------

TED_TOK = REAL_DATA / "compare-mt-ted-slk-en-tok"


def messages(proc: subprocess.CompletedProcess[bytes], prefix: str) -> list[str]:
    """stderr's lines without the program's prefix."""
    return [line.removeprefix(prefix) for line in proc.stderr.decode().splitlines()]


def test_empty_input_is_an_error_as_in_sacrebleu(data: Path) -> None:
    (data / "empty").write_bytes(b"")
    theirs = sacrebleu("empty", "-i", "empty", cwd=data)
    ours = bleustream("empty", "-i", "empty", cwd=data)
    assert theirs.returncode != 0
    assert ours.returncode == 65 and ours.stdout == b""
    assert len(ours.stderr.splitlines()) == 1 and b"--allow-empty" in ours.stderr
    allowed = bleustream("empty", "-i", "empty", "--allow-empty", "-b", cwd=data)
    assert (allowed.returncode, allowed.stdout) == (0, b"0.0\n")


@pytest.mark.parametrize("seed", ["7", "none", "12345"])
def test_sacrebleu_seed_is_honoured_without_seed(data: Path, seed: str) -> None:
    line = ("ref", "-i", SYSTEMS[0], "-ci", "-cin", "50", "-f", "text")
    theirs = sacrebleu(*line, cwd=data, env={"SACREBLEU_SEED": seed})
    ours = bleustream(*line, cwd=data, env={"SACREBLEU_SEED": seed})
    if seed == "none":  # fresh entropy: only the signature can agree
        assert f"seed:{seed}|".encode() in ours.stdout and f"seed:{seed}|".encode() in theirs.stdout
    else:
        assert masked(ours.stdout) == masked(theirs.stdout)
    given = bleustream(*line, "--seed", "3", cwd=data, env={"SACREBLEU_SEED": seed})
    assert b"seed:3|" in given.stdout


def test_a_config_file_found_is_named_on_stderr(data: Path, tmp_path: Path) -> None:
    (tmp_path / "bleustream.toml").write_text("width = 2\n", encoding="utf-8")
    args = (data / "ref", "-i", data / SYSTEMS[0], "-b")
    found = bleustream(*args, cwd=tmp_path)
    assert found.stderr == b"bleustream: settings read from bleustream.toml\n"
    assert bleustream(*args, "-q", cwd=tmp_path).stderr == b""
    named = bleustream(*args, "--config", "bleustream.toml", cwd=tmp_path)
    assert named.stderr == b"" and named.stdout == found.stdout


def test_forgot_to_detokenize_warning_is_sacrebleus(tmp_path: Path) -> None:
    if not TED_TOK.is_dir():
        pytest.skip(REAL_DATA_MISSING)
    for name in ("ted.ref.eng", "ted.sys1.eng"):
        lines = (TED_TOK / name).read_bytes().splitlines(keepends=True)[:500]
        (tmp_path / name).write_bytes(b"".join(lines))
    line = ("ted.ref.eng", "-i", "ted.sys1.eng", "-b")
    theirs = sacrebleu(*line, cwd=tmp_path)
    ours = bleustream(*line, cwd=tmp_path)
    assert ours.stdout == theirs.stdout
    assert len(messages(theirs, "sacreBLEU: ")) == 3
    assert messages(ours, "bleustream: ") == messages(theirs, "sacreBLEU: ")
    for silent in ("--force", "-q"):
        assert sacrebleu(*line, "--force", cwd=tmp_path).stderr == b""
        assert bleustream(*line, silent, cwd=tmp_path).stderr == b""


@pytest.mark.parametrize(
    "args",
    [
        ("-m", "bleu", "ter"),
        ("-m", "ter", "bleu", "-pbs", "-pbsn", "10"),
        ("-m", "chrf", "bleu", "-par", "-parn", "10"),
    ],
    ids=["table", "paired-bs", "paired-ar"],
)
@pytest.mark.slow
def test_forgot_to_detokenize_warnings_of_several_systems_are_where_sacrebleu_says_them(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """With several systems, each tokenized-looking system is warned of; in a
    paired test, among the test's lines, as SacreBLEU counts its BLEU."""
    if not TED_TOK.is_dir():
        pytest.skip(REAL_DATA_MISSING)
    for name in ("ted.ref.eng", "ted.sys1.eng", "ted.sys2.eng"):
        lines = (TED_TOK / name).read_bytes().splitlines(keepends=True)[:500]
        (tmp_path / name).write_bytes(b"".join(lines))
    line = ("ted.ref.eng", "-i", "ted.sys1.eng", "ted.sys2.eng", "-f", "text", *args)
    theirs = sacrebleu(*line, cwd=tmp_path)
    assert theirs.returncode == 0, theirs.stderr
    said = messages(theirs, "sacreBLEU: ")
    assert said.count("That's 100 lines that end in a tokenized period ('.')") == 2
    ours = bleustream(*line, "--compat", "sacrebleu", cwd=tmp_path)
    assert (ours.returncode, messages(ours, "bleustream: ")) == (0, said)


@pytest.mark.parametrize("pair", ["en-zh", "en-ja", "en-ko"])
def test_tokenizer_advice_for_the_target_is_sacrebleus(data: Path, pair: str) -> None:
    line = ("ref", "-i", SYSTEMS[0], "-l", pair, "-tok", "13a", "-b")
    theirs = sacrebleu(*line, cwd=data)
    ours = bleustream(*line, cwd=data)
    assert ours.stdout == theirs.stdout
    assert messages(ours, "bleustream: ") == messages(theirs, "sacreBLEU: ")
    assert bleustream(*line, "-q", cwd=data).stderr == b""


# --------------------------------------------------------------------------
# What SacreBLEU refuses, refused in its layouts; a repeated baseline
# --------------------------------------------------------------------------


PAIRED_NEEDS_SYSTEMS = "Paired tests require multiple input systems given to --input (-i)."
CI_NEEDS_PAIRED = "Use paired tests (--paired) for multiple systems."


@pytest.mark.parametrize(
    "args, words, scored",
    [
        (("-i", A, "-sl", "-m", "bleu", "chrf"),
         "Only one metric can be used in sentence-level mode.", True),
        (("-i", A, B, "-sl"), "Only one system can be evaluated in sentence-level mode.", True),
        (("-i", A, "-sl", "-ci", "-cin", "10"),
         "Statistical tests are unavailable in sentence-level mode.", True),
        (("-i", A, B, "-ci", "-cin", "10"), CI_NEEDS_PAIRED, True),
        (("-i", A, B, "-par", "-parn", "20", "-ci", "-cin", "10"), CI_NEEDS_PAIRED, True),
        (("-i", A, B, "-pbs", "-pbsn", "20", "-ci", "-cin", "10"), CI_NEEDS_PAIRED, True),
        (("-i", A, "-pbs", "-pbsn", "20"), PAIRED_NEEDS_SYSTEMS, False),
        (("-i", A, A, "-par", "-parn", "20"), PAIRED_NEEDS_SYSTEMS, False),
    ],
    ids=["sl-metrics", "sl-systems", "sl-test", "ci-systems", "par-ci-systems",
         "pbs-ci-systems", "pbs-one-system", "par-baseline-twice"],
)  # fmt: skip
def test_what_sacrebleu_refuses_is_refused_in_its_layouts(
    data: Path, args: tuple[str, ...], words: str, scored: bool
) -> None:
    """SacreBLEU says these words and exits 1; bleustream says them and
    exits 1 under --compat sacrebleu, and scores what it can without it."""
    theirs = sacrebleu("ref", *args, cwd=data)
    assert theirs.returncode == 1
    assert theirs.stderr.decode().strip().endswith(words)
    ours = bleustream("ref", *args, "--compat", "sacrebleu", cwd=data)
    assert (ours.returncode, ours.stdout) == (1, b"")
    assert ours.stderr.decode().splitlines()[-1] == f"bleustream: {words}"
    assert (bleustream("ref", *args, cwd=data).returncode == 0) == scored


@pytest.mark.parametrize(
    "args, fields, words",
    [
        (("-ci", "-cin", "10"), 2, CI_NEEDS_PAIRED),
        (("-par", "-parn", "20", "-ci", "-cin", "10"), 2, CI_NEEDS_PAIRED),
        (("-pbs", "-pbsn", "20", "-ci", "-cin", "10"), 2, CI_NEEDS_PAIRED),
        (("-pbs", "-pbsn", "20"), 1, PAIRED_NEEDS_SYSTEMS),
        (("-pbs", "-pbsn", "20", "-ci"), 1, PAIRED_NEEDS_SYSTEMS),
    ],
    ids=["ci", "par-ci", "pbs-ci", "pbs-one", "pbs-ci-one"],
)
def test_what_sacrebleu_refuses_of_stdins_systems_is_refused(
    data: Path, args: tuple[str, ...], fields: int, words: str
) -> None:
    stdin = pasted(data, *SYSTEMS[:fields])
    theirs = sacrebleu("ref", *args, cwd=data, input=stdin)
    assert theirs.returncode == 1
    assert theirs.stderr.decode().strip().endswith(words)
    ours = bleustream("ref", *args, "--compat", "sacrebleu", cwd=data, input=stdin)
    assert (ours.returncode, ours.stdout) == (1, b"")
    assert ours.stderr.decode() == f"bleustream: {words}\n"


@pytest.mark.parametrize(
    "args",
    [
        ("-i", A, B),
        ("-i", *SYSTEMS, "-m", "ter", "bleu", "-f", "text", *PBS),
        ("-i", A, B, "-m", "chrf", "bleu", "--chrf-word-order", "2", "-f", "latex", *PAR),
        ("-i", A, B, A, "-f", "text", *PBS),
        ("-f", "text", *PAR),
    ],
    ids=["two", "three-bs", "ar-latex", "baseline-again", "stdin-ar"],
)
@pytest.mark.slow
def test_sacrebleus_stderr_lines_are_said_in_its_mode(data: Path, args: tuple[str, ...]) -> None:
    """SacreBLEU's information lines ("Found 2 systems.", each step of a paired
    test) are said under --compat sacrebleu, not with -q, not in bleustream's mode."""
    stdin = pasted(data, A, B) if "-i" not in args else b""
    theirs = sacrebleu("ref", *args, cwd=data, input=stdin)
    assert theirs.returncode == 0, theirs.stderr
    assert messages(theirs, "sacreBLEU: ")[:1] in (
        ["Found 2 systems."],
        ["Found 3 systems."],
        [f"Ignoring {A!r} as it was also given as the baseline."],
    )
    ours = bleustream("ref", *args, "--compat", "sacrebleu", cwd=data, input=stdin)
    assert ours.returncode == 0, ours.stderr
    assert messages(ours, "bleustream: ") == messages(theirs, "sacreBLEU: ")
    quiet = bleustream("ref", *args, "--compat", "sacrebleu", "-q", cwd=data, input=stdin)
    assert (quiet.stderr, quiet.stdout) == (b"", ours.stdout)
    assert bleustream("ref", *args, cwd=data, input=stdin).stderr == b""


@pytest.mark.parametrize("given", [("--self-bleu", "texygen"), ("-m", "self-bleu")])
def test_texygen_self_bleu_sentence_lines_in_sacrebleus_mode(
    data: Path, given: tuple[str, ...]
) -> None:
    """SacreBLEU's mode turns on effective order for BLEU's -sl; Self-BLEU is
    bleustream's own, and Texygen's takes its sentences as they are: each
    line's value is NLTK's against the others (Texygen's code)."""
    from tests.metrics.test_self_bleu import nltk_values

    lines = (data / A).read_text(encoding="utf-8").splitlines()[:40]
    (data / "sentences").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ours = bleustream("-i", "sentences", "-sl", *given, "--compat", "sacrebleu", cwd=data)
    assert (ours.returncode, ours.stderr) == (0, b"")
    out = ours.stdout.decode().splitlines()
    assert all(line.startswith("SelfBLEU|conv:texygen|") for line in out)
    values = [line.rsplit(" = ", 1)[1] for line in out]
    assert values == [f"{v:.4f}" for v in nltk_values(lines)]
    said = bleustream("-i", "sentences", "-sl", *given, "--effective-order", cwd=data)
    assert said.returncode == 2
    assert said.stderr.decode().startswith("bleustream: --effective-order is not Texygen's")


def test_a_paired_tests_baseline_given_again_is_passed_over(data: Path) -> None:
    base, other = SYSTEMS[0], SYSTEMS[1]
    args = ("-pbs", "-pbsn", "20", "-f", "text")
    theirs = sacrebleu("ref", "-i", base, other, base, *args, cwd=data)
    ours = bleustream("ref", "-i", base, other, base, *args, "--compat", "sacrebleu", cwd=data)
    assert theirs.returncode == ours.returncode == 0
    assert masked(ours.stdout) == masked(theirs.stdout)
    again = bleustream("ref", "-i", base, other, other, *args, cwd=data)
    assert again.returncode == 2


# --------------------------------------------------------------------------
# SacreBLEU's test-set functions from Python: bleustream.sacrebleu.utils, .dataset
# --------------------------------------------------------------------------

TEST_SET_SCRIPT = """
import json, sys
import {module} as sb
from {module}.utils import get_available_testsets_for_langpair, get_langpairs_for_testset
from {module}.dataset import DATASETS
print(json.dumps({{
    "refs": sb.get_reference_files("wmt17", "en-de"),
    "source": sb.get_source_file("wmt17", "en-de"),
    "sets": sb.get_available_testsets(),
    "for_pair": get_available_testsets_for_langpair("en-de"),
    "pairs": get_langpairs_for_testset("wmt17"),
    "datasets": sorted(DATASETS),
}}))
"""


def test_the_test_set_functions_are_sacrebleus_on_its_cache(cache: Path, tmp_path: Path) -> None:
    env = {**os.environ, "SACREBLEU": str(cache)}
    answers = []
    for module in ("sacrebleu", "bleustream.sacrebleu"):
        done = subprocess.run(
            [sys.executable, "-c", TEST_SET_SCRIPT.format(module=module)],
            capture_output=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode()
        answers.append(done.stdout)
    assert answers[0] == answers[1]
    ours = json.loads(answers[1])
    assert ours["refs"] == [str(cache / "wmt17" / "wmt17.en-de.ref")]
    assert "wmt17" in ours["for_pair"] and "en-de" in ours["pairs"]


def test_without_the_extra_the_test_set_functions_name_it(tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    (blocker / "sacrebleu").mkdir(parents=True)
    (blocker / "sacrebleu" / "__init__.py").write_text("raise ImportError('not installed')\n")
    script = (
        "import bleustream\n"
        "try:\n"
        "    bleustream.get_available_testsets()\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=env, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "bleustream[testsets]" in done.stdout.decode()


def test_the_top_level_gives_every_test_set_function_of_utils() -> None:
    import bleustream
    import bleustream.sacrebleu.utils

    for name in bleustream.sacrebleu.utils.__all__:
        assert getattr(bleustream, name) is getattr(bleustream.sacrebleu.utils, name), name


# --------------------------------------------------------------------------
# Streams of different lengths and empty inputs: SacreBLEU's refusal in
# compat mode (its words on stderr, status 1, nothing on stdout), one line
# naming the file and line with status 65 in bleustream's own mode
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def uneven(data: Path) -> Path:
    """``short`` and ``long``: system A with a line less and a line more; ``empty``."""
    lines = (data / A).read_bytes().splitlines(keepends=True)
    (data / "short").write_bytes(b"".join(lines[:-1]))
    (data / "long").write_bytes(b"".join(lines) + lines[0])
    (data / "empty").write_bytes(b"")
    return data


def first_lines(where: Path, name: str, count: int) -> bytes:
    return b"".join((where / name).read_bytes().splitlines(keepends=True)[:count])


UNEVEN_FILES = {
    "ref-shorter": ("short", "-i", A),
    "ref-longer": ("long", "-i", A),
    "ref-shorter-b": ("short", "-i", A, "-b"),
    "ref-longer-json": ("long", "-i", A, "-f", "json"),
    "two-refs-one-shorter": ("ref", "short", "-i", A),
    "second-system-shorter": ("ref", "-i", A, "short", "-f", "text"),
    "second-system-longer": ("ref", "-i", A, "long"),
    "systems-both-off-ref": ("short", "-i", A, B),
    "paired-bs": ("ref", "-i", A, "short", "-pbs", "-pbsn", "10"),
    "sl-hyp-longer": ("short", "-i", A, "-sl"),
    "sl-hyp-shorter": ("ref", "-i", "short", "-sl"),
    "empty-hyp": ("ref", "-i", "empty"),
    "empty-hyp-b": ("ref", "-i", "empty", "-b"),
    "empty-ref": ("empty", "-i", A),
    "empty-both": ("empty", "-i", "empty"),
    "empty-second-system": ("ref", "-i", A, "empty"),
    "empty-second-after-short": ("ref", "-i", "short", "empty"),
    "empty-first-then-short": ("ref", "-i", "empty", "short"),
    "jobs": ("short", "-i", A, "-j", "2"),
}


def _same_refusal(
    theirs: subprocess.CompletedProcess[bytes], ours: subprocess.CompletedProcess[bytes]
) -> None:
    """SacreBLEU's refusal: status 1, its last line's words, nothing on stdout."""
    assert theirs.returncode == 1 and not theirs.stdout, theirs.stderr
    assert ours.returncode == 1, ours.stderr
    said = theirs.stderr.decode().splitlines()[-1].removeprefix("sacreBLEU: ")
    assert ours.stderr.decode().splitlines() == [f"bleustream: {said}"]


@pytest.mark.parametrize("args", UNEVEN_FILES.values(), ids=UNEVEN_FILES.keys())
def test_files_of_different_lengths_are_refused_as_sacrebleu_refuses_them(
    uneven: Path, args: tuple[str, ...]
) -> None:
    theirs = sacrebleu(*args, cwd=uneven)
    ours = bleustream("--compat", "sacrebleu", *args, cwd=uneven)
    _same_refusal(theirs, ours)
    if "-sl" in args:  # the segment lines of both streams are written
        written = ours.stdout.splitlines()
        assert len(written) == 299 and all(w.startswith(b"BLEU|") for w in written)
    else:
        assert ours.stdout == b""


@pytest.mark.parametrize("args", UNEVEN_FILES.values(), ids=UNEVEN_FILES.keys())
def test_files_of_different_lengths_are_one_line_and_status_65_in_bleustreams_mode(
    uneven: Path, args: tuple[str, ...]
) -> None:
    ours = bleustream(*args, cwd=uneven)
    assert ours.returncode == 65, ours.stderr
    (line,) = ours.stderr.decode().splitlines()
    assert line.startswith("bleustream: ")
    # The file that ended, and the line where the streams part (an input
    # that is empty throughout has no line to name).
    assert any(name in line for name in args if (uneven / name).is_file()), line
    if args[:3] != ("empty", "-i", "empty"):
        assert re.search(r"line \d+|:\d+:", line), line
    if "-sl" not in args:
        assert ours.stdout == b""


UNEVEN_STDIN = {
    "shorter": (lambda d: first_lines(d, A, 299), ()),
    "longer": (lambda d: (d / "long").read_bytes(), ()),
    "longer-b": (lambda d: (d / "long").read_bytes(), ("-b",)),
    "shorter-sl": (lambda d: first_lines(d, A, 299), ("-sl",)),
    "longer-sl": (lambda d: (d / "long").read_bytes(), ("-sl",)),
    "two-systems-shorter": (lambda d: pasted(d, "short", "short"), ("-f", "text")),
    "two-systems-longer": (lambda d: pasted(d, "long", "long"), ()),
    "two-systems-longer-uneven-after": (
        lambda d: pasted(d, "long", "long") + b"one field\n",
        (),
    ),
    "empty": (lambda d: b"", ()),
    "empty-b": (lambda d: b"", ("-b",)),
    "empty-sl": (lambda d: b"", ("-sl",)),
    "jobs": (lambda d: (d / "long").read_bytes(), ("-j", "2")),
}


@pytest.mark.parametrize("made,args", UNEVEN_STDIN.values(), ids=UNEVEN_STDIN.keys())
def test_stdin_of_another_length_is_refused_as_sacrebleu_refuses_it(
    uneven: Path, made: Callable[[Path], bytes], args: tuple[str, ...]
) -> None:
    stdin = made(uneven)
    theirs = sacrebleu("ref", *args, cwd=uneven, input=stdin)
    ours = bleustream("--compat", "sacrebleu", "ref", *args, cwd=uneven, input=stdin)
    if theirs.returncode == 17:  # an uneven line after the last reference
        assert ours.returncode == 17 and not ours.stdout
        return
    _same_refusal(theirs, ours)
    if "-sl" in args:  # the segment lines of both streams are written
        written = ours.stdout.splitlines()
        assert len(written) in (0, 299, 300) and all(w.startswith(b"BLEU|") for w in written)
    else:
        assert ours.stdout == b""
    mine = bleustream("ref", *args, cwd=uneven, input=stdin)
    assert mine.returncode == 65, mine.stderr
    (line,) = mine.stderr.decode().splitlines()
    assert "<stdin>" in line or "ref" in line, line


def test_empty_stdin_against_one_reference_line_is_refused_where_sacrebleu_scores_it(
    tmp_path: Path,
) -> None:
    # SacreBLEU reads an empty stdin as one empty line: documented as a difference.
    (tmp_path / "one").write_text("a b c\n", encoding="utf-8")
    theirs = sacrebleu("one", "-b", cwd=tmp_path)
    assert theirs.returncode == 0 and theirs.stdout.strip() == b"0.0"
    ours = bleustream("--compat", "sacrebleu", "one", "-b", cwd=tmp_path)
    assert ours.returncode == 1 and ours.stdout == b""
    assert (
        ours.stderr.decode() == "bleustream: System and reference streams have different lengths.\n"
    )


def test_allow_empty_still_scores_an_empty_input_in_compat_mode(uneven: Path) -> None:
    ours = bleustream(
        "--compat", "sacrebleu", "empty", "-i", "empty", "-b", "--allow-empty", cwd=uneven
    )
    assert ours.returncode == 0 and ours.stdout == b"0.0\n", ours.stderr
