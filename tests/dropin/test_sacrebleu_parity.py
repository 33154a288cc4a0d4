"""The drop-in as SacreBLEU's real clients call it, against SacreBLEU called here.

Every public attribute of SacreBLEU's ``BLEU``, ``CHRF`` and ``TER`` (and
of their score and signature objects) is on bleustream's, with equal
values; fairseq's ``EvaluationTokenizer`` and ``SacrebleuScorer`` calls,
reproduced, give SacreBLEU's results under ``install_as_sacrebleu()``;
invalid settings give SacreBLEU's result or its exception type, except
the differences listed (and documented); metric objects pickle through a
spawn-mode pool; ``python -m bleustream.dropin -m sacrebleu`` prints what
``python -m sacrebleu`` prints.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF, TER

import bleustream
import bleustream.sacrebleu.compat as ours_compat
from bleustream.metrics import BLEU as OurBLEU
from bleustream.metrics import CHRF as OurCHRF
from bleustream.metrics import TER as OurTER
from tests.dropin.child import run_child as _child
from tests.helpers.adversarial import Adversary
from tests.helpers.paths import ROOT

EXAMPLES = ROOT / "examples" / "data"
PLAIN = (int, float, str, bool, type(None))
LINES = ["Hello, world.", "  a\x0cb  c ", "&amp; <x> 3.5-4 x.y, 中文字 日本語 한국어", ""]


def _corpus(seed: int, n: int = 30, n_refs: int = 2) -> tuple[list[str], list[list[str]]]:
    hyps, streams = Adversary(seed).corpus(n, n_refs)
    return list(hyps), [list(stream) for stream in streams]


def _plain(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    return isinstance(value, PLAIN)


def _public(obj: Any) -> list[str]:
    return [name for name in dir(obj) if not name.startswith("_")]


def _same_public(ours: Any, theirs: Any, skip: tuple[str, ...] = ()) -> None:
    """Each public attribute of SacreBLEU's object is on ours; plain data equal."""
    missing = set(_public(theirs)) - set(_public(ours))
    assert not missing, (type(theirs).__name__, sorted(missing))
    for name in _public(theirs):
        value = getattr(theirs, name)
        if name in skip or callable(value) or not _plain(value):
            continue
        assert getattr(ours, name) == value, (type(theirs).__name__, name)


def _unversioned(info: dict[str, Any]) -> dict[str, Any]:
    """A signature's fields but its version, and but BLEU's ``order``, which
    bleustream adds when ``max_ngram_order`` is not 4 (a documented difference)."""
    return {key: value for key, value in info.items() if key not in ("version", "order")}


METRICS = [
    ("BLEU", {}),
    ("BLEU", {"tokenize": "intl", "lowercase": True, "smooth_method": "floor"}),
    ("BLEU", {"tokenize": "char", "max_ngram_order": 2, "effective_order": True}),
    ("BLEU", {"trg_lang": "zh"}),
    ("BLEU", {"tokenize": "none", "smooth_method": "add-k", "smooth_value": 2}),
    ("CHRF", {}),
    ("CHRF", {"word_order": 2, "beta": 1, "eps_smoothing": True}),
    ("CHRF", {"char_order": 4, "lowercase": True, "whitespace": True}),
    ("TER", {}),
    ("TER", {"normalized": True, "no_punct": True, "asian_support": True}),
    ("TER", {"case_sensitive": True}),
]
THEIRS: dict[str, Callable[..., Any]] = {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}
OURS: dict[str, Callable[..., Any]] = {"BLEU": OurBLEU, "CHRF": OurCHRF, "TER": OurTER}


