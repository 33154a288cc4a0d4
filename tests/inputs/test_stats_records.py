"""Stats records read back: only what a run could have written is scored.

Every record here starts as real ``-f stats`` output of the real command.
Edited by hand, a record that no run could write (a fraction where the
statistic is whole, a count past a segment's limit, n-gram totals that no
text gives) is bad input: status 65 and one line naming the file, the line
and what is impossible.  A property test mutates such output one field at
a time and requires, for every mutation, the same numbers as the unmutated
run, or status 65 at the record's line, or (where a run could write the
result) a score.  Score-only settings, an empty shard among several
systems' files and a final ``--`` behave as the README says.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bleustream.metrics import bleu, chrf, ter
from bleustream.metrics.protocol import add_rows
from tests.conftest import real_sets, require_real_data
from tests.helpers.adversarial import NOT_IN_A_FIELD, Adversary
from tests.helpers.clirun import assert_clean_stderr, run
from tests.helpers.paths import ROOT

EXAMPLES = ROOT / "examples"
REF, REF2, HYP = EXAMPLES / "ref.en", EXAMPLES / "ref2.en", EXAMPLES / "hyp.en"
# chrF++ with both kinds of n-grams, so that every check has a row to act on.
METRICS = ("-m", "bleu", "chrf", "ter", "-cw", "2")
LIMIT = 2**31 - 1


def bleustream(*args: str | Path, cwd: Path | None = None, input: str | None = None) -> Any:
    return run("--no-config", *args, cwd=cwd, input=input)


def ok(proc: Any) -> Any:
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert_clean_stderr(proc)
    return proc


def written(*args: str | Path) -> list[dict[str, Any]]:
    """The records of a real ``-f stats`` run."""
    out = ok(bleustream(*args, "-f", "stats")).stdout.decode("utf-8")
    return [json.loads(line) for line in out.splitlines()]


def write_records(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def assert_refused(proc: Any, where: str, message: str) -> None:
    """Status 65, nothing on stdout, one line at ``where`` saying ``message``."""
    assert proc.returncode == 65, proc.stderr
    assert proc.stdout == b""
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith(f"bleustream: {where}: "), line
    assert message in line, line


def metric_index(record: dict[str, Any], name: str) -> int:
    return [m["metric"] for m in record["metrics"]].index(name)


@cache
def segment_records() -> tuple[str, ...]:
    """``-sl -f stats`` of the example files, one reference, as JSON text."""
    out = ok(bleustream(*METRICS, "-sl", "-f", "stats", REF, "-i", HYP)).stdout
    return tuple(out.decode("utf-8").splitlines())


def edited(index: int, metric: str, stat: int, value: Any) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in segment_records()]
    record = records[index]
    record["metrics"][metric_index(record, metric)]["stats"][stat] = value
    return records


# ----------------------------------------------------------------------------
# The cases of the issue, one by one
# ----------------------------------------------------------------------------


def test_fractional_ter_edits_are_refused(tmp_path: Path) -> None:
    """0.5 edits were scored as 21.4 beside "num_edits": 1."""
    path = write_records(tmp_path / "bad.stats", edited(0, "ter", 0, 0.5))
    proc = bleustream("--input-format", "stats", "-f", "jsonl", path.name, cwd=tmp_path)
    assert_refused(proc, "bad.stats:1", "ter statistics: the edits must be a whole number")


@pytest.mark.parametrize("tests", [(), ("-ci", "-cin", "3")], ids=["sum", "ci"])
@pytest.mark.parametrize("value", [3_000_000_000, 3_000_000_000.0, float(LIMIT + 1)])
def test_the_segment_limit_holds_whatever_the_spelling(
    tmp_path: Path, value: float, tests: tuple[str, ...]
) -> None:
    path = write_records(tmp_path / "bad.stats", edited(1, "ter", 0, value))
    proc = bleustream("--input-format", "stats", *tests, path.name, cwd=tmp_path)
    assert_refused(proc, "bad.stats:2", f"ter statistics: a count above {LIMIT} in one segment")


@pytest.mark.parametrize("tests", [(), ("-ci", "-cin", "3")], ids=["sum", "ci"])
def test_whole_numbers_spelled_as_floats_are_the_numbers(
    tmp_path: Path, tests: tuple[str, ...]
) -> None:
    """3.0 is 3: every whole statistic spelled as a float gives the same output."""
    records = [json.loads(line) for line in segment_records()]
    for record in records:
        for entry in record["metrics"]:
            last = 1 if entry["metric"] == "ter" else len(entry["stats"])
            entry["stats"][:last] = [float(x) for x in entry["stats"][:last]]
    write_records(tmp_path / "floats.stats", records)
    (tmp_path / "ints.stats").write_text("\n".join(segment_records()) + "\n", encoding="utf-8")
    args = ("--input-format", "stats", "-sl", "-f", "jsonl", *tests)
    floats = ok(bleustream(*args, "floats.stats", cwd=tmp_path)).stdout
    assert floats == ok(bleustream(*args, "ints.stats", cwd=tmp_path)).stdout


def bleu_row(hyp_len: int, ref_len: int, matches: list[int], totals: list[int]) -> list[int]:
    return [hyp_len, ref_len, *matches, *totals]


# Rows no run writes, each with what the one line must say; BLEU's row is
# hyp_len, ref_len, matches 1..4, totals 1..4.  Each replaces the first
# segment's row, a hypothesis of 11 tokens against a reference of 11.
IMPOSSIBLE_ROWS: dict[str, tuple[str, list[Any], str]] = {
    "BLEU: no hypothesis, 3 unigrams": (
        "bleu",
        bleu_row(0, 3, [3, 2, 1, 0], [3, 2, 1, 0]),
        "3/2/1/0 n-grams of orders 1 to 4 in a segment of 0 hypothesis tokens",
    ),
    "BLEU: 3 tokens, 3 four-grams": (
        "bleu",
        bleu_row(3, 3, [3, 3, 3, 3], [3, 3, 3, 3]),
        "3/3/3/3 n-grams of orders 1 to 4 in a segment of 3 hypothesis tokens",
    ),
    "BLEU: bigrams match where no unigram does": (
        "bleu",
        bleu_row(11, 11, [0, 4, 0, 0], [11, 10, 9, 8]),
        "4 matching 2-grams where no 1-gram matches",
    ),
    "BLEU: more bigrams than unigrams match one reference": (
        "bleu",
        bleu_row(11, 11, [3, 5, 0, 0], [11, 10, 9, 8]),
        "5 matching 2-grams but 3 matching 1-grams, against one reference",
    ),
    "BLEU: more matches than one reference has": (
        "bleu",
        bleu_row(11, 4, [6, 3, 2, 1], [11, 10, 9, 8]),
        "6 matching 1-grams in a reference of 4 tokens",
    ),
    "chrF: reference n-grams of no length": (
        "chrf",
        [35, 33, 31, 34, 33, 29, *([0] * 12), *([0] * 6)],
        "33/33/0/0/0/0 n-grams of orders 1 to 6 in a segment of 33 reference characters",
    ),
    "chrF: hypothesis n-grams where the reference has none": (
        "chrf",
        [2, 1, 1, 1, 0, 0, *([0] * 12), *([0] * 6)],
        "1 hypothesis character 2-grams counted against no reference ones",
    ),
    "chrF: hypothesis n-grams of no length": (
        "chrf",
        [35, 33, 31, 35, 32, 29, 33, 31, 27, 32, 30, 25, 31, 29, 23, 30, 28, 21, *([0] * 6)],
        "35/35/33/32/31/30 hypothesis character n-grams of orders 1 to 6",
    ),
    "chrF: more word matches at order 2 than 1": (
        "chrf",
        [2, 2, 1, 1, 1, 0, *([0] * 12), 2, 2, 0, 1, 1, 1],
        "1 matching word 2-grams but 0 1-grams",
    ),
    "chrF: more words than characters": (
        "chrf",
        [2, 2, 1, 1, 1, 0, *([0] * 12), 3, 3, 1, 2, 2, 0],
        "3 reference words but 2 reference characters",
    ),
    "chrF: characters and no words": (
        "chrf",
        [2, 2, 1, 1, 1, 0, *([0] * 12), 0, 0, 0, 0, 0, 0],
        "a reference of 2 characters and 0 words",
    ),
    "TER: a fraction of one reference's length": (
        "ter",
        [1, 10.5],
        "the reference length must be a whole number, not 10.5",
    ),
}


@pytest.mark.parametrize("what", list(IMPOSSIBLE_ROWS))
def test_rows_no_run_writes_are_refused(tmp_path: Path, what: str) -> None:
    metric, row, message = IMPOSSIBLE_ROWS[what]
    records = [json.loads(line) for line in segment_records()]
    records[0]["metrics"][metric_index(records[0], metric)]["stats"] = row
    write_records(tmp_path / "bad.stats", records)
    proc = bleustream("--input-format", "stats", "-f", "jsonl", "bad.stats", cwd=tmp_path)
    assert_refused(proc, "bad.stats:1", f"{metric} statistics: {message}")


@pytest.mark.parametrize(
    "what, edit, message",
    [
        (
            "hyp_len",
            lambda s: s.__setitem__(0, 98),
            "97/89/81/73 n-grams of orders 1 to 4 in 8",
        ),
        ("totals", lambda s: s.__setitem__(7, 97), "97/97/81/73 n-grams of orders 1 to 4"),
        ("gaps", lambda s: s.__setitem__(8, 60), "97/89/60/73 n-grams of orders 1 to 4"),
        ("matches", lambda s: s.__setitem__(2, 98), "98 matching 1-grams of 97"),
    ],
)
def test_summed_rows_no_run_writes_are_refused(
    tmp_path: Path, what: str, edit: Any, message: str
) -> None:
    """A corpus record: its BLEU unigrams are its hypothesis length, each order
    has fewer n-grams than the order below, by at most one per segment."""
    (record,) = written(REF, "-m", "bleu", "-i", HYP)
    edit(record["metrics"][0]["stats"])
    write_records(tmp_path / "bad.stats", [record])
    proc = bleustream("--input-format", "stats", "bad.stats", cwd=tmp_path)
    assert_refused(proc, "bad.stats:1", f"bleu statistics: {message}")


def test_smooth_value_alone_is_for_the_records_method(tmp_path: Path) -> None:
    """-sv over floor-smoothed records was refused as if the method were exp."""
    for method in ("floor", "add-k"):
        path = tmp_path / f"{method}.stats"
        write_records(path, written("-s", method, "-sl", REF, "-i", HYP))
        merged = bleustream("--input-format", "stats", "-sv", "0.5", "-f", "jsonl", path)
        direct = bleustream("-s", method, "-sv", "0.5", "-f", "jsonl", REF, "-i", HYP)
        assert ok(merged).stdout == ok(direct).stdout
    write_records(tmp_path / "exp.stats", written(REF, "-i", HYP))
    proc = bleustream("--input-format", "stats", "-sv", "0.5", "exp.stats", cwd=tmp_path)
    assert_refused(proc, "exp.stats:1", "a smoothing value applies to floor and add-k, not to exp")
    # Scoring text, -sv needs its method as before (a usage error, 2).
    assert bleustream("-sv", "0.5", REF, "-i", HYP).returncode == 2


def test_an_empty_shard_among_systems_files(tmp_path: Path) -> None:
    """An empty shard's 0-segment corpus record adds nothing, with -i too."""
    (tmp_path / "empty").write_text("", encoding="utf-8")
    empty = written("-sl", "--allow-empty", tmp_path / "empty", "-i", tmp_path / "empty")
    assert [r["segments"] for r in empty] == [0]
    base = written("-sl", REF, "-i", HYP)
    other = written("-sl", REF2, "-i", HYP)
    write_records(tmp_path / "base.stats", empty + base)
    write_records(tmp_path / "other.stats", other + empty)
    write_records(tmp_path / "base.whole.stats", base)
    write_records(tmp_path / "other.whole.stats", other)
    args = ("--input-format", "stats", "-pbs", "-pbsn", "50", "-f", "jsonl", "-i")
    with_empty = ok(bleustream(*args, "base.stats", "other.stats", cwd=tmp_path)).stdout
    alone = ok(bleustream(*args, "base.whole.stats", "other.whole.stats", cwd=tmp_path)).stdout
    assert with_empty == alone.replace(b".whole.stats", b".stats")


