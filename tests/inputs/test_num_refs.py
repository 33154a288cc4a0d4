"""``-nr/--num-refs``: one reference file with N tab-separated references a line.

bleustream's reader (``lockstep_segments(..., num_refs=N)``) against
SacreBLEU's command line reading the same files with ``-nr N``, run in a
subprocess: the corpus score and its statistics (``-f jsonl``) and every
sentence's (``-sl``), computed for bleustream by SacreBLEU's own
``compute_bleu`` from bleustream's segments, tokens and n-gram counts.
Lines SacreBLEU refuses, bleustream refuses at the same line with the same
counts, through its bad-line policy.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from sacrebleu.metrics.bleu import BLEU, BLEUScore

from bleustream.errors import EXIT_DATAERR, EXIT_USAGE, InputError, UsageError
from bleustream.inputs.lines import BadLinePolicy, Segment, lockstep_segments, open_source
from bleustream.tokenizers.registry import TOKENIZERS
from tests.conftest import read_segments, real_sets, require_real_data
from tests.helpers.adversarial import Adversary
from tests.helpers.bleu_stats import Stats, segment_stats

SACREBLEU = Path(sys.executable).parent / "sacrebleu"
SURROGATE = re.compile("[\ud800-\udfff]")
MAX_ORDER = 4


def write_lines(path: Path, lines: Sequence[str]) -> Path:
    path.write_bytes("".join(f"{line}\n" for line in lines).encode("utf-8"))
    return path


def read_nr(
    hyp: Path, ref: Path, num_refs: int, policy: BadLinePolicy | None = None
) -> list[Segment]:
    hyps = open_source(str(hyp), None, on_bad=policy)
    refs = open_source(str(ref), None, on_bad=policy)
    try:
        return list(lockstep_segments(hyps, [refs], num_refs, on_bad=policy))
    finally:
        hyps.close()
        refs.close()


def sacrebleu_run(
    cwd: Path, ref: Path, hyp: Path, num_refs: int, *options: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SACREBLEU), ref.name, "-i", hyp.name, "-nr", str(num_refs), "-w", "6", *options],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=check,
    )


def our_stats(segments: Sequence[Segment], tokenize: str) -> list[Stats]:
    tok = TOKENIZERS[tokenize]
    return [segment_stats(tok(s.hyp), [tok(r) for r in s.refs], MAX_ORDER) for s in segments]


def bleu_of(stats: Sequence[Stats], effective_order: bool = False) -> BLEUScore:
    """SacreBLEU's arithmetic over bleustream's statistics."""
    return BLEU.compute_bleu(
        [sum(s.matches[n] for s in stats) for n in range(MAX_ORDER)],
        [sum(s.totals[n] for s in stats) for n in range(MAX_ORDER)],
        sum(s.hyp_len for s in stats),
        sum(s.ref_len for s in stats),
        smooth_method="exp",
        effective_order=effective_order,
    )


def assert_same_as_sacrebleu(
    tmp_path: Path, hyp: Path, ref: Path, num_refs: int, tokenize: str, sentences: bool = True
) -> list[Segment]:
    segments = read_nr(hyp, ref, num_refs)
    assert all(len(s.refs) == num_refs for s in segments)
    stats = our_stats(segments, tokenize)
    # "BLEU|nrefs:2|...|version:2.6.0 = 12.345678 60.0/33.3/... (BP = ... ref_len = 9)"
    out = sacrebleu_run(tmp_path, ref, hyp, num_refs, "-tok", tokenize, "-f", "text")
    signature, theirs = out.stdout.strip().split(" = ", 1)
    assert f"|nrefs:{num_refs}|" in signature
    assert bleu_of(stats).format(6).split(" = ", 1)[1] == theirs
    if sentences:
        out = sacrebleu_run(tmp_path, ref, hyp, num_refs, "-tok", tokenize, "-sl")
        theirs_lines = [line.split(" = ", 1)[1] for line in out.stdout.splitlines()]
        ours_lines = [
            bleu_of([one], effective_order=True).format(6).split(" = ", 1)[1] for one in stats
        ]
        assert len(ours_lines) == len(theirs_lines) == len(segments)
        diff = [(i + 1, a, b) for i, (a, b) in enumerate(zip(ours_lines, theirs_lines)) if a != b]
        assert diff[:5] == []
    return segments


# --------------------------------------------------------------------------
# agreement with SacreBLEU
# --------------------------------------------------------------------------

# (hypothesis, reference line) for -nr 2: white space around the tabs, an
# empty first reference, a tab more than expected (SacreBLEU splits at the
# first tab only: the rest stays in the last reference), trailing tabs.
QUIRKS_2 = [
    ("the cat sat", "the cat sat\ta cat sat"),
    ("the cat sat", "the cat sat  \t  a cat sat  "),
    ("hello world", "\thello world"),
    ("a b c d", "a b\tc d\ta b c d"),
    ("a b c d", "a b c d\t\ta b"),
    ("x y z", "x y\tz y x\t\t  \t"),
    ("one, two.", "one , two .\tone, two.\u3000"),
]


@pytest.mark.parametrize("tokenize", ["13a", "intl"])
def test_quirks_as_sacrebleu(tmp_path: Path, tokenize: str) -> None:
    hyp = write_lines(tmp_path / "hyp", [h for h, _ in QUIRKS_2])
    ref = write_lines(tmp_path / "ref.tsv", [r for _, r in QUIRKS_2])
    segments = assert_same_as_sacrebleu(tmp_path, hyp, ref, 2, tokenize)
    assert segments[1].refs == ["the cat sat", "  a cat sat"]  # right-stripped only
    assert segments[2].refs == ["", "hello world"]
    assert segments[3].refs == ["a b", "c d\ta b c d"]
    assert segments[4].refs == ["a b c d", "\ta b"]


def generated(seed: int, num_refs: int, n: int = 300) -> tuple[list[str], list[str]]:
    """Hypotheses and ``num_refs``-field reference lines SacreBLEU accepts.

    A tab inside a generated reference would move the field boundaries, and
    a last reference that is blank would leave a field short: both are
    replaced, so that every line holds exactly the references generated.
    """
    hyps, streams = Adversary(seed).corpus(n, num_refs)
    clean = [SURROGATE.sub("?", h) for h in hyps]
    lines = []
    for refs in zip(*streams):
        fields = [SURROGATE.sub("?", r).replace("\t", " ") for r in refs]
        if not fields[-1].strip():
            fields[-1] = "x"
        lines.append("\t".join(fields))
    return clean, lines


@pytest.mark.parametrize(("num_refs", "seed"), [(2, 1), (3, 2)])
def test_generated_as_sacrebleu(tmp_path: Path, num_refs: int, seed: int) -> None:
    hyps, lines = generated(seed, num_refs)
    hyp = write_lines(tmp_path / "hyp", hyps)
    ref = write_lines(tmp_path / "ref.tsv", lines)
    segments = assert_same_as_sacrebleu(tmp_path, hyp, ref, num_refs, "13a")
    assert len(segments) == len(hyps)


def test_real_references_as_separate_files_and_as_one(tmp_path: Path) -> None:
    """WMT21 en-de's three references pasted into one file: the same segments, SacreBLEU's score."""
    require_real_data()
    real_set = {s.name: s for s in real_sets()}["wmt21-en-de"]
    streams = [read_segments(path) for path in real_set.refs]
    assert len(streams) == 3
    ref = write_lines(tmp_path / "ref.tsv", ["\t".join(refs) for refs in zip(*streams)])
    hyp = write_lines(tmp_path / "hyp", read_segments(real_set.hyps[0]))
    segments = assert_same_as_sacrebleu(tmp_path, hyp, ref, 3, "13a", sentences=False)
    hyps = open_source(str(hyp), None)
    separate = list(lockstep_segments(hyps, [open_source(str(p), None) for p in real_set.refs]))
    assert segments == separate


# --------------------------------------------------------------------------
# bad lines
# --------------------------------------------------------------------------

FATAL = re.compile(r"line (\d+): expected (\d+) fields, but found (\d+)\.")


@pytest.mark.parametrize(
    ("num_refs", "bad_line"),
    [
        (2, "only one reference"),
        (2, "a trailing tab is stripped\t"),
        (2, "so is a blank last reference\t   "),
        (3, "two\treferences"),
        (3, "\t\t"),
        (2, ""),
    ],
)
def test_wrong_field_count_as_sacrebleu(tmp_path: Path, num_refs: int, bad_line: str) -> None:
    """SacreBLEU stops at the same line, with the same expected and found counts."""
    good = "\t".join(["a b c"] * num_refs)
    ref = write_lines(tmp_path / "ref.tsv", [good, bad_line, good])
    hyp = write_lines(tmp_path / "hyp", ["a b c"] * 3)
    out = sacrebleu_run(tmp_path, ref, hyp, num_refs, check=False)
    assert out.returncode != 0
    match = FATAL.search(out.stderr)
    assert match is not None, out.stderr
    line, expected, found = map(int, match.groups())
    with pytest.raises(InputError) as info:
        read_nr(hyp, ref, num_refs)
    error = info.value
    assert error.status == EXIT_DATAERR
    assert (error.source, error.line) == (str(ref), line)
    assert str(error) == (
        f"{ref}:{line}: expected {expected} tab-separated references (--num-refs), found {found}"
    )


def test_wrong_field_count_skipped_by_policy(tmp_path: Path) -> None:
    reports: list[str] = []
    policy = BadLinePolicy(skip=True, report=reports.append)
    ref = write_lines(tmp_path / "ref.tsv", ["a\tb", "short", "c\td", "e", "f\tg"])
    hyp = write_lines(tmp_path / "hyp", ["1", "2", "3", "4", "5"])
    segments = read_nr(hyp, ref, 2, policy)
    assert [(s.hyp, s.refs, s.line) for s in segments] == [
        ("1", ["a", "b"], 1),
        ("3", ["c", "d"], 3),
        ("5", ["f", "g"], 5),
    ]
    assert policy.count == 2
    assert reports == [
        f"{ref}:2: expected 2 tab-separated references (--num-refs), found 1 (line skipped)",
        f"{ref}:4: expected 2 tab-separated references (--num-refs), found 1 (line skipped)",
    ]


def test_lengths_still_checked(tmp_path: Path) -> None:
    ref = write_lines(tmp_path / "ref.tsv", ["a\tb"])
    hyp = write_lines(tmp_path / "hyp", ["1", "2"])
    with pytest.raises(InputError, match="reference file ended after line 1"):
        read_nr(hyp, ref, 2)


@pytest.mark.parametrize(("num_refs", "files"), [(2, 2), (3, 0), (0, 1), (-1, 1)])
def test_usage(tmp_path: Path, num_refs: int, files: int) -> None:
    """As SacreBLEU: -nr N > 1 reads one reference file; and N must be positive."""
    ref = write_lines(tmp_path / "ref.tsv", ["a\tb"])
    hyp = write_lines(tmp_path / "hyp", ["a"])
    refs = [open_source(str(ref), None) for _ in range(files)]
    with pytest.raises(UsageError) as info:
        lockstep_segments(open_source(str(hyp), None), refs, num_refs)
    assert info.value.status == EXIT_USAGE
    assert "--num-refs" in str(info.value)


def test_one_reference_keeps_its_tabs(tmp_path: Path) -> None:
    """-nr 1 (the default) leaves a reference line whole, tabs included, as SacreBLEU."""
    ref = write_lines(tmp_path / "ref", ["a\tb  "])
    hyp = write_lines(tmp_path / "hyp", ["a b"])
    assert read_nr(hyp, ref, 1) == [Segment("a b", ["a\tb"], 1)]
