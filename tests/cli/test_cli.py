"""The command line's corpus score: inputs, pairing and the final record.

Every expected number comes from SacreBLEU (its API, or its own command
line where reading files is what is being compared).
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sacrebleu.metrics.bleu import BLEU

from bleustream._version import __version__
from bleustream.kernels import KERNELS
from tests.helpers.clirun import COMMAND, assert_clean_stderr, json_records, run
from tests.helpers.paths import ROOT

EXAMPLES = ROOT / "examples"

HYPS = [
    "The cat sat on the mat.",
    "It costs 1,250.50 euros, doesn't it?",
    "",
    'A storm -- "big" one -- hit 3-4 towns.',
    "Über den Wolken muss die Freiheit wohl grenzenlos sein.",
]
REFS = [
    "The cat is sitting on the mat.",
    "It costs EUR 1,250.50, doesn't it?",
    "Nothing here.",
    "A big storm hit three to four towns.",
    "Über den Wolken muss die Freiheit grenzenlos sein.",
]
REFS2 = [
    "A cat sat on the mat.",
    "The price is 1,250.50 euros.",
    "",
    'A "big" storm hit 3-4 towns.',
    "Die Freiheit über den Wolken ist grenzenlos.",
]


def sacre_line(hyps: list[str], refs: list[list[str]], width: int = 1, **kw: object) -> str:
    """SacreBLEU's text line for this corpus, with bleustream's version field."""
    metric = BLEU(**kw)  # type: ignore[arg-type]
    score = metric.corpus_score(hyps, refs)
    signature = str(metric.get_signature())
    line = score.format(width=width, signature=signature)
    return re.sub(r"version:[^ |]+", f"version:bleustream-{__version__}", line)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def paste(*columns: list[str]) -> str:
    return "".join("\t".join(fields) + "\n" for fields in zip(*columns))


def test_paste_text_line_is_sacrebleus() -> None:
    proc = run(input=paste(HYPS, REFS))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == sacre_line(HYPS, [REFS]) + "\n"
    assert proc.stderr == b""


def test_paste_with_two_references() -> None:
    proc = run(input=paste(HYPS, REFS, REFS2))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == sacre_line(HYPS, [REFS, REFS2]) + "\n"


def test_reference_operands_read_in_lockstep(tmp_path: Path) -> None:
    ref_a = write_lines(tmp_path / "ref.a", REFS)
    ref_b = write_lines(tmp_path / "ref.b", REFS2)
    hyp = write_lines(tmp_path / "hyp", HYPS)
    expected = sacre_line(HYPS, [REFS, REFS2]) + "\n"
    from_stdin = run(ref_a, ref_b, input=hyp.read_bytes())
    from_file = run(ref_a, ref_b, "-i", hyp)
    assert from_stdin.stdout.decode() == expected
    assert from_file.stdout.decode() == expected


def test_dash_names_stdin_for_a_reference(tmp_path: Path) -> None:
    hyp = write_lines(tmp_path / "hyp", HYPS)
    proc = run("-", "-i", hyp, input="".join(r + "\n" for r in REFS))
    assert proc.stdout.decode() == sacre_line(HYPS, [REFS]) + "\n"


def test_gzip_inputs_are_read_transparently(tmp_path: Path) -> None:
    ref = tmp_path / "ref.gz"
    hyp = tmp_path / "hyp.gz"
    ref.write_bytes(gzip.compress("".join(r + "\n" for r in REFS).encode()))
    hyp.write_bytes(gzip.compress("".join(h + "\n" for h in HYPS).encode()))
    proc = run(ref, "-i", hyp)
    assert proc.stdout.decode() == sacre_line(HYPS, [REFS]) + "\n"


@pytest.mark.parametrize("tok", ["13a", "intl", "zh", "char", "none"])
@pytest.mark.parametrize(
    "flags, kw",
    [
        ([], {}),
        (["-lc"], {"lowercase": True}),
        (["-s", "floor", "-sv", "0.2"], {"smooth_method": "floor", "smooth_value": 0.2}),
        (["-s", "add-k"], {"smooth_method": "add-k"}),
        (["-s", "none", "--effective-order"], {"smooth_method": "none", "effective_order": True}),
        (["--max-ngram-order", "2"], {"max_ngram_order": 2}),
    ],
)
def test_json_record_matches_sacrebleu(tok: str, flags: list[str], kw: dict) -> None:
    hyps = [*HYPS, "中文的句子，很好。", "ｆｕｌｌ　ｗｉｄｔｈ"]
    refs = [*REFS, "中文句子，非常好。", "full width"]
    proc = run("-tok", tok, "-f", "jsonl", *flags, input=paste(hyps, refs))
    assert proc.returncode == 0, proc.stderr
    (record,) = json_records(proc.stdout)
    metric = BLEU(tokenize=tok, **kw)  # type: ignore[arg-type]
    stats = metric._extract_corpus_statistics(hyps, [refs])
    order = kw.get("max_ngram_order", 4)
    summed = [sum(col) for col in zip(*stats)]
    expected = metric.corpus_score(hyps, [refs])
    assert record["type"] == "corpus"
    assert record["hyp_len"] == summed[0]
    assert record["ref_len"] == summed[1]
    assert record["counts"] == summed[2 : 2 + order]
    assert record["totals"] == summed[2 + order :]
    assert record["segments"] == len(hyps)
    assert abs(record["score"] - expected.score) <= 1e-9
    assert record["score"] == expected.score
    assert record["bp"] == expected.bp
    assert record["precisions"] == pytest.approx(expected.precisions, abs=1e-9)
    # SacreBLEU's signature does not say the n-gram order; bleustream's
    # adds an order field when it is not 4, and is otherwise the same.
    signature = re.sub(r"version:[^|]+", "", str(metric.get_signature()))
    ours = re.sub(r"version:[^|]+", "", record["signature"])
    assert ours.replace(f"order:{order}|", "") == signature
    assert record.get("order") == (None if order == 4 else str(order))
    assert record["tok"] == tok
    assert record["version"] == f"bleustream-{__version__}"


def test_score_only_and_width() -> None:
    expected = BLEU().corpus_score(HYPS, [REFS]).score
    plain = run("-b", input=paste(HYPS, REFS))
    wide = run("-b", "-w", "4", input=paste(HYPS, REFS))
    assert plain.stdout.decode() == f"{expected:.1f}\n"
    assert wide.stdout.decode() == f"{expected:.4f}\n"


def test_width_applies_to_text_line() -> None:
    proc = run("-w", "3", input=paste(HYPS, REFS))
    assert proc.stdout.decode() == sacre_line(HYPS, [REFS], width=3) + "\n"


def test_python_dash_m_runs_the_same_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bleustream", "-b", "-w", "6"],
        input=paste(HYPS, REFS).encode(),
        capture_output=True,
    )
    assert proc.stdout == run("-b", "-w", "6", input=paste(HYPS, REFS)).stdout


def test_version_option() -> None:
    proc = run("--version")
    # The command runs with this process's environment, so its kernels are these.
    assert proc.stdout.decode().strip() == f"bleustream {__version__} (kernels: {KERNELS})"


# -- Line handling, compared with SacreBLEU's own command line on files ------


def sacrebleu_cli(ref: Path, hyp: Path, *flags: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(hyp), "-b", "-w", "9", *flags],
        capture_output=True,
        check=True,
    )
    return proc.stdout.decode().strip()


@pytest.mark.parametrize(
    "name, hyp_bytes",
    [
        ("bom", "\ufeffThe cat sat on the mat.\nIt rains.\n".encode()),
        ("crlf", b"The cat sat on the mat.\r\nIt rains.\r\n"),
        ("inner-cr", b"The cat\rsat on the mat.\nIt rains.\n"),
        ("no-final-newline", b"The cat sat on the mat.\nIt rains."),
        ("nul", b"The cat\x00 sat on the mat.\nIt rains.\n"),
        ("unicode-separators", "The cat\u2028sat\x1con\x85the mat.\nIt rains.\n".encode()),
        ("trailing-space", b"The cat sat on the mat. \t \nIt rains.   \n"),
        ("empty-hypothesis", b"\nIt rains.\n"),
    ],
)
def test_line_handling_matches_sacrebleu_cli(tmp_path: Path, name: str, hyp_bytes: bytes) -> None:
    ref = tmp_path / "ref"
    ref.write_bytes(b"The cat sat on the mat.\nIt is raining.\n")
    hyp = tmp_path / "hyp"
    hyp.write_bytes(hyp_bytes)
    ours = run(ref, "-i", hyp, "-b", "-w", "9")
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.decode().strip() == sacrebleu_cli(ref, hyp)


def test_real_bom_file_matches_sacrebleu_cli() -> None:
    from tests.conftest import REAL_DATA, REAL_DATA_MISSING, real_data_present

    if not real_data_present():
        pytest.skip(REAL_DATA_MISSING)
    directory = REAL_DATA / "sacrebleu-wmt17-en-de"
    ref = directory / "newstest2017.en-de.ref.de"
    with_bom = [
        p for p in directory.glob("newstest2017.hyp.*") if p.read_bytes()[:3] == b"\xef\xbb\xbf"
    ]
    assert with_bom, "the shared WMT17 data was expected to hold a file with a byte-order mark"
    for hyp in with_bom:
        ours = run(ref, "-i", hyp, "-b", "-w", "9")
        assert ours.stdout.decode().strip() == sacrebleu_cli(ref, hyp)


def test_empty_reference_field_is_an_empty_reference() -> None:
    hyps, refs = ["a b c", "d e"], ["", "d e"]
    proc = run("-f", "jsonl", input=paste(hyps, refs))
    (record,) = json_records(proc.stdout)
    expected = BLEU().corpus_score(hyps, [refs])
    assert record["ref_len"] == expected.ref_len == 2
    assert record["score"] == expected.score


def test_lines_end_at_newline_only() -> None:
    text = "a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i\rj\tA B C D\n"
    proc = run("-f", "jsonl", "-tok", "none", input=text)
    (record,) = json_records(proc.stdout)
    assert record["segments"] == 1
    hyp = "a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i\rj"
    expected = BLEU(tokenize="none").corpus_score([hyp], [["A B C D"]])
    assert record["hyp_len"] == expected.sys_len


def test_examples_directory_scores() -> None:
    proc = run(EXAMPLES / "ref.en", EXAMPLES / "ref2.en", "-i", EXAMPLES / "hyp.en")
    assert_clean_stderr(proc)
    hyps = (EXAMPLES / "hyp.en").read_text().splitlines()
    refs = [(EXAMPLES / n).read_text().splitlines() for n in ("ref.en", "ref2.en")]
    assert proc.stdout.decode() == sacre_line(hyps, refs) + "\n"


def test_console_script_is_installed() -> None:
    assert COMMAND, "no command to run"
    proc = run("-h")
    assert proc.returncode == 0
    assert b"exit status" in proc.stdout