@pytest.mark.parametrize(("name", "settings"), METRICS, ids=repr)
def test_every_public_attribute_of_sacrebleus_objects(name: str, settings: dict) -> None:
    """dir() of SacreBLEU's metric, score and signature objects against ours."""
    theirs, ours = THEIRS[name](**settings), OURS[name](**settings)
    _same_public(ours, theirs)
    if hasattr(theirs, "tokenizer"):  # BLEU's and TER's
        assert ours.tokenizer_signature == theirs.tokenizer_signature
        assert ours.tokenizer.signature() == theirs.tokenizer.signature()
        hyps, refs = _corpus(1, 40, 1)
        for line in [*LINES, *hyps, *refs[0]]:
            assert ours.tokenizer(line) == theirs.tokenizer(line), line
    hyps, refs = _corpus(2)
    for n_bootstrap in (1, 20):
        want = theirs.corpus_score(hyps, refs, n_bootstrap=n_bootstrap)
        got = ours.corpus_score(hyps, refs, n_bootstrap=n_bootstrap)
        _same_public(got, want)
        assert vars(got) == vars(want) and list(vars(got)) == list(vars(want))
        # SacreBLEU's types: np.float32 for chrF and TER after a bootstrap
        assert [type(v) for v in vars(got).values()] == [type(v) for v in vars(want).values()]
        their_sig, our_sig = theirs.get_signature(), ours.get_signature()
        _same_public(our_sig, their_sig, skip=("info",))
        assert _unversioned(our_sig.info) == _unversioned(their_sig.info)
        assert list(_unversioned(our_sig.info)) == list(_unversioned(their_sig.info))
        _same_public(ours, theirs)  # num_refs, n_bootstrap, seed after scoring
    sentence = ours.sentence_score(hyps[0], [refs[0][0]])
    assert vars(sentence) == vars(theirs.sentence_score(hyps[0], [refs[0][0]]))


def test_score_objects_keep_bleustreams_attributes_outside_vars() -> None:
    hyps, refs = _corpus(3)
    for made in (
        OurBLEU().corpus_score(hyps, refs),
        ours_compat.sentence_bleu(hyps[0], [refs[0][0]]),
        OurCHRF().corpus_score(hyps, refs),
        OurTER().corpus_score(hyps, refs),
    ):
        assert made.stats and made.signature.startswith("nrefs:")
        assert "stats" not in vars(made) and "signature" not in vars(made)
        back = pickle.loads(pickle.dumps(made))
        assert (back.stats, back.signature, vars(back)) == (made.stats, made.signature, vars(made))
    plain = bleustream.metrics.BLEUScore(1.0, [1], [2], [50.0], 1.0, 2, 2)
    assert (plain.stats, plain.signature) == ((), "")


# -- fairseq ------------------------------------------------------------------------

FAIRSEQ = """
import json, sys
import bleustream
if sys.argv[2] == "install":
    bleustream.install_as_sacrebleu()
import sacrebleu as sb

# fairseq/scoring/tokenizer.py, EvaluationTokenizer (fairseq's main branch,
# MIT licence), as fairseq writes it: its class-level SacreBLEU version
# check and tokenizer list, its calls of SacreBLEU, its own post-processing.
import unicodedata


class EvaluationTokenizer:
    SPACE = chr(32)
    SPACE_ESCAPE = chr(9601)
    SACREBLEU_V2_ABOVE = int(sb.__version__[0]) >= 2
    _ALL_TOKENIZER_TYPES = (
        sb.BLEU.TOKENIZERS if SACREBLEU_V2_ABOVE else ["none", "13a", "intl", "zh", "ja-mecab"]
    )

    def __init__(self, tokenizer_type="13a", lowercase=False, punctuation_removal=False,
                 character_tokenization=False):
        assert tokenizer_type in self._ALL_TOKENIZER_TYPES, (
            f"{tokenizer_type}, {self._ALL_TOKENIZER_TYPES}"
        )
        self.lowercase = lowercase
        self.punctuation_removal = punctuation_removal
        self.character_tokenization = character_tokenization
        if self.SACREBLEU_V2_ABOVE:
            self.tokenizer = sb.BLEU(tokenize=str(tokenizer_type)).tokenizer
        else:
            self.tokenizer = sb.tokenizers.TOKENIZERS[tokenizer_type]()

    @classmethod
    def remove_punctuation(cls, sent):
        return cls.SPACE.join(
            t for t in sent.split(cls.SPACE)
            if not all(unicodedata.category(c)[0] == "P" for c in t)
        )

    def tokenize(self, sent):
        tokenized = self.tokenizer(sent)
        if self.punctuation_removal:
            tokenized = self.remove_punctuation(tokenized)
        if self.character_tokenization:
            tokenized = self.SPACE.join(list(tokenized.replace(self.SPACE, self.SPACE_ESCAPE)))
        if self.lowercase:
            tokenized = tokenized.lower()
        return tokenized


hyps, refs, names = json.loads(sys.argv[1])
out = {
    "types": sorted(EvaluationTokenizer._ALL_TOKENIZER_TYPES),
    "v2": EvaluationTokenizer.SACREBLEU_V2_ABOVE,
}
for name in names:
    for flags in ((False, False, False), (True, True, False), (False, False, True)):
        tok = EvaluationTokenizer(name, *flags)
        out[f"{name}{flags}"] = [tok.tokenize(line) for line in hyps + refs]
    # fairseq/scoring/bleu.py, SacrebleuScorer: add_string tokenizes each
    # line with its EvaluationTokenizer, result_string and score call
    # corpus_bleu(pred, [ref], tokenize="none"), .format() and .score
    for char_level in (False, True):
        tok = EvaluationTokenizer(name, False, False, char_level)
        pred, ref = [tok.tokenize(h) for h in hyps], [tok.tokenize(r) for r in refs]
        score = sb.corpus_bleu(pred, [ref], tokenize="none")
        out[f"{name} {char_level} scorer"] = [score.format(), score.score]
    # and corpus_bleu with the tokenizer's own name
    score = sb.corpus_bleu(hyps, [refs], tokenize=name)
    out[f"{name} corpus"] = [score.format(), score.score]
out["module"] = sb.BLEU.__module__
print(json.dumps(out))
"""