@pytest.mark.parametrize(
    "words",
    [
        (REF, "-i", HYP, REF2, "--"),
        (REF, "-m", "bleu", "chrf", "--"),
    ],
    ids=["-i", "-m"],
)
def test_a_final_double_dash_ends_a_list(words: tuple[Any, ...]) -> None:
    ended = bleustream(*words, input=HYP.read_text(encoding="utf-8"))
    plain = bleustream(*words[:-1], input=HYP.read_text(encoding="utf-8"))
    assert ok(ended).stdout == ok(plain).stdout


# ----------------------------------------------------------------------------
# What real runs write is read back
# ----------------------------------------------------------------------------


REAL_LINES = 300
REAL_SETTINGS = (
    (*METRICS,),
    ("-m", "bleu", "chrf", "-tok", "char", "--max-ngram-order", "6", "--chrf-whitespace"),
    ("-m", "chrf", "-cc", "3", "-cw", "3", "--chrf-lowercase", "-lc"),
)


@pytest.mark.parametrize("extra", REAL_SETTINGS, ids=["default", "char", "words"])
@pytest.mark.slow
def test_real_runs_are_read_back(tmp_path: Path, extra: tuple[str, ...]) -> None:
    """Every real set, all its references (the first lines of each): its
    segment and corpus records pass."""
    require_real_data()
    for real_set in real_sets():
        files = []
        for k, path in enumerate((real_set.hyps[0], *real_set.refs)):
            head = path.read_text(encoding="utf-8").splitlines(keepends=True)[:REAL_LINES]
            files.append(tmp_path / f"{real_set.name}.{k}")
            files[-1].write_text("".join(head), encoding="utf-8")
        hyp, refs = files[0], files[1:]
        direct = ok(bleustream(*extra, "-f", "jsonl", *refs, "-i", hyp)).stdout
        for sentence in ((), ("-sl",)):
            records = written(*extra, *sentence, *refs, "-i", hyp)
            path = write_records(tmp_path / "run.stats", records)
            merged = ok(bleustream("--input-format", "stats", "-f", "jsonl", path)).stdout
            assert merged == direct, (real_set.name, sentence)


