"""Self-BLEU against its oracles, pair by pair: NLTK's ``sentence_bleu``
(Texygen's convention) and SacreBLEU's ``sentence_bleu``, each sentence
scored against all the others.

The oracles are computed here the slow way, O(n²) sentence BLEUs, on
generated text with repeats, empty lines and duplicate sentences, and on
the first lines of the real sets; bleustream's values, through the
``bleustream`` command, must be equal (not merely close).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

from bleustream.metrics import self_bleu
from tests.conftest import real_sets, require_real_data
from tests.helpers.clirun import assert_clean_stderr, run

METHOD1 = SmoothingFunction().method1


def nltk_values(lines: Sequence[str], order: int = 4) -> list[float]:
    """Texygen's Self-BLEU, as Texygen computes it: NLTK against the others."""
    tokens = [line.split() for line in lines]
    weights = tuple(1.0 / order for _ in range(order))
    return [
        sentence_bleu(tokens[:i] + tokens[i + 1 :], tokens[i], weights, smoothing_function=METHOD1)
        for i in range(len(tokens))
    ]


def sacrebleu_values(lines: Sequence[str], **kwargs: object) -> list[float]:
    return [
        sacrebleu.sentence_bleu(lines[i], [*lines[:i], *lines[i + 1 :]], **kwargs).score  # type: ignore[arg-type]
        for i in range(len(lines))
    ]


def command_values(lines: Sequence[str], *args: str) -> tuple[list[float], float, list[int]]:
    """Per-sentence values, the mean and the line numbers of ``-sl -f jsonl``."""
    proc = run("--no-config", *args, "-sl", "-f", "jsonl", input="".join(f"{x}\n" for x in lines))
    assert proc.returncode == 0, proc.stderr
    assert_clean_stderr(proc)
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    segments = [r for r in records if r["type"] == "segment"]
    (corpus,) = [r for r in records if r["type"] == "corpus"]
    return [r["score"] for r in segments], corpus["score"], [r["line"] for r in segments]


WORDS = ["a", "b", "c", "0", "the", ".", ",", "Ü", "日本", "a.b", "--", "&amp;", "x"]
SENTENCE = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
SETS = st.lists(SENTENCE, min_size=2, max_size=25).flatmap(
    # repeats: some sentences again, verbatim
    lambda xs: st.lists(st.sampled_from(xs), max_size=6).map(lambda extra: xs + extra)
)
EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@EXAMPLES
@given(SETS, st.integers(1, 5))
@pytest.mark.slow
def test_texygen_values_are_nltks_against_the_others(lines: list[str], order: int) -> None:
    """Every value and the mean equal NLTK's, bit for bit, at every order."""
    expected = nltk_values(lines, order)
    settings_ = self_bleu.Settings(max_order=order, bleu=self_bleu.bleu.Settings(max_order=order))
    assert self_bleu.self_bleu(lines, settings_) == expected
    values, mean, numbers = command_values(
        lines, "--self-bleu", "texygen", "--max-ngram-order", str(order)
    )
    assert values == expected
    assert mean == sum(expected) / len(expected)  # Texygen's mean
    assert numbers == list(range(1, len(lines) + 1))


@EXAMPLES
@given(SETS)
@pytest.mark.slow
def test_sacrebleu_values_are_sentence_bleu_against_the_others(lines: list[str]) -> None:
    expected = sacrebleu_values(lines)
    values, mean, _ = command_values(lines, "--self-bleu", "sacrebleu")
    assert values == expected
    assert mean == sum(expected) / len(expected)


@pytest.mark.parametrize(
    "flags, kwargs",
    [
        (["-tok", "none"], {"tokenize": "none"}),
        (["-tok", "intl", "-lc"], {"tokenize": "intl", "lowercase": True}),
        (["-s", "floor", "-sv", "0.3"], {"smooth_method": "floor", "smooth_value": 0.3}),
        (["-s", "add-k"], {"smooth_method": "add-k"}),
        (["-tok", "char"], {"tokenize": "char"}),
    ],
    ids=lambda x: " ".join(x) if isinstance(x, list) else "",
)
def test_sacrebleu_takes_bleus_tokenizers_and_smoothing(
    flags: list[str], kwargs: dict[str, object]
) -> None:
    rng = random.Random(7)
    lines = [" ".join(rng.choices(WORDS, k=rng.randint(0, 9))) for _ in range(40)]
    lines += lines[:3]
    expected = sacrebleu_values(lines, **kwargs)
    values, _, _ = command_values(lines, "--self-bleu", "sacrebleu", *flags)
    assert values == expected