def _runs_here(name: str) -> bool:
    """Whether SacreBLEU's tokenizer ``name`` runs on this machine (the
    SentencePiece ones download their models)."""
    try:
        BLEU(tokenize=name).tokenizer("a")
    except Exception:  # SacreBLEU's own failure says it cannot
        return False
    return True


def test_fairseqs_evaluation_tokenizer_and_scorer_under_the_install() -> None:
    """fairseq's ``--scoring sacrebleu``: its class-level version check and
    tokenizer list, ``sb.BLEU(tokenize=...).tokenizer`` and ``corpus_bleu``."""
    names = [name for name in BLEU.TOKENIZERS if _runs_here(name)]
    assert {"13a", "intl", "zh", "char", "none"} <= set(names)
    hyps, refs = _corpus(4, 40, 1)
    data = json.dumps([hyps + LINES, refs[0] + LINES, names])
    got, want = _child(FAIRSEQ, data, "install"), _child(FAIRSEQ, data, "real")
    assert got.pop("module") == "bleustream.metrics.metric_classes"
    assert want.pop("module") == "sacrebleu.metrics.bleu"
    for key in want:
        if key.endswith(("corpus", "scorer")):
            text, score = got[key]
            assert score == want[key][1], key
            assert text.replace("version:bleustream-", "version:") == want[key][0].replace(
                f"version:{sacrebleu.__version__}", f"version:{bleustream.__version__}"
            )
        else:
            assert got[key] == want[key], key


# -- settings: SacreBLEU's result, its exception type, or a listed difference -------

H = ["the cat sat on the mat .", "a b c d e"]
R = [["the cat is on the mat .", "a b d c e"]]

