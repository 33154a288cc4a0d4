"""Several systems and the significance tests, through the real command.

``bleustream REF... -i BASELINE SYSTEM...`` (and paste input with
``--systems N``) scores each system as if it were scored alone.  With
``--paired-bs``, ``--paired-ar`` and ``-ci`` the numbers must be what
SacreBLEU's own command line prints for the same files and seed: its text
table (box-drawn; bleustream's is plain, so both are parsed into cells and
the cells compared), its LaTeX output character for character, and
bleustream's full-precision JSON rounded as SacreBLEU rounds for printing.

SacreBLEU's command line is slow, so each of its outputs is computed once
per module, several at a time.
"""

from __future__ import annotations

import csv
import io
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bleustream._version import __version__
from tests.conftest import real_sets, require_real_data
from tests.helpers.clirun import assert_clean_stderr, json_records, run

T = TypeVar("T")

SACREBLEU = [sys.executable, "-m", "sacrebleu"]
OUR_VERSION = f"version:bleustream-{__version__}"


def run_concurrently(jobs: Sequence[Callable[[], T]]) -> list[T]:
    """Run independent jobs (each starting a subprocess) a few at a time."""
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(lambda job: job(), jobs))


def sacrebleu_cli(*args: str | Path, cwd: Path, seed: str) -> str:
    """SacreBLEU's command line with its seed (an environment variable); its stdout."""
    env = dict(os.environ, SACREBLEU_SEED=seed)
    proc = subprocess.run(
        [*SACREBLEU, *map(str, args)], capture_output=True, cwd=cwd, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode("utf-8")


def ok(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b"", proc.stderr.decode()
    return proc.stdout.decode("utf-8")


def write_lines(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def same_version(text: str) -> str:
    return text.replace("version:2.6.0", OUR_VERSION)


# --------------------------------------------------------------------------
# A generated corpus: references and systems of close quality
# --------------------------------------------------------------------------

WORDS = (
    *("the", "a", "house", "small", "big", "is", "was", "cat", "dog", "runs", "quickly"),
    *(",", ".", "and", "of", "Grüße", "naïve", "café", "日本語", "の", "猫", "—", "ﬁne"),
)
GEN_SEGMENTS = 60
# File names as given on the command line (one with an underscore, which
# LaTeX escapes).
GEN_SYSTEMS = ("sys0.txt", "sys1.txt", "sys2.txt", "sys3.txt", "sys_4.txt")


def edited(words: list[str], rate: float, rng: random.Random) -> list[str]:
    """The words with drops, replacements, insertions and a swap at ``rate``."""
    out: list[str] = []
    for word in words:
        roll = rng.random()
        if roll < rate / 3:
            continue
        out.append(rng.choice(WORDS) if roll < 2 * rate / 3 else word)
        if rng.random() < rate / 4:
            out.append(rng.choice(WORDS))
    if len(out) > 2 and rng.random() < rate:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def generated_corpus(seed: int) -> tuple[list[list[str]], list[list[str]]]:
    """Two reference streams and five systems editing the first at close rates.

    Close rates give p-values across the range; a few empty lines reach the
    zero-count paths of every metric.
    """
    rng = random.Random(seed)
    refs: list[list[str]] = [[], []]
    for _ in range(GEN_SEGMENTS):
        for stream in refs:
            length = 0 if rng.random() < 0.03 else rng.randint(1, 14)
            stream.append(" ".join(rng.choice(WORDS) for _ in range(length)))
    systems = []
    for k in range(len(GEN_SYSTEMS)):
        rate = 0.25 + 0.03 * k * (-1) ** k
        systems.append(
            [
                "" if rng.random() < 0.02 else " ".join(edited(ref.split(), rate, rng))
                for ref in refs[0]
            ]
        )
    return refs, systems


GEN_REFS, GEN_HYPS = generated_corpus(seed=77)


@dataclass(frozen=True)
class Source:
    """Where a case's files are: run both commands there, with these names."""

    cwd: Path
    refs: tuple[str, ...]
    systems: tuple[str, ...]


@pytest.fixture(scope="module")
def gen_source(tmp_path_factory: pytest.TempPathFactory) -> Source:
    root = tmp_path_factory.mktemp("systems_cli")
    for k, stream in enumerate(GEN_REFS):
        write_lines(root / f"ref.{k}", stream)
    for name, hyps in zip(GEN_SYSTEMS, GEN_HYPS):
        write_lines(root / name, hyps)
    # Paste lines: three systems, then the references.
    paste = ["\t".join(fields) for fields in zip(*GEN_HYPS[:3], *GEN_REFS)]
    write_lines(root / "paste3", paste)
    return Source(root, ("ref.0", "ref.1"), GEN_SYSTEMS)


# WMT21 en-de against reference A: a baseline and systems of close BLEU,
# read where they are (cwd is the set's directory), named as in the set.
WMT_SYSTEMS = ("HuaweiTSC", "UEdin", "Online-W")


@pytest.fixture(scope="module")
def wmt_source() -> Source:
    require_real_data()
    (real_set,) = [s for s in real_sets() if s.name == "wmt21-en-de"]
    names = tuple(f"newstest2021.en-de.hyp.{name}.de" for name in WMT_SYSTEMS)
    assert all((real_set.directory / name).is_file() for name in names)
    ref = real_set.refs[0]
    assert ref.name == "newstest2021.en-de.ref.A.de"
    return Source(real_set.directory, (ref.name,), names)


# --------------------------------------------------------------------------
# The cases compared with SacreBLEU's command line
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One comparison: the same systems, metrics, test and seed for both commands."""

    id: str
    source: str  # "gen" or "wmt"
    n_systems: int  # the source's first N systems, the first is the baseline
    metrics: tuple[str, ...]  # in SacreBLEU's (sorted) order
    test: tuple[str, ...]  # the flags of the test, the same for both commands
    seed: str | None = None  # None: not given (SacreBLEU's 12345)
    width: int = 1
    latex: bool = False

    @property
    def kind(self) -> str:
        if {"--paired-bs", "-pbs"} & set(self.test):
            return "bs"
        if {"--paired-ar", "-par"} & set(self.test):
            return "ar"
        return "ci" if "-ci" in self.test else "scores"

    @property
    def exact(self) -> bool:
        """With a fixed seed every number is SacreBLEU's; with ``none`` only the layout."""
        return self.seed != "none"

    def flags(self, source: Source) -> tuple[str, ...]:
        return (
            *source.refs,
            "-i",
            *source.systems[: self.n_systems],
            "-m",
            *self.metrics,
            *self.test,
            "-w",
            str(self.width),
        )

    def ours(self, source: Source, *fmt: str) -> subprocess.CompletedProcess[bytes]:
        seed = () if self.seed is None else ("--seed", self.seed)
        return run(*self.flags(source), *seed, *fmt, cwd=source.cwd, timeout=300)

    def theirs(self, source: Source, fmt: str) -> str:
        return sacrebleu_cli(
            *self.flags(source),
            "-f",
            fmt,
            "--no-color",
            cwd=source.cwd,
            seed=self.seed or "12345",
        )


ALL = ("bleu", "chrf", "ter")
CASES = [
    Case("gen-bs100-all", "gen", 3, ALL, ("--paired-bs", "-pbsn", "100"), latex=True),
    Case("gen-bs1000-bleu-seed7", "gen", 5, ("bleu",), ("--paired-bs",), seed="7", width=2),
    Case(
        "gen-ar200-chrf-ter",
        "gen",
        4,
        ("chrf", "ter"),
        ("--paired-ar", "-parn", "200"),
        seed="12345",
        latex=True,
    ),
    Case("gen-ar200-bleu-ter-seed7", "gen", 2, ("bleu", "ter"), ("-par", "-parn", "200"), "7"),
    Case("gen-bs100-chrf-seed7", "gen", 3, ("chrf",), ("-pbs", "-pbsn", "100"), "7"),
    Case("gen-ar200-ter", "gen", 3, ("ter",), ("--paired-ar", "-parn", "200")),
    Case("gen-ci-all", "gen", 1, ALL, ("-ci", "-cin", "200")),
    Case("gen-ci-chrf-ter-seed7", "gen", 1, ("chrf", "ter"), ("-ci", "-cin", "200"), "7", 3),
    Case("gen-scores", "gen", 5, ALL, (), latex=True),
    Case("gen-bs-seed-none", "gen", 3, ("bleu", "ter"), ("-pbs", "-pbsn", "100"), "none"),
    Case("gen-ci-seed-none", "gen", 1, ("bleu", "chrf"), ("-ci", "-cin", "100"), "none"),
    Case("wmt-bs1000", "wmt", 3, ("bleu", "chrf"), ("--paired-bs",)),
    Case("wmt-ar200-seed7", "wmt", 3, ("bleu", "chrf"), ("--paired-ar", "-parn", "200"), "7"),
    Case("wmt-ci", "wmt", 1, ("bleu", "chrf"), ("-ci", "-cin", "200"), "12345", 2),
]


def sacrebleu_outputs(cases: Sequence[Case], source: Source) -> dict[tuple[str, str], str]:
    """SacreBLEU's text (and LaTeX) output of each case, run a few at a time."""
    keys = [(c.id, fmt) for c in cases for fmt in (("text", "latex") if c.latex else ("text",))]
    by_id = {c.id: c for c in cases}
    jobs = [lambda c=by_id[i], fmt=fmt: c.theirs(source, fmt) for i, fmt in keys]
    return dict(zip(keys, run_concurrently(jobs)))


@pytest.fixture(scope="module")
def gen_sacrebleu(gen_source: Source) -> dict[tuple[str, str], str]:
    return sacrebleu_outputs([c for c in CASES if c.source == "gen"], gen_source)


@pytest.fixture(scope="module")
def wmt_sacrebleu(wmt_source: Source) -> dict[tuple[str, str], str]:
    return sacrebleu_outputs([c for c in CASES if c.source == "wmt"], wmt_source)


# --------------------------------------------------------------------------
# Reading the tables
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A results table: column titles, then per row the system and its cells."""

    titles: list[str]
    rows: list[tuple[str, list[str]]]  # a cell's lines joined with "\n"


def table_part(text: str) -> tuple[str, str]:
    """The table, and what follows it (after the first blank line)."""
    table, rest = text.split("\n\n", 1)
    return table, rest


def sacrebleu_table(text: str) -> Table:
    """SacreBLEU's ``fancy_grid`` table: rows between rules, cells between ``│``."""
    blocks: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in table_part(text)[0].splitlines():
        if line.startswith("│"):
            current.append([cell.strip() for cell in line.strip("│").split("│")])
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    cells = [["\n".join(p for p in parts if p) for parts in zip(*block)] for block in blocks]
    titles, *rows = cells
    return Table(titles, [(row[0], row[1:]) for row in rows])


def plain_table(text: str) -> Table:
    """bleustream's plain table: columns where the dashed rule under the titles has them."""
    title_line, rule, *lines = table_part(text)[0].splitlines()
    dashes = list(re.finditer(r"-+", rule))
    # The last column runs to the end of the line (a p-value may be wider).
    ends: list[int | None] = [m.end() for m in dashes[:-1]] + [None]
    spans = [(m.start(), end) for m, end in zip(dashes, ends)]

    def cut(line: str) -> list[str]:
        return [line[a:b].strip() for a, b in spans]

    titles = cut(title_line)
    rows: list[tuple[str, list[str]]] = []
    for line in lines:
        system, *cells = cut(line)
        if system:
            rows.append((system, cells))
        else:  # a second line of the previous row: its p-values
            previous = rows[-1][1]
            for k, cell in enumerate(cells):
                if cell:
                    previous[k] += "\n" + cell
    return Table(titles, rows)


CELL = re.compile(
    r"^(?P<score>-?\d+\.\d+)"
    r"(?: \((?P<mean>-?\d+\.\d+) ± (?P<ci>-?\d+\.\d+)\))?"
    r"(?:[ \n]\(p = (?P<p>\d\.\d{4})\)(?P<star>\*?))?$"
)


def cell_parts(cell: str) -> dict[str, str | None]:
    match = CELL.match(cell)
    assert match, f"not a results cell: {cell!r}"
    return match.groupdict()


def fixed(value: float | None, width: int) -> str | None:
    """A number as SacreBLEU prints it (``None`` stays ``None``)."""
    return None if value is None else f"{value:.{width}f}"


def json_by_system(stdout: str) -> dict[Any, list[dict[str, Any]]]:
    """Corpus objects grouped by system, in output order."""
    out: dict[Any, list[dict[str, Any]]] = {}
    for obj in json_records(stdout.encode()):
        assert obj["type"] == "corpus"
        out.setdefault(obj.get("system"), []).append(obj)
    return out


def metric_title(title: str) -> str:
    return title.split(" (μ")[0]


# TSV columns, written out: each metric's, then a test's mean, ci and p_value.
BLEU_COLUMNS = [
    *("bleu", "p1", "p2", "p3", "p4", "bp", "ratio", "hyp_len", "ref_len"),
    *("m1", "m2", "m3", "m4", "t1", "t2", "t3", "t4"),
]
CHRF_COLUMNS = [
    "chrf",
    *("chrf_c1_hyp", "chrf_c1_ref", "chrf_c1_match", "chrf_c2_hyp", "chrf_c2_ref"),
    *("chrf_c2_match", "chrf_c3_hyp", "chrf_c3_ref", "chrf_c3_match", "chrf_c4_hyp"),
    *("chrf_c4_ref", "chrf_c4_match", "chrf_c5_hyp", "chrf_c5_ref", "chrf_c5_match"),
    *("chrf_c6_hyp", "chrf_c6_ref", "chrf_c6_match"),
]
TER_COLUMNS = ["ter", "ter_edits", "ter_ref_len"]
COLUMNS = {"bleu": BLEU_COLUMNS, "chrf": CHRF_COLUMNS, "ter": TER_COLUMNS}
HEAD = ["kind", "system", "line", "id"]
TAIL = ["segments", "skipped", "unpaired", "partial"]

PAIRED_TSV_HEADER = [
    *HEAD,
    *BLEU_COLUMNS,
    *("bleu_mean", "bleu_ci", "bleu_p_value"),
    *CHRF_COLUMNS,
    *("chrf_mean", "chrf_ci", "chrf_p_value"),
    *TER_COLUMNS,
    *("ter_mean", "ter_ci", "ter_p_value"),
    *TAIL,
]
SCORES_TSV_HEADER = [*HEAD, *BLEU_COLUMNS, *CHRF_COLUMNS, *TER_COLUMNS, *TAIL]


def tsv_rows(stdout: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(stdout), delimiter="\t", quoting=csv.QUOTE_NONE)
    rows = list(reader)
    return list(reader.fieldnames or []), rows


def tsv_number(text: str) -> float | None:
    return None if text == "" else float(text)


# --------------------------------------------------------------------------
# Against SacreBLEU
# --------------------------------------------------------------------------


def outputs_of(request: pytest.FixtureRequest, case: Case) -> tuple[Source, Mapping]:
    source = request.getfixturevalue(f"{case.source}_source")
    return source, request.getfixturevalue(f"{case.source}_sacrebleu")


def assert_json_equals_cells(
    case: Case, source: Source, theirs: Table, objects: Mapping[Any, list[dict[str, Any]]]
) -> None:
    """bleustream's JSON, rounded as SacreBLEU rounds, holds the numbers of its cells."""
    names = source.systems[: case.n_systems]
    assert list(objects) == list(names)  # JSON names the file as given
    assert len(theirs.rows) == len(names)
    labels = [metric_title(t) for t in theirs.titles[1:]]
    for (shown, cells), name in zip(theirs.rows, names):
        expected_name = (
            f"Baseline: {name}" if case.kind in ("bs", "ar") and name == names[0] else name
        )
        assert shown == expected_name
        assert [o["metric"] for o in objects[name]] == labels
        for obj, cell in zip(objects[name], cells):
            parts = cell_parts(cell)
            assert obj["system"] == name
            assert fixed(obj["score"], case.width) == parts["score"]
            if not case.exact:
                continue
            assert fixed(obj.get("mean"), case.width) == parts["mean"]
            assert fixed(obj.get("ci"), case.width) == parts["ci"]
            if case.kind in ("bs", "ar"):
                assert fixed(obj["p_value"], 4) == parts["p"]
                if name == names[0]:
                    assert obj["p_value"] is None


def assert_layout_only(ours: Table, theirs: Table) -> None:
    """Fresh entropy: the same titles, systems and scores; means and p-values where due."""
    assert ours.titles == theirs.titles
    assert [name for name, _ in ours.rows] == [name for name, _ in theirs.rows]
    for (_, our_cells), (_, their_cells) in zip(ours.rows, theirs.rows):
        for our_cell, their_cell in zip(our_cells, their_cells):
            a, b = cell_parts(our_cell), cell_parts(their_cell)
            assert a["score"] == b["score"]
            assert [a[k] is None for k in ("mean", "ci", "p")] == [
                b[k] is None for k in ("mean", "ci", "p")
            ]


@pytest.mark.parametrize("case", [c for c in CASES if c.n_systems > 1], ids=lambda c: c.id)
def test_tables_equal_sacrebleus(request: pytest.FixtureRequest, case: Case) -> None:
    source, sacre = outputs_of(request, case)
    fmts = [("-f", "text"), ("-f", "jsonl")] + ([("-f", "latex")] if case.latex else [])
    procs = run_concurrently([lambda fmt=fmt: case.ours(source, *fmt) for fmt in fmts])
    text, as_json, *latex = (ok(p) for p in procs)
    their_text = sacre[case.id, "text"]
    ours, theirs = plain_table(text), sacrebleu_table(their_text)
    # What follows the table: the test's paragraph and the signatures.
    assert table_part(text)[1] == same_version(table_part(their_text)[1])
    if not case.exact:
        assert_layout_only(ours, theirs)
        assert "seed:none" in text
    else:
        assert ours == theirs
        if case.latex:
            assert latex[0] == same_version(sacre[case.id, "latex"])
    assert_json_equals_cells(case, source, theirs, json_by_system(as_json))


SINGLE_LINE = re.compile(
    r"^(?P<head>\S+) = (?P<score>\S+)(?: \(μ = (?P<mean>\S+) ± (?P<ci>\S+)\))?"
)


@pytest.mark.parametrize("case", [c for c in CASES if c.n_systems == 1], ids=lambda c: c.id)
def test_confidence_lines_equal_sacrebleus(request: pytest.FixtureRequest, case: Case) -> None:
    source, sacre = outputs_of(request, case)
    text, as_json, tsv = (
        ok(p)
        for p in run_concurrently(
            [lambda f=f: case.ours(source, "-f", f) for f in ("text", "jsonl", "tsv")]
        )
    )
    their_lines = [same_version(line.lstrip(" ")) for line in sacre[case.id, "text"].splitlines()]
    our_lines = text.splitlines()
    objects = json_records(as_json.encode())
    assert [o["metric"] for o in objects] == [line.split("|")[0] for line in their_lines]
    assert len(our_lines) == len(their_lines)
    if case.exact:
        assert our_lines == their_lines
    for obj, line, their_line in zip(objects, our_lines, their_lines):
        ours, theirs = SINGLE_LINE.match(line), SINGLE_LINE.match(their_line)
        assert ours and theirs
        assert ours["head"] == theirs["head"]  # signatures: bs, seed and the rest
        assert fixed(obj["score"], case.width) == theirs["score"]
        assert "p_value" not in obj and "system" not in obj
        assert obj["bs"] == case.test[-1]
        assert obj["seed"] == (case.seed or "12345")
        if case.exact:
            assert fixed(obj["mean"], case.width) == theirs["mean"]
            assert fixed(obj["ci"], case.width) == theirs["ci"]
        else:
            assert ours["mean"] is not None and theirs["mean"] is not None
            assert isinstance(obj["mean"], float) and isinstance(obj["ci"], float)

    # TSV: each metric's columns, then its mean and interval (no p-value).
    header, (row,) = tsv_rows(tsv)
    expected = ["kind", "line", "id"]
    for metric in case.metrics:
        expected += [*COLUMNS[metric], f"{metric}_mean", f"{metric}_ci"]
    assert header == [*expected, *TAIL]
    for obj, metric in zip(objects, case.metrics):
        assert float(row[metric]) == obj["score"]
        if case.exact:  # with fresh entropy, each run draws anew
            assert float(row[f"{metric}_mean"]) == obj["mean"]
            assert float(row[f"{metric}_ci"]) == obj["ci"]


# --------------------------------------------------------------------------
# Formats of a paired test: text table, TSV, JSON Lines
# --------------------------------------------------------------------------


def test_paired_formats_agree(gen_source: Source) -> None:
    """The paired bootstrap test in JSON Lines, TSV and the text table."""
    (case,) = [c for c in CASES if c.id == "gen-bs100-all"]
    procs = run_concurrently(
        [lambda f=f: case.ours(gen_source, "-f", f) for f in ("jsonl", "tsv", "text")]
    )
    as_json, tsv, text = (ok(p) for p in procs)
    objects = json_records(as_json.encode())
    names = GEN_SYSTEMS[:3]
    assert [(o["system"], o["metric"]) for o in objects] == [
        (name, label) for name in names for label in ("BLEU", "chrF2", "TER")
    ]
    for obj in objects:
        assert obj["type"] == "corpus"
        assert {"type", "system", "metric", "score", "mean", "ci", "p_value"} <= set(obj)
        assert (obj["p_value"] is None) == (obj["system"] == names[0])
        assert obj["bs"] == "100" and obj["seed"] == "12345"
        assert obj["ci"] > 0 and (obj["p_value"] is None or 0 < obj["p_value"] <= 1)

    header, rows = tsv_rows(tsv)
    assert header == PAIRED_TSV_HEADER
    assert [(r["kind"], r["system"]) for r in rows] == [("corpus", name) for name in names]
    for row, name in zip(rows, names):
        for obj in (o for o in objects if o["system"] == name):
            column = {"BLEU": "bleu", "chrF2": "chrf", "TER": "ter"}[obj["metric"]]
            assert float(row[column]) == obj["score"]
            assert float(row[f"{column}_mean"]) == obj["mean"]
            assert float(row[f"{column}_ci"]) == obj["ci"]
            assert tsv_number(row[f"{column}_p_value"]) == obj["p_value"]

    table = plain_table(text)
    assert table.titles == ["System", *(f"{m} (μ ± 95% CI)" for m in ("BLEU", "chrF2", "TER"))]
    for (shown, cells), name in zip(table.rows, names):
        assert shown == (f"Baseline: {name}" if name == names[0] else name)
        for cell, obj in zip(cells, (o for o in objects if o["system"] == name)):
            expected = f"{obj['score']:.1f} ({obj['mean']:.1f} ± {obj['ci']:.1f})"
            if obj["p_value"] is not None:
                star = "" if obj["p_value"] > 0.05 else "*"
                expected += f"\n(p = {obj['p_value']:.4f}){star}"
            assert cell == expected


def test_paired_ar_tsv_columns(gen_source: Source) -> None:
    """Approximate randomization gives p-values; without -ci no means or intervals."""
    (case,) = [c for c in CASES if c.id == "gen-ar200-chrf-ter"]
    procs = run_concurrently([lambda f=f: case.ours(gen_source, "-f", f) for f in ("jsonl", "tsv")])
    as_json, tsv = (ok(p) for p in procs)
    objects = json_records(as_json.encode())
    header, rows = tsv_rows(tsv)
    assert header == [
        *HEAD,
        *CHRF_COLUMNS,
        *("chrf_mean", "chrf_ci", "chrf_p_value"),
        *TER_COLUMNS,
        *("ter_mean", "ter_ci", "ter_p_value"),
        *TAIL,
    ]
    for row, name in zip(rows, GEN_SYSTEMS[:4]):
        for obj in (o for o in objects if o["system"] == name):
            column = "chrf" if obj["metric"] == "chrF2" else "ter"
            assert obj.get("mean") is None and obj.get("ci") is None
            assert row[f"{column}_mean"] == row[f"{column}_ci"] == ""
            assert tsv_number(row[f"{column}_p_value"]) == obj["p_value"]
            assert (obj["p_value"] is None) == (name == GEN_SYSTEMS[0])


# --------------------------------------------------------------------------
# Several systems without a test: each scored as if alone
# --------------------------------------------------------------------------

MULTI = ("-m", "bleu", "chrf", "ter")


def without(obj: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != key}


def test_each_system_scores_as_if_alone(gen_source: Source) -> None:
    names = GEN_SYSTEMS[:3]
    refs = gen_source.refs
    cwd = gen_source.cwd
    jobs: list[Callable[[], subprocess.CompletedProcess[bytes]]] = [
        lambda fmt=fmt: run(*refs, "-i", *names, *MULTI, *fmt, cwd=cwd)
        for fmt in (("-f", "jsonl"), ("-f", "tsv"), ("-f", "text"), ("-b", "-w", "4"))
    ]
    jobs += [
        lambda name=name, fmt=fmt: run(*refs, "-i", name, *MULTI, *fmt, cwd=cwd)
        for name in names
        for fmt in (("-f", "jsonl"), ("-f", "tsv"), ("-b", "-w", "4"))
    ]
    jobs += [
        lambda fmt=fmt: run("--systems", "3", "-i", "paste3", *MULTI, *fmt, cwd=cwd)
        for fmt in (("-f", "jsonl"), ("-f", "text"), ("-f", "tsv"), ("-b", "-w", "4"))
    ]
    multi_json, multi_tsv, multi_text, multi_b, *rest = (ok(p) for p in run_concurrently(jobs))
    alone = {name: rest[3 * k : 3 * k + 3] for k, name in enumerate(names)}
    paste_json, paste_text, paste_tsv, paste_b = rest[-4:]

    by_system = json_by_system(multi_json)
    assert list(by_system) == list(names)
    for name in names:
        alone_objects = json_records(alone[name][0].encode())
        assert [without(o, "system") for o in by_system[name]] == alone_objects
        assert all(o["system"] == name for o in by_system[name])

    header, rows = tsv_rows(multi_tsv)
    assert header == SCORES_TSV_HEADER
    for row, name in zip(rows, names):
        alone_header, (alone_row,) = tsv_rows(alone[name][1])
        assert alone_header == [c for c in SCORES_TSV_HEADER if c != "system"]
        assert row["system"] == name
        assert without(row, "system") == alone_row

    assert multi_b.split() == [x for name in names for x in alone[name][2].split()]

    table = plain_table(multi_text)
    assert table.titles == ["System", "BLEU", "chrF2", "TER"]
    assert [name for name, _ in table.rows] == list(names)
    for (_, cells), name in zip(table.rows, names):
        assert cells == [f"{o['score']:.1f}" for o in by_system[name]]

    # Paste input: the system is the field's number.
    from_paste = json_by_system(paste_json)
    assert list(from_paste) == [1, 2, 3]
    for field, name in zip((1, 2, 3), names):
        assert [without(o, "system") for o in from_paste[field]] == [
            without(o, "system") for o in by_system[name]
        ]
    paste_table = plain_table(paste_text)
    assert [name for name, _ in paste_table.rows] == ["field 1", "field 2", "field 3"]
    assert [cells for _, cells in paste_table.rows] == [cells for _, cells in table.rows]
    paste_header, paste_rows = tsv_rows(paste_tsv)
    assert paste_header == SCORES_TSV_HEADER
    assert [r["system"] for r in paste_rows] == ["1", "2", "3"]
    assert [without(r, "system") for r in paste_rows] == [without(r, "system") for r in rows]
    assert paste_b == multi_b


def test_segment_and_running_records_per_system(gen_source: Source) -> None:
    names = GEN_SYSTEMS[:3]
    refs, cwd = gen_source.refs, gen_source.cwd
    live = ("-sl", "--every", "25")
    jobs = [
        lambda: run(*refs, "-i", *names, *MULTI, *live, "-f", "jsonl", cwd=cwd),
        lambda: run(*refs, "-i", *names, *MULTI, *live, "-f", "text", cwd=cwd),
        lambda: run("--systems", "3", "-i", "paste3", *MULTI, *live, "-f", "jsonl", cwd=cwd),
    ]
    jobs += [
        lambda name=name: run(*refs, "-i", name, *MULTI, *live, "-f", "jsonl", cwd=cwd)
        for name in names
    ]
    multi, text, paste, *alone = (ok(p) for p in run_concurrently(jobs))
    records = json_records(multi.encode())
    for name, single in zip(names, alone):
        mine = [without(r, "system") for r in records if r["system"] == name]
        assert mine == json_records(single.encode())
    # Line by line: every system's segment records, then at every 25th line
    # every system's running records.
    order = [(r["type"], r.get("line"), r["system"]) for r in records if r["metric"] == "BLEU"]
    expected = []
    for line in range(1, GEN_SEGMENTS + 1):
        expected += [("segment", line, name) for name in names]
        if line % 25 == 0:
            expected += [("running", line, name) for name in names]
    expected += [("corpus", None, name) for name in names]
    assert order == expected
    from_paste = json_records(paste.encode())
    assert [r["system"] for r in from_paste] == [names.index(r["system"]) + 1 for r in records]
    assert [without(r, "system") for r in from_paste] == [without(r, "system") for r in records]
    lines = text.splitlines()
    assert [line.split(":")[0] for line in lines[:6]] == [*names, *names]
    assert lines[3].startswith(f"{names[0]}: segment       2  BLEU = ")


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def assert_one_error(proc: subprocess.CompletedProcess[bytes], status: int, *words: str) -> str:
    """The status, one bleustream line on stderr (naming what it should), no score."""
    assert proc.returncode == status, proc.stderr.decode()
    assert_clean_stderr(proc)
    err = proc.stderr.decode()
    assert len(err.splitlines()) == 1, err
    for word in words:
        assert word in err, (word, err)
    assert proc.stdout == b""
    return err


@pytest.fixture(scope="module")
def error_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("systems_errors")
    write_lines(root / "ref", GEN_REFS[0])
    write_lines(root / "base", GEN_HYPS[0])
    write_lines(root / "sysA", GEN_HYPS[1])
    write_lines(root / "short", GEN_HYPS[2][:-3])
    write_lines(root / "long", [*GEN_HYPS[3], "one line more"])
    paste = ["\t".join(fields) for fields in zip(GEN_HYPS[0], GEN_HYPS[1], GEN_REFS[0])]
    paste[10] = paste[10].rsplit("\t", 1)[0]  # line 11 lacks its reference
    write_lines(root / "paste", paste)
    return root


ERRORS = [
    # argv, status, words the message must hold
    (["ref", "-i", "base", "short"], 65, ["short", f"{GEN_SEGMENTS - 3}"]),
    (["ref", "-i", "base", "short", "--paired-bs", "-pbsn", "10"], 65, ["short"]),
    (["ref", "-i", "short", "base", "-m", "ter"], 65, ["short", f"{GEN_SEGMENTS - 3}"]),
    (["ref", "-i", "base", "long", "-f", "jsonl"], 65, ["long:61"]),
    (["ref", "-i", "base", "sysA", "long", "-m", "chrf", "ter"], 65, ["long:61"]),
    (["--systems", "2", "-i", "paste", "-f", "jsonl"], 65, ["paste:11"]),
    (["ref", "-i", "base", "missing"], 66, ["missing"]),
    (["ref", "-i", "base", "missing", "--paired-ar"], 66, ["missing"]),
    (["ref", "-i", "base", "--paired-bs"], 2, []),
    (["ref", "-i", "base", "--paired-ar", "-m", "ter"], 2, []),
    (["ref", "-i", "base", "sysA", "--paired-bs", "-pbsn", "0"], 2, ["-pbsn"]),
    (["ref", "-i", "base", "sysA", "--paired-ar", "-parn", "0"], 2, ["-parn"]),
    (["ref", "-i", "base", "-ci", "-cin", "0"], 2, ["-cin"]),
    (["ref", "-i", "base", "sysA", "--paired-bs", "--paired-ar"], 2, ["--paired-bs"]),
    (["ref", "-i", "base", "-f", "latex"], 2, ["latex"]),
    (["ref", "-i", "base", "-f", "latex", "-ci", "-m", "chrf"], 2, ["latex"]),
    (["--systems", "1", "-i", "paste", "-f", "latex"], 2, ["latex"]),
]


def test_errors(error_dir: Path) -> None:
    jobs = [lambda argv=argv: run(*argv, cwd=error_dir) for argv, _, _ in ERRORS]
    for (argv, status, words), proc in zip(ERRORS, run_concurrently(jobs)):
        try:
            assert_one_error(proc, status, *words)
        except AssertionError as error:
            raise AssertionError(f"{' '.join(argv)}: {error}") from error


def test_a_system_named_twice_is_not_merged_into_one_row(gen_source: Source) -> None:
    """Every system given is a row of the table, or the command refuses the repeat."""
    argv = (*gen_source.refs, "-i", "sys0.txt", "sys1.txt", "sys1.txt")
    text, as_json = run_concurrently(
        [lambda f=f: run(*argv, "-f", f, cwd=gen_source.cwd) for f in ("text", "jsonl")]
    )
    if text.returncode == 2:
        assert_one_error(text, 2, "sys1.txt")
    else:
        assert len(json_records(ok(as_json).encode())) == 3
        assert [name for name, _ in plain_table(ok(text)).rows] == [
            "sys0.txt",
            "sys1.txt",
            "sys1.txt",
        ]