ROW_SETTINGS = (
    (bleu, bleu.Settings()),
    (bleu, bleu.Settings(tokenize="char", max_order=7)),
    (bleu, bleu.Settings(tokenize="none", max_order=1)),
    (chrf, chrf.Settings(word_order=2)),
    (chrf, chrf.Settings(char_order=3, word_order=3, whitespace=True, lowercase=True)),
    (chrf, chrf.Settings(char_order=0, word_order=2)),
    (ter, ter.Settings()),
    (ter, ter.Settings(normalized=True, asian_support=True)),
)


@cache
def counted_rows(index: int, nrefs: int) -> tuple[tuple[Any, ...], ...]:
    """Rows of adversarial segments (and a few edge cases), as runs count them."""
    metric, setting = ROW_SETTINGS[index]
    hyps, streams = Adversary(100 + nrefs).corpus(150, nrefs)
    segments = [(h, list(r)) for h, *r in zip(hyps, *streams)]
    for hyp, ref in (("", ""), ("a", ""), ("", "abc"), ("   ", "  "), ("\u2028 a", " b\x0b")):
        segments.append((hyp, [ref] * nrefs))
    prepare, count = metric.prepare_refs(setting), metric.count(setting)
    return tuple(count(NOT_IN_A_FIELD.sub(" ", h), prepare(r)) for h, r in segments)