CALLS: list[tuple[str, Callable[[Any], Any]]] = [
    ("corpus_bleu tokenize=None", lambda m: m.corpus_bleu(H, R, tokenize=None)),
    ("sentence_bleu tokenize=None", lambda m: m.sentence_bleu(H[0], [R[0][0]], tokenize=None)),
    ("sentence_bleu a None ref", lambda m: m.sentence_bleu(H[0], [R[0][0], None])),
    ("sentence_chrf a None ref", lambda m: m.sentence_chrf(H[0], [None, R[0][0]])),
    ("sentence_ter a None ref", lambda m: m.sentence_ter(H[0], [R[0][0], None])),
    ("sentence_bleu only None", lambda m: m.sentence_bleu(H[0], [None])),
    ("sentence_bleu no refs", lambda m: m.sentence_bleu(H[0], [])),
    ("corpus_bleu None ref", lambda m: m.corpus_bleu(H, [[None, R[0][1]]])),
    ("corpus_bleu None among refs", lambda m: m.corpus_bleu(H, [R[0], [None, "a b"]])),
    ("corpus_bleu None hyp", lambda m: m.corpus_bleu([None, H[1]], R)),
    ("corpus_bleu max_ngram_order=1.5", lambda m: m.corpus_bleu(H, R, max_ngram_order=1.5)),
    ("corpus_bleu smooth bogus", lambda m: m.corpus_bleu(H, R, smooth_method="bogus")),
    ("corpus_bleu tokenize bogus", lambda m: m.corpus_bleu(H, R, tokenize="bogus")),
    ("corpus_chrf beta='2'", lambda m: m.corpus_chrf(H, R, beta="2")),
    ("corpus_chrf char_order=None", lambda m: m.corpus_chrf(H, R, char_order=None)),
]
SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("BLEU", {"tokenize": None}),
    ("BLEU", {"trg_lang": "ja", "tokenize": None}),
    ("BLEU", {"max_ngram_order": 5}),
    ("BLEU", {"max_ngram_order": 1.5}),
    ("BLEU", {"max_ngram_order": "4"}),
    ("BLEU", {"smooth_method": "floor", "smooth_value": 0}),
    ("BLEU", {"smooth_method": "bogus"}),
    ("BLEU", {"smooth_method": None}),
    ("BLEU", {"tokenize": "bogus"}),
    ("BLEU", {"tokenize": 5}),
    ("BLEU", {"trg_lang": None}),
    ("CHRF", {"beta": 0}),
    ("CHRF", {"char_order": 0, "word_order": 2}),
    ("CHRF", {"word_order": 3}),
    ("CHRF", {"char_order": 1.5}),
    ("CHRF", {"beta": "2"}),
    ("CHRF", {"beta": None}),
    ("CHRF", {"char_order": None}),
    ("TER", {"normalized": "yes"}),
]
# What SacreBLEU scores and bleustream refuses with a ValueError naming the
# setting: docs/sacrebleu-differences.md ("Settings SacreBLEU scores").
DIFFERENCES: list[tuple[str, dict[str, Any], str]] = [
    ("BLEU", {"max_ngram_order": 0}, "maximum n-gram order"),
    ("BLEU", {"max_ngram_order": -1}, "maximum n-gram order"),
    ("BLEU", {"smooth_method": "add-k", "smooth_value": -1}, "smoothing value"),
    ("BLEU", {"smooth_method": "floor", "smooth_value": -1}, "smoothing value"),
    ("BLEU", {"smooth_method": "floor", "smooth_value": "x"}, "smoothing value"),
    ("CHRF", {"beta": 0.5}, "beta"),
    ("CHRF", {"beta": 1.5}, "beta"),
    ("CHRF", {"beta": -1}, "beta"),
    ("CHRF", {"word_order": -1}, "word_order"),
    ("CHRF", {"char_order": -1}, "char_order"),
    ("CHRF", {"char_order": 0}, "orders cannot both be 0"),
]


def _outcome(call: Callable[[], Any]) -> Any:
    logging.disable(logging.WARNING)
    try:
        result = call()
    except Exception as exc:  # the exception is the outcome compared
        return exc
    finally:
        logging.disable(logging.NOTSET)
    return result


def _same_outcome(got: Any, want: Any, what: str) -> None:
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (what, got, want)
        assert isinstance(got, (TypeError, ValueError)), what  # bleustream's kinds too
    else:
        assert not isinstance(got, Exception), (what, got, want)
        assert vars(got) == vars(want), what


@pytest.mark.parametrize(("what", "call"), CALLS, ids=[c[0] for c in CALLS])
def test_compat_functions_as_sacrebleus(what: str, call: Callable[[Any], Any]) -> None:
    _same_outcome(_outcome(lambda: call(ours_compat)), _outcome(lambda: call(sacrebleu)), what)


def _scored(cls: Callable[..., Any], settings: dict[str, Any], how: str) -> Any:
    metric = cls(**settings)
    if how == "corpus":
        return metric.corpus_score(H, R)
    return metric.sentence_score(H[0], [R[0][0]])


@pytest.mark.parametrize("how", ["corpus", "sentence"])
@pytest.mark.parametrize(("name", "settings"), SETTINGS, ids=repr)
def test_metric_settings_as_sacrebleus(name: str, settings: dict, how: str) -> None:
    got = _outcome(lambda: _scored(OURS[name], settings, how))
    want = _outcome(lambda: _scored(THEIRS[name], settings, how))
    _same_outcome(got, want, f"{name}{settings} {how}")


@pytest.mark.parametrize(("name", "settings", "says"), DIFFERENCES, ids=repr)
def test_settings_sacrebleu_scores_and_bleustream_refuses(
    name: str, settings: dict, says: str
) -> None:
    """Each listed in docs/sacrebleu-differences.md: SacreBLEU scores the
    sentence, bleustream refuses the setting with a ValueError saying which."""
    doc = (ROOT / "docs" / "sacrebleu-differences.md").read_text(encoding="utf-8")
    key, value = next(iter(settings.items())) if len(settings) == 1 else list(settings.items())[1]
    assert f"`{key}={value!r}`" in doc
    want = _outcome(lambda: _scored(THEIRS[name], settings, "sentence"))
    assert not isinstance(want, Exception), want
    got = _outcome(lambda: _scored(OURS[name], settings, "sentence"))
    assert type(got) is ValueError and says in str(got), got