REAL_LINES = 120  # pair by pair, the oracles take seconds at this size


@pytest.mark.parametrize(
    "name", ["sacrebleu-wmt17-en-de", "wmt21-en-zh", "compare-mt-ted-slk-en-detok"]
)
def test_real_sets_are_the_oracles(name: str) -> None:
    require_real_data()
    real = next(s for s in real_sets() if s.name == name)
    lines = real.hyps[0].read_text(encoding="utf-8").split("\n")[:REAL_LINES]
    values, mean, _ = command_values(lines, "--self-bleu", "texygen")
    assert values == nltk_values(lines)
    tokenize = "zh" if real.trg == "zh" else "13a"
    values, mean, _ = command_values(lines, "--self-bleu", "sacrebleu", "-tok", tokenize)
    expected = sacrebleu_values(lines, tokenize=tokenize)
    assert values == expected
    assert mean == sum(expected) / len(expected)


def test_a_sample_is_the_self_bleu_of_the_sentences_drawn(tmp_path: Path) -> None:
    """``--sample N``: N sentences drawn with the seed, each scored against the
    other N-1; the same seed draws the same, another seed others."""
    rng = random.Random(3)
    lines = [" ".join(rng.choices(WORDS, k=rng.randint(1, 9))) for _ in range(300)]
    values, _, numbers = command_values(lines, "--self-bleu", "texygen", "--sample", "40")
    assert len(numbers) == 40 and numbers == sorted(set(numbers))
    drawn = [lines[n - 1] for n in numbers]
    assert values == nltk_values(drawn)
    again = command_values(lines, "--self-bleu", "texygen", "--sample", "40")
    assert again[2] == numbers
    other = command_values(lines, "--self-bleu", "texygen", "--sample", "40", "--seed", "7")
    assert other[2] != numbers
    everything = command_values(lines[:30], "--self-bleu", "texygen", "--sample", "40")
    assert everything[0] == nltk_values(lines[:30])
    proc = run("--no-config", "--self-bleu", "texygen", "--sample", "40", input="a\nb\n")
    assert b"|sample:40|seed:12345|" in proc.stdout


def test_a_column_of_a_paste_stream_and_several_files(tmp_path: Path) -> None:
    rng = random.Random(5)
    first = [" ".join(rng.choices(WORDS, k=rng.randint(0, 8))) for _ in range(50)]
    second = [" ".join(rng.choices(WORDS, k=rng.randint(0, 8))) for _ in range(30)]
    pasted = "".join(f"ref {i}\t{line}\n" for i, line in enumerate(first))
    proc = run(
        "--no-config", "--self-bleu", "texygen", "--self-bleu-column", "2", "-b", input=pasted
    )
    assert proc.returncode == 0, proc.stderr
    expected = nltk_values(first)
    assert proc.stdout == f"{sum(expected) / len(expected):.4f}\n".encode()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(f"{x}\n" for x in first), encoding="utf-8")
    b.write_text("".join(f"{x}\n" for x in second), encoding="utf-8")
    proc = run("--no-config", "--self-bleu", "texygen", "-i", str(a), str(b), "-f", "jsonl")
    assert proc.returncode == 0, proc.stderr
    scores = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [s["system"] for s in scores] == [str(a), str(b)]
    assert [s["score"] for s in scores] == [
        sum(v) / len(v) for v in (nltk_values(first), nltk_values(second))
    ]


def test_the_outputs_name_the_convention() -> None:
    text = "a b c\na b d\nc d e\n"
    proc = run("--no-config", "--self-bleu", "texygen", input=text)
    value = sum(nltk_values(text.splitlines())) / 3
    assert proc.stdout.decode() == (
        "SelfBLEU|conv:texygen|tok:white|smooth:method1|order:4|version:bleustream-0.2.0 = "
        f"{value:.4f} (sentences = 3)\n"
    )
    proc = run("--no-config", "--self-bleu", "sacrebleu", "-f", "tsv", input=text)
    header, row = proc.stdout.decode().splitlines()
    assert header.split("\t")[:4] == ["kind", "line", "id", "self_bleu"]
    assert row.split("\t")[3] == repr(sum(sacrebleu_values(text.splitlines())) / 3)
    proc = run("--no-config", "--self-bleu", "sacrebleu", "--short", input=text)
    assert proc.stdout.startswith(b"SelfBLEU|cv:sacrebleu|c:mixed|tok:13a|s:exp|order:4|v:")