@settings(max_examples=150, deadline=None, database=None)
@given(
    index=st.integers(0, len(ROW_SETTINGS) - 1),
    nrefs=st.sampled_from([1, 2, 4]),
    seed=st.integers(0, 2**32),
    size=st.integers(1, 60),
)
def test_rows_and_sums_of_real_counts_pass_the_checks(
    index: int, nrefs: int, seed: int, size: int
) -> None:
    """No check refuses a segment's row as counted, nor a sum of such rows."""
    metric, setting = ROW_SETTINGS[index]
    rows = counted_rows(index, nrefs)
    picked = random.Random(seed).sample(rows, min(size, len(rows)))
    for row in picked:
        assert metric.check_row(row, setting, 1, nrefs) is None, row
    total = picked[0]
    for row in picked[1:]:
        total = add_rows(total, row)
    assert metric.check_row(total, setting, len(picked), nrefs) is None, total


# ----------------------------------------------------------------------------
# Mutations of real output, one field at a time
# ----------------------------------------------------------------------------


@cache
def baseline(kind: str, tests: tuple[str, ...]) -> bytes:
    """What reading the unmutated records prints."""
    lines = segment_records() if kind == "segment" else corpus_records()
    proc = bleustream(*read_args(kind, tests), "-", input="\n".join(lines) + "\n")
    return ok(proc).stdout


