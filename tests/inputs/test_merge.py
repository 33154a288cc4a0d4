"""Statistics as data: shards written with ``-f stats`` add up to the whole.

A corpus is cut into shards; each shard is scored on its own with ``-f
stats`` (with and without ``-sl``, with ``--every``), and the shard files
are merged with ``--input-format stats``.  What the merge prints, in every
format, must be byte for byte what one run over the whole text prints, and
its score SacreBLEU's over the whole text; score-only settings may be given
at merge time.  Records that cannot be merged (other counting settings,
another format version, rows of the wrong length...) are bad input: status
65, one line that says where, and no score.
"""

from __future__ import annotations

import gzip
import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest
from sacrebleu.metrics.bleu import BLEU

from bleustream.errors import InputError
from bleustream.inputs.lines import LineSource
from bleustream.inputs.stats_reader import Chunk, Layout, read_stats
from bleustream.metrics.registry import METRICS
from tests.helpers.adversarial import Adversary
from tests.helpers.clirun import COMMAND, assert_clean_stderr
from tests.helpers.files import write_lines

SEGMENTS = 600
SHARDS = 3  # of SEGMENTS // SHARDS segments each
EVERY = 70
TIMEOUT = 120


# The ways a shard is written, by name.
SHARD_KINDS = {
    "corpus": ("-f", "stats"),
    "sentence-level": ("-f", "stats", "-sl"),
    "sentence-level-every": ("-f", "stats", "-sl", "--every", str(EVERY)),
}


def _start(args: Sequence[str | Path], cwd: Path, stdin: bytes | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [*COMMAND, "--no-config", *map(str, args)],
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
    )