def test_with_j_the_numbers_do_not_change() -> None:
    text = "".join(f"w{i % 7} w{i % 5} x{i % 3}\n" for i in range(200))
    one = run("--no-config", "--self-bleu", "texygen", "-sl", input=text)
    two = run("--no-config", "--self-bleu", "texygen", "-sl", "-j", "2", input=text)
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout


def test_nltk_tokenization_is_word_tokenize_or_says_what_is_missing() -> None:
    """``-tok nltk`` is Texygen's ``nltk.word_tokenize``; without NLTK's Punkt
    data it is one line saying how to get it, status 2."""
    import nltk

    lines = ["Hello, world. It's me.", "Hello world!", "It is (not) me."]
    proc = run("--no-config", "--self-bleu", "texygen", "-tok", "nltk", "-sl", "-f", "jsonl",
               input="".join(f"{x}\n" for x in lines))  # fmt: skip
    try:
        tokens = [nltk.word_tokenize(line) for line in lines]
    except LookupError:
        assert proc.returncode == 2
        assert proc.stderr == (
            b"bleustream: -tok nltk needs NLTK's Punkt data: python -m nltk.downloader punkt_tab\n"
        )
        return
    assert proc.returncode == 0, proc.stderr
    values = [json.loads(r)["score"] for r in proc.stdout.splitlines()][:-1]
    weights = (0.25,) * 4
    assert values == [
        sentence_bleu(tokens[:i] + tokens[i + 1 :], tokens[i], weights, smoothing_function=METHOD1)
        for i in range(3)
    ]


@pytest.mark.parametrize(
    "args, stdin, status, message",
    [
        (["--self-bleu", "texygen"], "one line\n", 65,
         "bleustream: <stdin>: one sentence: Self-BLEU scores each sentence against the "
         "others, so it needs at least two"),
        (["--self-bleu", "texygen"], "", 65,
         "bleustream: <stdin>: no sentences: Self-BLEU scores each sentence against the "
         "others, so it needs at least two (--allow-empty scores 0)"),
        (["--self-bleu", "texygen", "ref.txt"], "a\nb\n", 2,
         "bleustream: Self-BLEU scores a set of sentences against each other: give them "
         "with -i FILE or on stdin, and no references"),
        (["--self-bleu", "texygen", "-lc"], "a\nb\n", 2,
         "bleustream: -lc is not Texygen's Self-BLEU (NLTK's sentence_bleu with method1); "
         "use --self-bleu sacrebleu"),
        (["--self-bleu", "texygen", "-tok", "13a"], "a\nb\n", 2,
         "bleustream: -m self-bleu: Texygen's Self-BLEU splits on white space (-tok none) "
         "or with NLTK's word_tokenize (-tok nltk), not -tok 13a"),
        (["--sample", "3"], "a\ta\n", 2, "bleustream: --sample is for --self-bleu"),
        (["--self-bleu", "texygen", "-m", "bleu"], "a\nb\n", 2,
         "bleustream: --self-bleu scores Self-BLEU alone: not with -m"),
        (["--self-bleu", "texygen", "-f", "stats"], "a\nb\n", 2, None),
        (["--self-bleu", "texygen", "--self-bleu-column", "2"], "a\tb\nc\n", 65,
         "bleustream: <stdin>:2: 1 tab-separated fields; --self-bleu-column 2 needs at least 2"),
        (["-m", "bleu", "-tok", "nltk"], "a\ta\n", 2,
         "bleustream: -m bleu: unknown tokenizer 'nltk'"),
    ],
)  # fmt: skip
def test_bad_use_is_one_line_and_a_status(
    args: list[str], stdin: str, status: int, message: str | None
) -> None:
    proc = run("--no-config", *args, input=stdin)
    assert proc.returncode == status, proc.stderr
    assert proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    if message is not None:
        assert lines[0] == message
    assert_clean_stderr(proc)


def test_empty_input_with_allow_empty_scores_0() -> None:
    proc = run("--no-config", "--self-bleu", "texygen", "--allow-empty", "-b", input="")
    assert (proc.returncode, proc.stdout) == (0, b"0.0000\n")


def test_memory_grows_with_the_set_only() -> None:
    """The table holds one entry per distinct n-gram: a set that repeats one
    sentence has a table of that sentence's n-grams."""
    table = self_bleu.OthersTable(4)
    for _ in range(1000):
        table.add([1, 2, 3, 4, 5])
    assert len(table.counts) == 5 + 4 + 3 + 2
    assert table.counts[(1, 2)] == [1, 1000, 0]