@cache
def corpus_records() -> tuple[str, ...]:
    """Two shards' corpus records: the example hypotheses against two references each."""
    shards = [
        ok(bleustream(*METRICS, "-f", "stats", REF, REF2, "-i", HYP)).stdout,
        ok(bleustream(*METRICS, "-f", "stats", REF2, REF, "-i", HYP)).stdout,
    ]
    return tuple(line for out in shards for line in out.decode("utf-8").splitlines())


def read_args(kind: str, tests: tuple[str, ...]) -> tuple[str, ...]:
    sentence = ("-sl",) if kind == "segment" else ()
    return ("--input-format", "stats", "-f", "jsonl", *sentence, *tests)


def whole_fields(metric: str, size: int) -> range:
    return range(1) if metric == "ter" else range(size)


def totals_field(metric: str, order: int, stat: int) -> bool:
    """Whether a field is an n-gram total: BLEU's hypothesis length and
    totals, chrF's hypothesis and reference n-grams."""
    if metric == "bleu":
        return stat == 0 or stat >= 2 + order
    return metric == "chrf" and stat % 3 != 2


def exact_totals(counts: list[int], segments: int) -> bool:
    """Whether a segment's chrF (hyp, ref, match) triplets of one kind have
    the totals of some hypothesis and reference lengths."""
    if segments != 1 or not counts:
        return True
    hyps, refs = counts[0::3], counts[1::3]
    length, ref_length = hyps[0], refs[0]
    return refs == [max(0, ref_length - n) for n in range(len(refs))] and hyps == [
        max(0, length - n) if ref else 0 for n, ref in enumerate(refs)
    ]