def run_all(
    commands: Sequence[Sequence[str | Path]], cwd: Path
) -> list[subprocess.CompletedProcess[bytes]]:
    """Runs bleustream once per command, side by side; the finished runs, in order."""
    procs = [_start(args, cwd) for args in commands]
    done = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        finally:
            proc.kill()
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def run(
    *args: str | Path, cwd: Path, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    proc = _start(args, cwd, stdin)
    try:
        out, err = proc.communicate(stdin, timeout=TIMEOUT)
    finally:
        proc.kill()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def ok(proc: subprocess.CompletedProcess[bytes]) -> subprocess.CompletedProcess[bytes]:
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert_clean_stderr(proc)
    return proc


def json_lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


@dataclass(frozen=True)
class Corpus:
    """A generated corpus, as one paste file and as shard files (built once)."""

    directory: Path
    hyps: tuple[str, ...]
    refs: tuple[tuple[str, ...], ...]

    @property
    def shard_size(self) -> int:
        return len(self.hyps) // SHARDS

    def shard_stats(self, kind: str) -> list[str]:
        """The stats files of the shards written the ``kind`` way (see SHARD_KINDS)."""
        return [f"{kind}.{k}.stats" for k in range(SHARDS)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    directory = tmp_path_factory.mktemp("merge")
    hyps, refs = Adversary(2222).paste_corpus(SEGMENTS, 2)
    lines = ["\t".join(fields) for fields in zip(hyps, *refs)]
    write_lines(directory / "whole.tsv", lines)
    size = SEGMENTS // SHARDS
    for k in range(SHARDS):
        write_lines(directory / f"shard.{k}.tsv", lines[k * size : (k + 1) * size])
    commands = [
        [*args, "-i", f"shard.{k}.tsv"] for args in SHARD_KINDS.values() for k in range(SHARDS)
    ]
    names = [f"{kind}.{k}.stats" for kind in SHARD_KINDS for k in range(SHARDS)]
    for name, proc in zip(names, run_all(commands, directory)):
        (directory / name).write_bytes(ok(proc).stdout)
    return Corpus(directory, tuple(hyps), tuple(tuple(r) for r in refs))


# ----------------------------------------------------------------------------
# Merged shards are the whole
# ----------------------------------------------------------------------------


FORMATS = ("text", "jsonl", "tsv", "stats")


@pytest.fixture(scope="module")
def whole(corpus: Corpus) -> dict[str, bytes]:
    """What one run over the whole text prints, by format."""
    runs = run_all([["-f", fmt, "-i", "whole.tsv"] for fmt in FORMATS], corpus.directory)
    return {fmt: ok(proc).stdout for fmt, proc in zip(FORMATS, runs)}


@pytest.mark.parametrize(
    "kind, formats",
    [("corpus", FORMATS), ("sentence-level", ("jsonl",)), ("sentence-level-every", FORMATS)],
    ids=list(SHARD_KINDS),
)
def test_merged_shards_print_what_the_whole_prints(
    corpus: Corpus, whole: dict[str, bytes], kind: str, formats: tuple[str, ...]
) -> None:
    shards = corpus.shard_stats(kind)
    merged = run_all(
        [["--input-format", "stats", "-f", fmt, *shards] for fmt in formats], corpus.directory
    )
    for fmt, merge in zip(formats, merged):
        assert ok(merge).stdout == whole[fmt], fmt
        assert merge.stderr == b""
    (record,) = json_lines(merged[formats.index("jsonl")].stdout)
    oracle_metric = BLEU()
    oracle = oracle_metric.corpus_score(list(corpus.hyps), [list(r) for r in corpus.refs])
    assert record["score"] == oracle.score
    assert record["counts"] == oracle.counts and record["totals"] == oracle.totals
    assert (record["hyp_len"], record["ref_len"]) == (oracle.sys_len, oracle.ref_len)
    assert record["segments"] == SEGMENTS
    ours = record["signature"].rsplit("|version:", 1)[0]
    assert ours == str(oracle_metric.get_signature()).rsplit("|version:", 1)[0]


def test_shards_on_stdin_and_compressed(corpus: Corpus, whole: dict[str, bytes]) -> None:
    """Shards of every kind, concatenated on stdin or gzipped, in any mix."""
    d = corpus.directory
    mixed = [d / "sentence-level-every.0.stats", d / "corpus.1.stats", d / "sentence-level.2.stats"]
    concatenated = b"".join(path.read_bytes() for path in mixed)
    from_stdin = run("--input-format", "stats", "-f", "jsonl", cwd=d, stdin=concatenated)
    assert ok(from_stdin).stdout == whole["jsonl"]
    gz = d / "sentence-level-every.1.stats.gz"
    gz.write_bytes(gzip.compress((d / "sentence-level-every.1.stats").read_bytes()))
    shards = ["corpus.0.stats", gz.name, "sentence-level.2.stats"]
    compressed = run("--input-format", "stats", "-f", "jsonl", *shards, cwd=d)
    assert ok(compressed).stdout == whole["jsonl"]


@pytest.mark.parametrize(
    "settings",
    [
        ("-s", "floor", "-sv", "0.3"),
        ("--effective-order",),
        ("-s", "add-k", "-sv", "0.5", "--effective-order"),
    ],
    ids=lambda s: " ".join(s),
)
def test_score_only_settings_given_at_merge(corpus: Corpus, settings: tuple[str, ...]) -> None:
    """Shards written with the default smoothing, scored at merge with another."""
    whole, merged = run_all(
        [
            ["-f", "jsonl", *settings, "-i", "whole.tsv"],
            ["--input-format", "stats", "-f", "jsonl", *settings, *corpus.shard_stats("corpus")],
        ],
        corpus.directory,
    )
    assert ok(merged).stdout == ok(whole).stdout
    (record,) = json_lines(merged.stdout)
    method = settings[settings.index("-s") + 1] if "-s" in settings else "exp"
    value = float(settings[settings.index("-sv") + 1]) if "-sv" in settings else None
    oracle_metric = BLEU(
        smooth_method=method,
        smooth_value=value,
        effective_order="--effective-order" in settings,
    )
    oracle = oracle_metric.corpus_score(list(corpus.hyps), [list(r) for r in corpus.refs])
    assert record["score"] == oracle.score
    assert record["precisions"] == oracle.precisions
    ours = record["signature"].rsplit("|version:", 1)[0]
    assert ours == str(oracle_metric.get_signature()).rsplit("|version:", 1)[0]


def test_segment_records_come_back_with_their_shard_lines(corpus: Corpus) -> None:
    """Merged with -sl, each segment record is the whole run's, at its shard's line."""
    whole, merged = run_all(
        [
            ["-sl", "-f", "jsonl", "-i", "whole.tsv"],
            [
                "--input-format",
                "stats",
                "-sl",
                "-f",
                "jsonl",
                *corpus.shard_stats("sentence-level-every"),
            ],
        ],
        corpus.directory,
    )
    expected, got = json_lines(ok(whole).stdout), json_lines(ok(merged).stdout)
    assert len(got) == len(expected) == SEGMENTS + 1
    size = corpus.shard_size
    for i, (ours, theirs) in enumerate(zip(got[:-1], expected[:-1])):
        assert ours["line"] == i % size + 1
        assert {**ours, "line": theirs["line"]} == theirs
    assert got[-1] == expected[-1]


def test_sentence_level_merge_needs_segment_records(corpus: Corpus) -> None:
    proc = run(
        "--input-format", "stats", "-sl", *corpus.shard_stats("corpus"), cwd=corpus.directory
    )
    assert proc.returncode == 65
    assert proc.stderr.decode().startswith("bleustream: corpus.0.stats:1: --sentence-level needs")
    assert b"BLEU|" not in proc.stdout


def test_every_registered_metric_merges(corpus: Corpus) -> None:
    """Every metric's statistics add up, with the metrics in the order asked."""
    metrics = list(reversed(list(METRICS)))
    shards = [["-m", *metrics, "-f", "stats", "-i", f"shard.{k}.tsv"] for k in range(SHARDS)]
    procs = run_all([*shards, ["-m", *metrics, "-f", "jsonl", "-i", "whole.tsv"]], corpus.directory)
    for k, proc in enumerate(procs[:SHARDS]):
        (corpus.directory / f"metrics.{k}.stats").write_bytes(ok(proc).stdout)
    whole = ok(procs[-1])
    names = [f"metrics.{k}.stats" for k in range(SHARDS)]
    merged = run("--input-format", "stats", "-f", "jsonl", *names, cwd=corpus.directory)
    assert ok(merged).stdout == whole.stdout
    labels = [r["metric"].lower() for r in json_lines(merged.stdout)]
    assert len(labels) == len(metrics)
    assert all(label.startswith(name) for label, name in zip(labels, metrics))


# ----------------------------------------------------------------------------
# Records that cannot be merged
# ----------------------------------------------------------------------------


def _edit_second_record(edit: Callable[[dict[str, Any]], Any]) -> Callable[[list[str]], list[str]]:
    def change(lines: list[str]) -> list[str]:
        data = json.loads(lines[1])
        edit(data)
        return [lines[0], json.dumps(data), *lines[2:]]

    return change


def _set_counting(key: str, value: Any) -> Callable[[list[str]], list[str]]:
    return _edit_second_record(lambda data: data["metrics"][0]["counting"].__setitem__(key, value))


def _drop_a_number(data: dict[str, Any]) -> None:
    data["metrics"][0]["stats"].pop()


BAD_SHARDS: dict[str, tuple[Callable[[list[str]], list[str]], str]] = {
    "tokenizer": (
        _set_counting("tokenize", "intl"),
        "counted with other settings than those of shard.stats:1: bleu lowercase=false,"
        'max_order=4,tokenize="intl" here, bleu lowercase=false,max_order=4,tokenize="13a" there',
    ),
    "lowercase": (_set_counting("lowercase", True), "lowercase=true"),
    "max order": (_set_counting("max_order", 3), "max_order=3"),
    "nrefs": (
        _edit_second_record(lambda data: data.__setitem__("nrefs", 1)),
        "statistics of 1 references per segment, but shard.stats:1 has 2",
    ),
    "bad JSON": (lambda lines: [lines[0], lines[1][:-5], *lines[2:]], "not a JSON stats record"),
    "version": (
        _edit_second_record(lambda data: data.__setitem__("version", 2)),
        "stats format version 2; this bleustream reads version 1",
    ),
    "row length": (_edit_second_record(_drop_a_number), "bleu statistics of 9 numbers"),
    "unknown metric": (
        _edit_second_record(lambda data: data["metrics"][0].__setitem__("metric", "meteor")),
        "each metric needs a known name",
    ),
    "not a record": (lambda lines: [lines[0], '{"format": "other"}', *lines[2:]], "not a stats"),
}


@pytest.mark.parametrize("what", list(BAD_SHARDS))
def test_records_that_cannot_be_merged(corpus: Corpus, tmp_path: Path, what: str) -> None:
    """Bad input at line 2 of the second file: 65, the place and the reason, no score."""
    change, message = BAD_SHARDS[what]
    good = (corpus.directory / "sentence-level.0.stats").read_text(encoding="utf-8")
    lines = good.splitlines()
    (tmp_path / "shard.stats").write_text(good, encoding="utf-8")
    (tmp_path / "bad.stats").write_text("\n".join(change(lines)) + "\n", encoding="utf-8")
    proc = run("--input-format", "stats", "shard.stats", "bad.stats", cwd=tmp_path)
    assert_bad_at_line_2(proc, what, message)


def assert_bad_at_line_2(proc: subprocess.CompletedProcess[bytes], what: str, message: str) -> None:
    """Status 65, no score, and one line at ``bad.stats:2`` that says ``message``."""
    assert proc.returncode == 65, (what, proc.stderr)
    assert proc.stdout == b""
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith("bleustream: bad.stats:2: "), line
    assert message in line, line


# Records whose values are bad, each edited from a good segment record of
# BLEU (metric 0), chrF (1) and TER (2), with what the one line must say.
def _set_stat(metric: int, index: int, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["metrics"][metric]["stats"].__setitem__(index, value)


def _set_scoring(**values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["metrics"][0]["scoring"].update(values)


BAD_VALUES: dict[str, tuple[Callable[[list[str]], list[str]], str]] = {
    "metric a list": (
        _edit_second_record(lambda data: data["metrics"][0].__setitem__("metric", [])),
        "each metric needs a known name (bleu, chrf, ter, comet)",
    ),
    "metric twice": (
        _edit_second_record(lambda data: data["metrics"].__setitem__(2, data["metrics"][0])),
        "metric bleu comes twice",
    ),
    "no nrefs": (
        _edit_second_record(lambda data: data.pop("nrefs")),
        '"nrefs" must be a whole number',
    ),
    "nrefs a word": (
        _edit_second_record(lambda data: data.__setitem__("nrefs", "abc")),
        '"nrefs" must be a whole number of at least 1, or "var"',
    ),
    "segment of 2": (
        _edit_second_record(lambda data: data.__setitem__("segments", 2)),
        'a segment record of 2 "segments"; it covers 1',
    ),
    "deeply nested": (
        lambda lines: [lines[0], "[" * 100_000 + "]" * 100_000, *lines[2:]],
        "not a stats record: nested too deeply",
    ),
    "smooth value a word": (
        _edit_second_record(_set_scoring(smooth_method="floor", smooth_value="x")),
        'metric bleu: setting smooth_value cannot be "x"',
    ),
    "effective order a word": (
        _edit_second_record(_set_scoring(effective_order="yes")),
        'metric bleu: setting effective_order cannot be "yes"',
    ),
    "negative smooth value": (
        _edit_second_record(_set_scoring(smooth_method="floor", smooth_value=-1)),
        "settings of bleu cannot be used: the smoothing value must be a number from 0 to "
        "1000000, not -1",
    ),
    "smooth value for exp": (
        _edit_second_record(_set_scoring(smooth_value=0.5)),
        "settings of bleu cannot be used: a smoothing value applies to floor and add-k, not to exp",
    ),
    "fractional count": (
        _edit_second_record(_set_stat(0, 0, 7.5)),
        "bleu statistics: counts must be whole numbers of at least 0, not 7.5",
    ),
    "negative count": (
        _edit_second_record(_set_stat(0, 2, -5)),
        "bleu statistics: counts must be whole numbers of at least 0, not -5",
    ),
    "huge count": (
        _edit_second_record(_set_stat(0, 1, 2**63)),
        "bleu statistics: a count above 2**53",
    ),
    "more matches than n-grams": (
        _edit_second_record(_set_stat(0, 2, 1_000_000)),
        "bleu statistics: 1000000 matching 1-grams of",
    ),
    "count too large for a segment": (
        _edit_second_record(_set_stat(0, 1, 2**40)),
        "bleu statistics: a count above 2147483647 in one segment",
    ),
    "chrF matches": (
        _edit_second_record(_set_stat(1, 2, 10_000)),
        "chrf statistics: 10000 matches at order 1, of",
    ),
    "TER edits negative": (
        _edit_second_record(_set_stat(2, 0, -1)),
        "ter statistics: the edits must be a whole number from 0 to 2**53, not -1",
    ),
    "TER length NaN": (
        _edit_second_record(_set_stat(2, 1, float("nan"))),
        "ter statistics: the reference length must be a number from 0 to 2**53, not nan",
    ),
    "TER length infinite": (
        _edit_second_record(_set_stat(2, 1, float("inf"))),
        "ter statistics: the reference length must be a number from 0 to 2**53, not inf",
    ),
}


@pytest.mark.parametrize("tests", [(), ("-ci", "-cin", "3")], ids=["sum", "ci"])
@pytest.mark.parametrize("what", list(BAD_VALUES))
def test_bad_values_in_a_record(tmp_path: Path, what: str, tests: tuple[str, ...]) -> None:
    """A record with a value that no run writes is bad input at its line (65,
    no score), not a traceback nor a score of nonsense."""
    write_lines(tmp_path / "ref", ["the cat sat on the mat", "a dog"])
    write_lines(tmp_path / "hyp", ["the cat sat on a mat", "a dog barks"])
    written = ok(
        run("-m", "bleu", "chrf", "ter", "-sl", "-f", "stats", "ref", "-i", "hyp", cwd=tmp_path)
    ).stdout.decode()
    change, message = BAD_VALUES[what]
    (tmp_path / "bad.stats").write_text(
        "\n".join(change(written.splitlines())) + "\n", encoding="utf-8"
    )
    proc = run("--input-format", "stats", *tests, "bad.stats", cwd=tmp_path)
    assert_bad_at_line_2(proc, what, message)


def test_a_record_of_no_segments_holds_no_statistics(tmp_path: Path) -> None:
    record = {
        "format": "bleustream-stats",
        "version": 1,
        "type": "corpus",
        "segments": 0,
        "nrefs": 1,
        "metrics": [{"metric": "ter", "counting": {}, "scoring": {}, "stats": [3, 2.0]}],
    }
    (tmp_path / "empty.stats").write_text(json.dumps(record) + "\n", encoding="utf-8")
    proc = run("--input-format", "stats", "empty.stats", cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        "bleustream: empty.stats:1: ter statistics: a record of 0 segments holds statistics\n"
    )


def test_resampling_a_corpus_record_names_its_file(corpus: Corpus, tmp_path: Path) -> None:
    """Segment records, then a file of a corpus record: the error is at that file's line."""
    shard = corpus.directory / "sentence-level.0.stats"
    whole = tmp_path / "whole.stats"
    whole.write_bytes(ok(run("-f", "stats", "-i", "whole.tsv", cwd=corpus.directory)).stdout)
    proc = run("--input-format", "stats", "-ci", "-cin", "3", shard, whole, cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        f"bleustream: {whole}:1: resampling needs every segment's statistics; this is a "
        "corpus record (write the shards with -sl -f stats)\n"
    )


def test_no_segments_names_the_files_read(tmp_path: Path) -> None:
    (tmp_path / "a.stats").write_text("", encoding="utf-8")
    (tmp_path / "b.stats").write_text("\n", encoding="utf-8")
    proc = run("--input-format", "stats", "-b", "a.stats", "b.stats", cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stderr.decode() == (
        "bleustream: no segments in the input (a.stats, b.stats); --allow-empty scores it as 0\n"
    )


def test_stats_read_from_stdin_as_an_operand(corpus: Corpus) -> None:
    shard = (corpus.directory / "sentence-level.0.stats").read_bytes()
    alone = ok(run("--input-format", "stats", "-b", cwd=corpus.directory, stdin=shard)).stdout
    dash = ok(run("--input-format", "stats", "-b", "-", cwd=corpus.directory, stdin=shard))
    assert dash.stdout == alone
    twice = run("--input-format", "stats", "-", "-", cwd=corpus.directory, stdin=shard)
    assert twice.returncode == 2
    assert twice.stderr.decode() == "bleustream: stdin ('-') can be read only once\n"


def test_a_bad_first_record_is_located_too(tmp_path: Path) -> None:
    (tmp_path / "empty-metrics.stats").write_text(
        '{"format": "bleustream-stats", "version": 1, "type": "corpus", "segments": 3, '
        '"nrefs": 1, "metrics": []}\n',
        encoding="utf-8",
    )
    proc = run("--input-format", "stats", "-f", "tsv", "empty-metrics.stats", cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        'bleustream: empty-metrics.stats:1: "metrics" must be a non-empty list\n'
    )


def test_a_corpus_record_must_sum_the_segment_records_before_it(corpus: Corpus) -> None:
    """A cut file: some segment records of a shard, then its corpus record."""
    lines = (corpus.directory / "sentence-level.0.stats").read_bytes().splitlines(keepends=True)
    cut = b"".join(lines[:5] + lines[-1:])
    proc = run("--input-format", "stats", cwd=corpus.directory, stdin=cut)
    assert proc.returncode == 65
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        "bleustream: <stdin>:6: a corpus record of 200 segments after segment records "
        "of 5 segments\n"
    )


# ----------------------------------------------------------------------------
# Several systems
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def systems(corpus: Corpus) -> Path:
    """Shards of two systems (``--systems 2 -sl``), the whole run's outputs beside them."""
    d = corpus.directory
    other = [" ".join(reversed(ref.split(" "))) for ref in corpus.refs[1]]
    rows = ["\t".join(f) for f in zip(corpus.hyps, other, *corpus.refs)]
    write_lines(d / "systems.tsv", rows)
    write_lines(d / "system.2.tsv", ["\t".join(f) for f in zip(other, *corpus.refs)])
    size = corpus.shard_size
    for k in range(SHARDS):
        write_lines(d / f"systems.{k}.tsv", rows[k * size : (k + 1) * size])
    commands = [
        ["--systems", "2", "-sl", "-f", "stats", "-i", f"systems.{k}.tsv"] for k in range(SHARDS)
    ]
    for k, proc in enumerate(run_all(commands, d)):
        (d / f"systems.{k}.stats").write_bytes(ok(proc).stdout)
    return d


def test_each_system_of_several_merges_alone(corpus: Corpus, systems: Path) -> None:
    """One system's records, picked out of shards of two, merge to that system's score."""
    for system, alone in ((1, "whole.tsv"), (2, "system.2.tsv")):
        picked = b"".join(
            line
            for k in range(SHARDS)
            for line in (systems / f"systems.{k}.stats").read_bytes().splitlines(keepends=True)
            if json.loads(line)["system"] == system
        )
        merged = run("--input-format", "stats", "-sl", "-f", "jsonl", cwd=systems, stdin=picked)
        whole = ok(run("-sl", "-f", "jsonl", "-i", alone, cwd=systems))
        got, expected = json_lines(ok(merged).stdout), json_lines(whole.stdout)
        assert len(got) == len(expected) == SEGMENTS + 1
        for ours, theirs in zip(got[:-1], expected[:-1]):
            assert {**ours, "line": theirs["line"]} == theirs
        assert got[-1] == expected[-1]


def test_statistics_of_two_systems_are_never_added_together(systems: Path) -> None:
    source = LineSource("systems.0.stats", (systems / "systems.0.stats").open("rb"))
    try:
        read = read_stats(source, None)
        assert isinstance(next(read), Layout)
        first = next(read)
        assert isinstance(first, Chunk) and first.system == 1
        with pytest.raises(InputError) as caught:
            next(read)
    finally:
        source.close()
    assert str(caught.value).startswith(
        "systems.0.stats:2: statistics of system 2, but systems.0.stats:1 has system 1"
    )


def test_several_systems_apart_when_the_caller_asks(systems: Path) -> None:
    source = LineSource("systems.1.stats", (systems / "systems.1.stats").open("rb"))
    try:
        chunks = [c for c in read_stats(source, None, several_systems=True) if isinstance(c, Chunk)]
    finally:
        source.close()
    assert [c.system for c in chunks[:4]] == [1, 2, 1, 2]
    assert sum(c.segments for c in chunks if c.system == 1) == SEGMENTS // SHARDS
    assert sum(c.segments for c in chunks if c.system == 2) == SEGMENTS // SHARDS


SYSTEM_SHARDS = [f"systems.{k}.stats" for k in range(SHARDS)]


@pytest.mark.parametrize(
    ("output", "lines_of_system_2"),
    [
        (["-f", "jsonl"], lambda out: [x for x in out if b'"system": 2' in x]),
        (["-f", "tsv"], lambda out: [x for x in out if x.startswith(b"corpus\t2\t")]),
        ([], lambda out: [x for x in out if x.startswith(b"field 2  ")]),
        (["-f", "latex"], lambda out: [x for x in out if x.startswith(b"  field 2 & ")]),
        (["-b"], lambda out: out[1:]),
    ],
    ids=["json", "tsv", "text", "latex", "score-only"],
)
def test_merged_shards_of_two_systems_print_what_the_whole_prints(
    systems: Path, output: list[str], lines_of_system_2: Callable[[list[bytes]], list[bytes]]
) -> None:
    whole, merged = run_all(
        [
            ["--systems", "2", *output, "-i", "systems.tsv"],
            ["--input-format", "stats", *output, *SYSTEM_SHARDS],
        ],
        systems,
    )
    assert ok(merged).stdout == ok(whole).stdout
    # and the second system is there, apart from the first
    assert len(lines_of_system_2(merged.stdout.splitlines())) in (1, 2)


def test_merged_segments_of_two_systems_are_the_whole_runs(systems: Path) -> None:
    """Per segment, the systems' records in turn, as the whole run writes them;
    only the line numbers differ (each shard counts its own lines)."""
    whole, merged = run_all(
        [
            ["--systems", "2", "-sl", "-f", "jsonl", "-i", "systems.tsv"],
            ["--input-format", "stats", "-sl", "-f", "jsonl", *SYSTEM_SHARDS],
        ],
        systems,
    )
    got, expected = json_lines(ok(merged).stdout), json_lines(ok(whole).stdout)
    assert len(got) == len(expected) == 2 * SEGMENTS + 2
    assert [r["system"] for r in got[:4]] == [1, 2, 1, 2]
    for ours, theirs in zip(got, expected):
        assert {**ours, "line": theirs.get("line")} == {**theirs, "line": theirs.get("line")}


def test_paired_test_over_one_stream_of_two_systems(systems: Path) -> None:
    """--paired-bs over the merged shards gives the numbers it gives from the text."""
    test = ["--paired-bs", "--paired-bs-n", "200", "-f", "jsonl"]
    whole, merged = run_all(
        [
            ["--systems", "2", *test, "-i", "systems.tsv"],
            ["--input-format", "stats", *test, *SYSTEM_SHARDS],
        ],
        systems,
    )
    assert ok(merged).stdout == ok(whole).stdout
    records = json_lines(merged.stdout)
    assert [(r["system"], r["p_value"] is None) for r in records] == [(1, True), (2, False)]


def _stats_lines(systems: Path) -> list[bytes]:
    return (systems / "systems.0.stats").read_bytes().splitlines(keepends=True)


def test_a_record_out_of_turn_is_bad_input(systems: Path) -> None:
    lines = _stats_lines(systems)
    del lines[3]  # system 2's record of the second segment
    proc = run("--input-format", "stats", cwd=systems, stdin=b"".join(lines))
    assert proc.returncode == 65
    assert proc.stdout == b""
    assert proc.stderr.decode().startswith(
        "bleustream: <stdin>:4: statistics of system 1 where system 2's turn was due "
        "(the systems come in another order)"
    )


def test_a_turn_cut_short_at_the_end_is_bad_input(systems: Path) -> None:
    segment_records = [line for line in _stats_lines(systems) if b'"segment"' in line]
    proc = run("--input-format", "stats", cwd=systems, stdin=b"".join(segment_records[:5]))
    assert proc.returncode == 65
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        "bleustream: <stdin>:5: the input ends in the middle of a turn: 1 of 2 systems "
        "have statistics for the last segment\n"
    )


def test_a_paired_test_over_statistics_of_one_system_is_a_usage_error(corpus: Corpus) -> None:
    shard = corpus.directory / "one-system.stats"
    shard.write_bytes(ok(run("-f", "stats", "-i", "whole.tsv", cwd=corpus.directory)).stdout)
    proc = run("--input-format", "stats", "--paired-bs", shard, cwd=corpus.directory)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode().startswith(
        "bleustream: a paired test needs at least two systems: these statistics are of one"
    )


# ----------------------------------------------------------------------------
# What a shard's corpus record says besides its statistics
# ----------------------------------------------------------------------------


def test_skipped_lines_of_a_shard_are_counted_in_the_merge(corpus: Corpus) -> None:
    d = corpus.directory
    raw = (d / "whole.tsv").read_bytes().split(b"\n")
    raw[250] = b"\xff" + raw[250]  # line 251, in the second shard
    (d / "skips.tsv").write_bytes(b"\n".join(raw))
    size = corpus.shard_size
    lines = (d / "skips.tsv").read_bytes().splitlines(keepends=True)
    for k in range(SHARDS):
        (d / f"skips.{k}.tsv").write_bytes(b"".join(lines[k * size : (k + 1) * size]))
    commands = [["--skip-bad-lines", "-f", "stats", "-i", f"skips.{k}.tsv"] for k in range(SHARDS)]
    for k, proc in enumerate(run_all(commands, d)):
        assert proc.returncode == 0
        (d / f"skips.{k}.stats").write_bytes(proc.stdout)
    whole = run("--skip-bad-lines", "-f", "jsonl", "-i", "skips.tsv", cwd=d)
    names = [f"skips.{k}.stats" for k in range(SHARDS)]
    merged = run("--input-format", "stats", "-f", "jsonl", *names, cwd=d)
    assert json_lines(merged.stdout)[-1]["skipped"] == json_lines(whole.stdout)[-1]["skipped"] == 1