# -- pickling, through a spawn-mode pool --------------------------------------------

POOL = """
import json, multiprocessing, sys
import bleustream
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF, TER


def where(_):
    import sacrebleu
    return sacrebleu.__name__


if __name__ == "__main__":
    hyps, refs = json.loads(sys.argv[1])
    out = {"parent": sacrebleu.__name__}
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2, initializer=bleustream.install_as_sacrebleu) as pool:
        out["children"] = sorted(set(pool.map(where, range(4))))
        for metric in (BLEU(tokenize="intl"), CHRF(word_order=2), TER(normalized=True),
                       BLEU(references=[refs])):
            scores = pool.starmap(metric.sentence_score, [(h, [r]) for h, r in zip(hyps, refs)])
            out[repr(metric)] = [[type(s).__module__, vars(s)] for s in scores]
    print(json.dumps(out))
"""


def test_metric_objects_pickle_through_a_spawn_pool(tmp_path: Path) -> None:
    hyps, refs = _corpus(5, 12, 1)
    script = tmp_path / "pool.py"
    script.write_text(POOL, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bleustream.dropin", str(script), json.dumps([hyps, refs[0]])],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got.pop("parent") == "bleustream.sacrebleu"
    assert got.pop("children") == ["bleustream.sacrebleu"]
    logging.disable(logging.WARNING)
    try:
        metrics = (BLEU(tokenize="intl"), CHRF(word_order=2), TER(normalized=True), BLEU())
        for (label, scores), metric in zip(got.items(), metrics):
            for (module, values), hyp, ref in zip(scores, hyps, refs[0]):
                assert module == "bleustream.metrics.scores", label
                assert values == json.loads(json.dumps(vars(metric.sentence_score(hyp, [ref]))))
    finally:
        logging.disable(logging.NOTSET)


def test_a_pickled_metric_keeps_its_settings_and_cached_references() -> None:
    hyps, refs = _corpus(6, 20, 2)
    for metric, theirs in (
        (OurBLEU(tokenize="char", references=refs), BLEU(tokenize="char", references=refs)),
        (OurCHRF(word_order=2, references=refs), CHRF(word_order=2, references=refs)),
        (OurTER(asian_support=True, references=refs), TER(asian_support=True, references=refs)),
    ):
        metric.tokenizer if hasattr(metric, "tokenizer") else None  # a made tokenizer too
        back = pickle.loads(pickle.dumps(metric))
        assert vars(back.corpus_score(hyps, None)) == vars(theirs.corpus_score(hyps, None))
        assert str(back.get_signature()) == str(metric.get_signature())


# -- python -m sacrebleu under the drop-in ---------------------------------------------

COMMANDS = [
    ["ref.de", "-i", "hyp.de"],
    ["ref.de", "-i", "hyp.de", "-m", "bleu", "chrf", "ter", "-f", "text"],
    ["ref.de", "-i", "hyp.de", "online-b.de", "-m", "bleu", "chrf"],
    ["ref.de", "-i", "hyp.de", "-b", "-m", "chrf", "--chrf-word-order", "2"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_python_m_sacrebleu_under_the_dropin(args: list[str]) -> None:
    """SacreBLEU's command line through the drop-in: its standard output,
    byte for byte but the version."""

    def run(*command: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, *command, *args],
            cwd=EXAMPLES,
            capture_output=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )

    want = run("-m", "sacrebleu")
    for how in ("sacrebleu", "sacrebleu.sacrebleu"):
        got = run("-m", "bleustream.dropin", "-m", how)
        assert got.returncode == want.returncode == 0, got.stderr
        ours = got.stdout.replace(f"bleustream-{bleustream.__version__}".encode(), b"VERSION")
        theirs = want.stdout.replace(sacrebleu.__version__.encode(), b"VERSION")
        assert ours == theirs and theirs


def test_numpy_scalars_of_a_bootstrap_print_as_sacrebleus() -> None:
    hyps, refs = _corpus(7, 30, 1)
    for ours, theirs in ((OurCHRF(), CHRF()), (OurTER(), TER())):
        got, want = ours.corpus_score(hyps, refs, 30), theirs.corpus_score(hyps, refs, 30)
        assert type(got._mean) is type(want._mean) is np.float32
        assert (repr(got._mean), repr(got._ci)) == (repr(want._mean), repr(want._ci))
        assert got.format(width=4) == want.format(width=4)