MUTATIONS = ("float", "fraction", "negative", "limit", "total", "match", "edits")


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
@pytest.mark.slow
def test_each_mutation_is_the_same_numbers_or_refused(data: st.DataObject) -> None:
    """One field of real records mutated: the unmutated numbers again, or 65 at
    its line, or, where a run could write the mutated record, a score."""
    kind = data.draw(st.sampled_from(["segment", "corpus"]), "kind")
    # A test resamples segments: segment records only.
    resampling = kind == "segment" and data.draw(st.booleans(), "-ci")
    tests = ("-ci", "-cin", "3") if resampling else ()
    lines = list(segment_records() if kind == "segment" else corpus_records())
    # The last segment record's corpus record is their sum, passed over.
    candidates = [i for i, line in enumerate(lines) if json.loads(line)["type"] == kind]
    index = data.draw(st.sampled_from(candidates), "record")
    record = json.loads(lines[index])
    position = data.draw(st.integers(0, len(record["metrics"]) - 1), "metric")
    entry = record["metrics"][position]
    metric, stats = entry["metric"], entry["stats"]
    stat = data.draw(st.integers(0, len(stats) - 1), "stat")
    mutation = data.draw(st.sampled_from(MUTATIONS), "mutation")
    value = stats[stat]
    whole = stat in whole_fields(metric, len(stats))
    order = entry["counting"].get("max_order", 0)
    segments = record["segments"]
    expect = "refused"
    if mutation == "float":
        assume(whole)
        stats[stat], expect = float(value), "same"
    elif mutation == "fraction":
        # A whole statistic, or TER's length over one reference.
        assume(whole or record["nrefs"] == 1)
        stats[stat] = value + 0.5
    elif mutation == "negative":
        stats[stat] = -data.draw(st.integers(1, 10**6), "minus") - 0.5 * (not whole)
    elif mutation == "limit":
        assume(kind == "segment" and whole)
        big = data.draw(st.integers(LIMIT + 1, 2**53), "big")
        stats[stat] = float(big) if data.draw(st.booleans(), "as float") else big
    elif mutation == "total":
        assume(totals_field(metric, order, stat))
        stats[stat] = max(0, value + data.draw(st.integers(-5, 5).filter(bool), "by"))
        assume(stats[stat] != value)
        if metric == "chrf":
            split = 3 * entry["counting"]["char_order"]
            kinds = (stats[:split], stats[split:])
            # Over sums, or where other lengths give these totals, whether a
            # run could write the row takes more than counting.
            assume(not all(exact_totals(part, segments) for part in kinds))
        elif kind == "corpus":
            # A sum's unigrams are still its hypothesis length.
            assume(stat in (0, 2 + order))
    elif mutation == "match":
        # More matches than the n-grams of the order.
        if metric == "bleu":
            assume(2 <= stat < 2 + order)
            bound = stats[stat + order]
        else:
            assume(metric == "chrf" and stat % 3 == 2)
            bound = min(stats[stat - 2], stats[stat - 1])
        stats[stat] = bound + data.draw(st.integers(1, 5), "above")
    elif mutation == "edits":
        # More edits: a hypothesis with more words no reference has.
        assume(metric == "ter" and stat == 0)
        stats[stat], expect = value + data.draw(st.integers(1, 50), "more"), "scored"
    lines[index] = json.dumps(record)
    proc = bleustream(*read_args(kind, tests), "-", input="\n".join(lines) + "\n")
    if expect == "same":
        assert ok(proc).stdout == baseline(kind, tests)
    elif expect == "scored":
        ok(proc)
        assert proc.stdout != baseline(kind, tests)
    else:
        # Records stream out as they are read: only those before the bad one.
        assert proc.returncode == 65, proc.stderr
        (line,) = proc.stderr.decode().splitlines()
        assert line.startswith(f"bleustream: <stdin>:{index + 1}: {metric} statistics: "), line
        printed = [json.loads(out) for out in proc.stdout.decode().splitlines()]
        assert all(r["type"] == "segment" and r["line"] <= index for r in printed), printed


# One rule for counting options given when statistics are read back, for
# every metric: one that contradicts the record is refused at its file and
# line; one that agrees, or none, reads them to the same numbers.
COUNTING_GIVEN = {
    "bleu": (("-m", "bleu"), ("-tok", "13a"), ("-tok", "intl"), "tokenize"),
    "bleu-lowercase": (("-m", "bleu"), ("--no-lowercase",), ("-lc",), "lowercase"),
    "chrf": (("-m", "chrf"), ("-cc", "6"), ("-cc", "5"), "char_order"),
    "chrf++": (("-m", "chrf", "-cw", "2"), ("-cw", "2"), ("-cw", "0"), "word_order"),
    "ter": (("-m", "ter"), ("--no-ter-normalized",), ("--ter-normalized",), "normalized"),
    "nist": (("-m", "nist"), ("--nist-order", "5"), ("--nist-order", "4"), "order"),
}


@pytest.mark.parametrize(
    "counting,agreeing,contradicting,field",
    COUNTING_GIVEN.values(),
    ids=COUNTING_GIVEN.keys(),
)
def test_a_counting_option_given_again_must_agree_with_the_records(
    tmp_path: Path,
    counting: tuple[str, ...],
    agreeing: tuple[str, ...],
    contradicting: tuple[str, ...],
    field: str,
) -> None:
    direct = ok(bleustream(REF, "-i", HYP, *counting, "-b"))
    shard = tmp_path / "shard.stats"
    shard.write_bytes(b"\n" + ok(bleustream(REF, "-i", HYP, *counting, "-f", "stats")).stdout)
    for options in ((), agreeing):
        read = ok(bleustream("--input-format", "stats", *options, "-b", shard))
        assert read.stdout == direct.stdout, options
    refused = bleustream("--input-format", "stats", *contradicting, "-b", shard)
    assert (refused.returncode, refused.stdout) == (65, b""), refused.stderr
    (line,) = refused.stderr.decode().splitlines()
    assert line.startswith(f"bleustream: {shard}:2: ") and " statistics counted with " in line
    assert f"{field}=" in line and "was given" in line
