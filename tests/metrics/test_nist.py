"""NIST against the numbers Moses' mteval-v13a.pl printed.

``tests/data/nist/<set>/expected.json`` holds, per variant (default, ``-c``,
``--international-tokenization``, both), what ``mteval-v13a.pl -n -d 2``
printed (4 decimals) and, from a copy printing ``%.17g``, the unrounded
system, document and segment scores.  The hand-made sets keep their text
beside it; the sets cut from the shared WMT data keep only the numbers and
``source.json``, which names the files and how many of their first lines
were scored: those tests skip where the shared data is absent.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from bleustream.metrics import nist
from bleustream.tokenizers.mteval import mteval_words
from tests.conftest import (
    REAL_DATA,
    REAL_DATA_MISSING,
    real_data_present,
    real_sets,
    require_real_data,
)
from tests.helpers.clirun import run
from tests.helpers.paths import TEST_DATA

DATA = TEST_DATA / "nist"
SETS = sorted(p.name for p in DATA.iterdir() if p.is_dir())
VARIANTS = {
    "default": ("13a", False),
    "case": ("13a", True),
    "intl": ("intl", False),
    "intl_case": ("intl", True),
}
CLI_FLAGS = {
    "default": [],
    "case": ["--nist-case-sensitive"],
    "intl": ["-tok", "intl"],
    "intl_case": ["-tok", "intl", "--nist-case-sensitive"],
}


def read_lines(path: Path, limit: int | None = None) -> list[str]:
    """Lines split at \\n only, as the fixtures were written and mteval read them."""
    with path.open(encoding="utf-8", newline="") as stream:
        text = stream.read()
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n")
    return lines if limit is None else lines[:limit]


def load(name: str) -> tuple[list[list[str]], dict[str, list[str]], list[str] | None, Any]:
    """A set's references, systems, document ids and expected numbers."""
    directory = DATA / name
    expected = json.loads((directory / "expected.json").read_text(encoding="utf-8"))
    source_file = directory / "source.json"
    if source_file.exists():
        if not real_data_present():
            pytest.skip(REAL_DATA_MISSING)
        source = json.loads(source_file.read_text(encoding="utf-8"))
        base, n = REAL_DATA / source["set"], source["lines"]
        refs = [read_lines(base / ref, n) for ref in source["refs"]]
        hyps = {name: read_lines(base / path, n) for name, path in source["hyps"].items()}
        docids = [source["doc_format"].format(i // source["docs_every"]) for i in range(n)]
        return refs, hyps, docids, expected
    refs = [read_lines(p) for p in sorted(directory.glob("ref.*.txt"))]
    hyps = {p.name[4:-4]: read_lines(p) for p in sorted(directory.glob("hyp.*.txt"))}
    docs = directory / "docids.txt"
    return refs, hyps, read_lines(docs) if docs.exists() else None, expected


CASES = [(name, variant) for name in SETS for variant in VARIANTS]


@pytest.mark.parametrize(("name", "variant"), CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_equals_mteval(name: str, variant: str) -> None:
    refs, hyps, docids, expected = load(name)
    want = expected["variants"][variant]
    tokenize, case = VARIANTS[variant]
    settings = nist.Settings(case_sensitive=case, tokenize=tokenize)
    if want["rc"] != 0:
        assert "division by zero" in want["stderr"]
        with pytest.raises(nist.EmptyReferences):
            nist.corpus_nist(next(iter(hyps.values())), refs, settings, docids)
        return
    for system, numbers in want["systems"].items():
        result = nist.corpus_nist(hyps[system], refs, settings, docids)
        assert f"{result.system.score:2.4f}" == numbers["nist"]
        assert result.system.score == pytest.approx(numbers["nist_exact"], abs=1e-9, rel=0)
        assert [f"{x:2.4f}" for x in result.system.cumulative[:5]] == numbers["cum_1_5"]
        assert [f"{x:2.4f}" for x in result.system.individual[:5]] == numbers["ind_1_5"]
        assert list(result.docs) == list(numbers["docs_exact"])  # string order of the ids
        for doc, value in numbers["docs_exact"].items():
            assert result.docs[doc].score == pytest.approx(value, abs=1e-9, rel=0)
        got = [s.score for s in result.segments]
        assert got == pytest.approx(numbers["segments_exact"], abs=1e-9, rel=0)
        assert [s.hyp_len for s in result.segments] == numbers["segment_words"]


def test_zero_quirk_weighs_bigrams_of_0_against_all_words() -> None:
    table = nist.RefTable(5)
    table.add([["0", "x", "0", "y"], ["a", "x"]])
    assert table.info("0 x") == -math.log2(1 / 6)  # not 1/2, the count of "0"
    assert table.info("a x") == -math.log2(1 / 1)
    assert table.info("x") == -math.log2(2 / 6)


def test_tables_of_shards_merge() -> None:
    refs, _, _, _ = load("hand_multi")
    words = nist.words_of(nist.DEFAULT_SETTINGS)
    whole, first, second = nist.RefTable(), nist.RefTable(), nist.RefTable()
    for i in range(len(refs[0])):
        seg = [words(stream[i]) for stream in refs]
        whole.add(seg)
        (first if i < 4 else second).add(seg)
    merged = first + second
    assert merged.counts == whole.counts and merged.words == whole.words


def test_ascii_only_lowercasing_and_perl_whitespace() -> None:
    assert mteval_words("ÀB Cd") == ["Àb", "cd"]
    assert mteval_words("ÀB Cd", international=True) == ["àb", "cd"]
    assert mteval_words("a\x1cb") == ["a\x1cb"]  # Perl's \s does not hold \x1c
    assert mteval_words("a\u00a0b") == ["a", "b"]
    assert mteval_words("&amp;lt;") == ["&", "amp", ";", "lt", ";"]
    assert mteval_words("x &lt; y") == ["x", "<", "y"]


@pytest.mark.parametrize("variant", ["default", "case"])
def test_nltk_agrees_with_one_reference(variant: str) -> None:
    """NLTK's corpus_nist on mteval's words, one reference: equal on real text.

    It is not on the hand-made sets, which were written to hit mteval's
    quirks (NLTK weighs a bigram ``0 x`` by the count of ``0``), nor with
    several references (NLTK fails dividing by zero on zero_quirk).
    """
    translate = pytest.importorskip("nltk.translate.nist_score")
    refs, hyps, _, expected = load("wmt17_en_de_150")
    words = nist.words_of(nist.Settings(case_sensitive=variant == "case"))
    for system, numbers in expected["variants"][variant]["systems"].items():
        hyp_words = [words(h) for h in hyps[system]]
        ref_words = [[words(r)] for r in refs[0]]
        got = translate.corpus_nist(ref_words, hyp_words, n=5)
        assert got == pytest.approx(numbers["nist_exact"], abs=1e-9)


# ----------------------------------------------------------------------------
# The command line
# ----------------------------------------------------------------------------


def _cli(name: str, variant: str, tmp_path: Path, *extra: str) -> tuple[Any, Any, list[str]]:
    refs, hyps, _, expected = load(name)
    ref_files = []
    for k, stream in enumerate(refs):
        path = tmp_path / f"ref{k}.txt"
        path.write_text("\n".join(stream) + "\n", encoding="utf-8")
        ref_files.append(str(path))
    hyp_files = []
    for system, lines in hyps.items():
        path = tmp_path / f"{system}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        hyp_files.append(str(path))
    args = [*ref_files, "-m", "nist", *CLI_FLAGS[variant], *extra, "-i", *hyp_files]
    return run(*args), expected["variants"][variant], list(hyps)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_cli_json_corpus_and_segments(variant: str, tmp_path: Path) -> None:
    proc, want, _ = _cli("hand_multi", variant, tmp_path, "-f", "jsonl", "-sl")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    for system, numbers in want["systems"].items():
        mine = [r for r in records if r["system"].endswith(f"{system}.txt")]
        corpus = [r for r in mine if r["type"] == "corpus"]
        segments = [r["score"] for r in mine if r["type"] == "segment"]
        assert corpus[0]["score"] == pytest.approx(numbers["nist_exact"], abs=1e-9, rel=0)
        assert segments == pytest.approx(numbers["segments_exact"], abs=1e-9, rel=0)
        assert corpus[0]["signature"].startswith("nrefs:3|case:")
        assert corpus[0]["signature"].split("|")[3] == "order:5"


def test_cli_text_signature(tmp_path: Path) -> None:
    proc, want, _ = _cli("hand_single", "default", tmp_path, "-w", "4")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    assert "nrefs:1|case:lc|tok:mteval-13a|order:5|version:" in text
    for numbers in want["systems"].values():
        assert numbers["nist"] in text


def test_cli_tsv(tmp_path: Path) -> None:
    proc, want, _ = _cli("zero_quirk", "case", tmp_path, "-f", "tsv")
    assert proc.returncode == 0, proc.stderr
    header, *rows = proc.stdout.decode().splitlines()
    column = header.split("\t").index("nist")
    got = [float(row.split("\t")[column]) for row in rows]
    wanted = [numbers["nist_exact"] for numbers in want["systems"].values()]
    assert got == pytest.approx(wanted, abs=1e-9, rel=0)


def test_cli_empty_references_are_a_located_data_error(tmp_path: Path) -> None:
    proc, _, _ = _cli("empty_refs", "default", tmp_path)
    assert proc.returncode == 65
    message = proc.stderr.decode().strip().splitlines()
    assert len(message) == 1 and ".txt:2: " in message[0] and "empty" in message[0]


def test_cli_real_data(tmp_path: Path) -> None:
    proc, want, _ = _cli("wmt21_en_de_ACD_60", "default", tmp_path, "-f", "jsonl")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    # One document on the command line: the system score of all lines in order.
    refs, hyps, _, _ = load("wmt21_en_de_ACD_60")
    for record, system in zip(records, hyps):
        lib = nist.corpus_nist(hyps[system], refs).system.score
        assert record["score"] == lib
    assert len(want["systems"]) == len(records)


def test_cli_rejects_what_nist_cannot_do(tmp_path: Path) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text("a b\n", encoding="utf-8")
    refused = (
        ["-m", "nist", "bleu"],
        ["-m", "nist", "-tok", "zh"],
        ["-m", "nist", "-sl", "-f", "stats"],
    )
    for extra in refused:
        proc = run(str(ref), *extra, input=b"a b\n")
        assert proc.returncode == 2, (extra, proc.stderr)
        assert b"nist" in proc.stderr


# --------------------------------------------------------------------------
# Statistics that merge: -f stats shards, --input-format stats, -j N
# --------------------------------------------------------------------------


def _wmt17(tmp_path: Path, systems: int = 2) -> tuple[Path, list[Path]]:
    """The WMT17 en-de reference and systems (3004 lines: three -j blocks)."""
    require_real_data()
    real = next(s for s in real_sets() if s.name == "sacrebleu-wmt17-en-de")
    return real.refs[0], list(real.hyps[:systems])


def _shards(paths: list[Path], tmp_path: Path, cuts: tuple[int, ...]) -> list[list[Path]]:
    """Each file cut at the line numbers ``cuts``: one list of files per shard."""
    out: list[list[Path]] = []
    texts = [p.read_bytes().split(b"\n")[:-1] for p in paths]
    bounds = [0, *cuts, len(texts[0])]
    for k, (start, end) in enumerate(zip(bounds, bounds[1:])):
        shard = []
        for i, lines in enumerate(texts):
            path = tmp_path / f"shard{k}.{i}"
            path.write_bytes(b"".join(line + b"\n" for line in lines[start:end]))
            shard.append(path)
        out.append(shard)
    return out


@pytest.mark.parametrize("fmt", ["text", "jsonl", "tsv"])
@pytest.mark.slow
def test_shards_merge_to_the_numbers_of_one_run(tmp_path: Path, fmt: str) -> None:
    """-f stats of each shard, merged in any order, print what one run prints."""
    ref, hyps = _wmt17(tmp_path)
    whole = run(str(ref), "-m", "nist", "-f", fmt, "-i", *map(str, hyps))
    assert whole.returncode == 0, whole.stderr
    records = []
    for k, (shard_ref, *shard_hyps) in enumerate(_shards([ref, *hyps], tmp_path, (700, 2100))):
        proc = run(str(shard_ref), "-m", "nist", "-f", "stats", "-i", *map(str, shard_hyps))
        assert proc.returncode == 0, proc.stderr
        path = tmp_path / f"stats{k}.jsonl"
        # The systems are named as the whole run names them.
        text = proc.stdout.decode()
        for i, hyp in enumerate(hyps):
            text = text.replace(json.dumps(str(shard_hyps[i])), json.dumps(str(hyp)))
        path.write_text(text, encoding="utf-8")
        records.append(str(path))
    for order in (records, records[::-1]):
        merged = run("-m", "nist", "--input-format", "stats", "-f", fmt, *order)
        assert merged.returncode == 0, merged.stderr
        assert merged.stdout == whole.stdout


@pytest.mark.slow
def test_j_counts_blocks_on_workers_with_one_runs_numbers(tmp_path: Path) -> None:
    ref, hyps = _wmt17(tmp_path)
    for extra in ([], ["-f", "jsonl"], ["-tok", "intl", "--nist-case-sensitive"]):
        one = run(str(ref), "-m", "nist", *extra, "-i", *map(str, hyps))
        two = run(str(ref), "-m", "nist", *extra, "-j", "2", "-i", *map(str, hyps))
        assert one.returncode == two.returncode == 0, two.stderr
        assert two.stdout == one.stdout
    one = run(str(ref), "-m", "nist", "-sl", "-f", "tsv", "-i", str(hyps[0]))
    two = run(str(ref), "-m", "nist", "-sl", "-f", "tsv", "-j", "2", "-i", str(hyps[0]))
    assert two.stdout == one.stdout and one.stdout.count(b"\n") == 3004 + 2


@pytest.mark.slow
def test_j_finds_the_segment_with_no_reference_words(tmp_path: Path) -> None:
    ref, hyps = _wmt17(tmp_path, 1)
    lines = ref.read_bytes().split(b"\n")
    lines[2500] = b"   "
    empty = tmp_path / "ref"
    empty.write_bytes(b"\n".join(lines))
    for jobs in ("1", "2"):
        proc = run(str(empty), "-m", "nist", "-j", jobs, "-i", str(hyps[0]))
        assert (proc.returncode, proc.stdout) == (65, b"")
        assert proc.stderr.decode() == f"bleustream: {hyps[0]}:2501: {nist.EMPTY_REFERENCES}\n"


@pytest.mark.slow
def test_records_of_other_settings_or_metrics_are_refused_at_their_line(tmp_path: Path) -> None:
    ref, hyps = _wmt17(tmp_path, 1)
    stats = run(str(ref), "-m", "nist", "-f", "stats", "-i", str(hyps[0]))
    path = tmp_path / "nist.jsonl"
    path.write_bytes(b"\n" + stats.stdout)
    proc = run("-m", "nist", "--nist-order", "4", "--input-format", "stats", str(path))
    assert proc.returncode == 65
    assert proc.stderr.decode() == (
        f"bleustream: {path}:2: NIST statistics counted with order=5; order=4 was given (the "
        "records carry their counting settings: give the same, or none, to read them)\n"
    )
    bleu = tmp_path / "bleu.jsonl"
    bleu.write_bytes(run(str(ref), "-f", "stats", "-i", str(hyps[0])).stdout)
    proc = run("-m", "nist", "--input-format", "stats", str(bleu))
    assert proc.returncode == 65
    assert proc.stderr.decode().startswith(f"bleustream: {bleu}:1: these are statistics of 'bleu'")
    broken = tmp_path / "broken.jsonl"
    record = json.loads(stats.stdout)
    record["metrics"][0]["stats"]["matched"]["no such n-gram"] = 1
    broken.write_text(json.dumps(record) + "\n", encoding="utf-8")
    proc = run("-m", "nist", "--input-format", "stats", str(broken))
    assert proc.returncode == 65
    assert b"not in the reference table" in proc.stderr
    refused = run(str(ref), "-m", "nist", "-sl", "-f", "stats", "-i", str(hyps[0]))
    assert refused.returncode == 2 and b"not with -sl with statistics records" in refused.stderr


@pytest.mark.parametrize(
    "counting",
    [(), ("--nist-order", "4", "-tok", "intl", "--nist-case-sensitive")],
)
@pytest.mark.slow
def test_records_read_back_carry_their_settings(tmp_path: Path, counting: tuple[str, ...]) -> None:
    """Read back with nothing repeated (not even -m nist), the records give
    the numbers and signature of the run that wrote them; a counting option
    given that the records contradict is an error at the first record."""
    ref, hyps = _wmt17(tmp_path, 2)
    whole = run(str(ref), "-m", "nist", *counting, "-f", "jsonl", "-i", *map(str, hyps))
    assert whole.returncode == 0, whole.stderr
    shards = []
    for k, (shard_ref, *shard_hyps) in enumerate(_shards([ref, *hyps], tmp_path, (1500,))):
        proc = run(
            str(shard_ref), "-m", "nist", *counting, "-f", "stats", "-i", *map(str, shard_hyps)
        )
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout.decode()
        for i, hyp in enumerate(hyps):
            text = text.replace(json.dumps(str(shard_hyps[i])), json.dumps(str(hyp)))
        shards.append(tmp_path / f"stats{k}.jsonl")
        shards[-1].write_text(text, encoding="utf-8")
    for given in ((), ("-m", "nist"), ("-m", "nist", *counting)):
        merged = run("--input-format", "stats", *given, "-f", "jsonl", *map(str, shards))
        assert (merged.returncode, merged.stderr) == (0, b"")
        assert merged.stdout == whole.stdout
    piped = run(
        "--input-format", "stats", "-f", "jsonl", input=b"".join(map(Path.read_bytes, shards))
    )
    assert piped.stdout == whole.stdout
    for contradicting in (("--nist-order", "3"), ("-tok", "13a" if counting else "none")):
        proc = run("--input-format", "stats", *contradicting, *map(str, shards))
        assert (proc.returncode, proc.stdout) == (65, b"")
        (line,) = proc.stderr.decode().splitlines()
        assert line.startswith(f"bleustream: {shards[0]}:1: NIST statistics counted with ")
        assert "was given" in line


def _has_documents(name: str, variant: str) -> bool:
    """A set with document ids whose variant mteval scored (it dies on some)."""
    if not ((DATA / name / "docids.txt").exists() or (DATA / name / "source.json").exists()):
        return False
    expected = json.loads((DATA / name / "expected.json").read_text(encoding="utf-8"))
    return bool(expected["variants"][variant]["rc"] == 0)


DOC_CASES = [(n, v) for n in SETS for v in VARIANTS if _has_documents(n, v)]


@pytest.mark.parametrize(("name", "variant"), DOC_CASES, ids=[f"{n}-{v}" for n, v in DOC_CASES])
def test_cli_documents_are_mtevals(name: str, variant: str, tmp_path: Path) -> None:
    """--nist-docs: a record per document, in the ids' string order, each
    equal to mteval's -d document score."""
    _, _, docids, expected = load(name)
    want = expected["variants"][variant]
    assert docids is not None
    docs = tmp_path / "docids.txt"
    docs.write_text("".join(f"{d}\n" for d in docids), encoding="utf-8")
    proc, _, systems = _cli(name, variant, tmp_path, "-f", "jsonl", "--nist-docs", str(docs))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    for system in systems:
        mine = [
            r for r in records if r["type"] == "document" and r["system"].endswith(f"/{system}.txt")
        ]
        numbers = want["systems"][system]["docs_exact"]
        assert [r["id"] for r in mine] == list(numbers)
        for record in mine:
            assert record["score"] == pytest.approx(numbers[record["id"]], abs=1e-9, rel=0)


def test_cli_document_ids_that_end_early_are_a_located_error(tmp_path: Path) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\nb c d\nc d e\n", encoding="utf-8")
    docs = tmp_path / "docs.txt"
    docs.write_text("d1\nd1\n", encoding="utf-8")
    proc = run(str(ref), "-m", "nist", "--nist-docs", str(docs), input=b"a b c\nb c\nc d\n")
    assert (proc.returncode, proc.stdout) == (65, b"")
    assert proc.stderr.decode() == (
        f"bleustream: {docs}: the document ids end at line 2; the input has a line 3\n"
    )
