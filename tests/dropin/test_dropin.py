"""SacreBLEU's Python import paths on bleustream, and ``install_as_sacrebleu()``.

Each crash a SacreBLEU user met (``sacrebleu.compat`` through ``import
bleustream as sacrebleu``, ``from bleustream.sacrebleu.metrics.bleu import BLEU``,
``METRICS``, the ``tokenizer_*`` modules, a bootstrap from the classes
imported alone, ``trg_lang`` with another tokenizer, the version, the score
objects' ``vars()``) is called here through the path a user writes, and
compared with SacreBLEU called here.  What changes ``sys.modules`` (the
install, ``python -m bleustream.dropin``) runs in a child process.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF, TER

import bleustream
from tests.dropin import sacrebleu_user
from tests.dropin.child import run_child as _child
from tests.helpers.adversarial import Adversary
from tests.helpers.paths import ROOT


def _corpus(seed: int, n: int = 60, n_refs: int = 2) -> tuple[list[str], list[list[str]]]:
    hyps, streams = Adversary(seed).corpus(n, n_refs)
    return list(hyps), [list(stream) for stream in streams]


def _same_vars(ours: Any, theirs: Any) -> None:
    """SacreBLEU's attributes alone, in its order and with its values
    (bleustream's ``stats`` and ``signature`` are slots, outside ``vars()``)."""
    assert list(vars(ours)) == list(vars(theirs))
    assert vars(ours) == vars(theirs)
    assert isinstance(ours.stats, tuple) and isinstance(ours.signature, str)


# -- the crashes, through the paths a user writes ---------------------------------


def test_compat_through_the_package_alias() -> None:
    import bleustream as alias

    hyps, refs = _corpus(1)
    for i in range(10):
        ours = alias.compat.sentence_bleu(hyps[i], [r[i] for r in refs])
        theirs = sacrebleu.compat.sentence_bleu(hyps[i], [r[i] for r in refs])
        _same_vars(ours, theirs)
    assert alias.compat.corpus_chrf(hyps, refs).score == sacrebleu.corpus_chrf(hyps, refs).score
    assert alias.compat.corpus_ter(hyps, refs).score == sacrebleu.corpus_ter(hyps, refs).score


def test_metric_modules_give_sacrebleus_names() -> None:
    from sacrebleu.metrics import METRICS as THEIRS
    from sacrebleu.metrics.bleu import MAX_NGRAM_ORDER as THEIR_MAX

    from bleustream.metrics import METRICS
    from bleustream.sacrebleu.metrics.bleu import BLEU as OurBLEU
    from bleustream.sacrebleu.metrics.bleu import MAX_NGRAM_ORDER, BLEUScore
    from bleustream.sacrebleu.metrics.chrf import CHRF as OurCHRF
    from bleustream.sacrebleu.metrics.ter import TER as OurTER

    assert list(METRICS) == list(THEIRS) and MAX_NGRAM_ORDER == THEIR_MAX
    hyps, refs = _corpus(2)
    score = OurBLEU(tokenize="intl").corpus_score(hyps, refs)
    assert isinstance(score, BLEUScore)
    _same_vars(score, BLEU(tokenize="intl").corpus_score(hyps, refs))
    _same_vars(
        OurCHRF(word_order=2).corpus_score(hyps, refs), CHRF(word_order=2).corpus_score(hyps, refs)
    )
    _same_vars(
        OurTER(normalized=True).corpus_score(hyps, refs),
        TER(normalized=True).corpus_score(hyps, refs),
    )
    for name, cls in METRICS.items():
        assert cls().corpus_score(hyps, refs).score == THEIRS[name]().corpus_score(hyps, refs).score


def test_base_and_helpers_modules() -> None:
    import sacrebleu.metrics.helpers as theirs

    from bleustream.metrics.metric_classes import Metric
    from bleustream.sacrebleu.metrics import base, helpers

    assert base.Metric is Metric and base.Score is bleustream.metrics.Score
    for line in ["a b a b c", " x  y\tx y ", "", "ab c ab"]:
        for n in (1, 2, 3):
            words = line.split()
            assert helpers.extract_word_ngrams(words, n) == theirs.extract_word_ngrams(words, n)
            for ws in (False, True):
                got = helpers.extract_char_ngrams(line, n, ws)
                assert got == theirs.extract_char_ngrams(line, n, ws)
                got = helpers.extract_all_char_ngrams(line, n, ws)
                assert got == theirs.extract_all_char_ngrams(line, n, ws)
        assert helpers.extract_all_word_ngrams(line, 1, 4) == theirs.extract_all_word_ngrams(
            line, 1, 4
        )
    assert bleustream.extract_word_ngrams is helpers.extract_word_ngrams


TOKENIZERS = [
    ("tokenizer_13a", "Tokenizer13a", ()),
    ("tokenizer_intl", "TokenizerV14International", ()),
    ("tokenizer_zh", "TokenizerZh", ()),
    ("tokenizer_re", "TokenizerRegexp", ()),
    ("tokenizer_char", "TokenizerChar", ()),
    ("tokenizer_none", "NoneTokenizer", ()),
    ("tokenizer_ter", "TercomTokenizer", ()),
    ("tokenizer_ter", "TercomTokenizer", (True, True, True, True)),
    ("tokenizer_ja_mecab", "TokenizerJaMecab", ()),
    ("tokenizer_ko_mecab", "TokenizerKoMecab", ()),
]


@pytest.mark.parametrize(("module", "name", "args"), TOKENIZERS, ids=repr)
def test_tokenizer_modules_tokenize_as_sacrebleus(module: str, name: str, args: tuple) -> None:
    from bleustream.sacrebleu.tokenizers import BaseTokenizer

    home = importlib.import_module(f"bleustream.sacrebleu.tokenizers.{module}")
    ours = getattr(home, name)(*args)
    theirs = getattr(importlib.import_module(f"sacrebleu.tokenizers.{module}"), name)(*args)
    assert isinstance(ours, BaseTokenizer)
    assert ours.signature() == theirs.signature()
    hyps, refs = _corpus(3, 150, 1)
    lines = [*hyps, *refs[0], "", "  a\x0cb  c ", "&amp; <skipped> 3.5-4 x.y, 中文字"]
    assert [ours(line) for line in lines] == [theirs(line) for line in lines]


def test_spm_tokenizer_module_names() -> None:
    from sacrebleu.tokenizers import tokenizer_spm as theirs

    from bleustream.sacrebleu.tokenizers import tokenizer_spm as ours

    public = {n for n in dir(theirs) if n[0].isupper() or n.endswith("Tokenizer")}
    assert {
        "TokenizerSPM",
        "Flores101Tokenizer",
        "Flores200Tokenizer",
        "spBLEU1KTokenizer",
    } <= public
    for name in ("TokenizerSPM", "Flores101Tokenizer", "Flores200Tokenizer", "spBLEU1KTokenizer"):
        assert issubclass(getattr(ours, name), ours.TokenizerSPM)


BOOTSTRAP = """
import json, sys
from bleustream.metrics import BLEU, CHRF, TER
hyps, refs = json.loads(sys.argv[1])
out = []
for metric in (BLEU(), CHRF(word_order=2), TER()):
    score = metric.corpus_score(hyps, refs, n_bootstrap=int(sys.argv[2]))
    out.append([score.score, float(score._mean), float(score._ci), type(score._ci).__name__,
                str(metric.get_signature()), str(score)])
print(json.dumps([out, "bleustream.api" in sys.modules]))
"""


@pytest.mark.parametrize("seed", [None, "7", "012"])
def test_bootstrap_from_the_classes_imported_alone(seed: str | None, monkeypatch: Any) -> None:
    """``from bleustream.metrics import BLEU`` in a fresh process: the
    bootstrap runs, without bleustream.api, with SacreBLEU's numbers and seed."""
    hyps, refs = _corpus(4, 40)
    env = {} if seed is None else {"SACREBLEU_SEED": seed}
    if seed is None:
        monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    else:
        monkeypatch.setenv("SACREBLEU_SEED", seed)
    got, api_loaded = _child(BOOTSTRAP, json.dumps([hyps, refs]), "25", env=env)
    assert api_loaded is False
    for (score, mean, ci, kind, signature, text), metric in zip(
        got, (BLEU(), CHRF(word_order=2), TER())
    ):
        theirs = metric.corpus_score(hyps, refs, n_bootstrap=25)
        assert (score, mean, ci) == (theirs.score, float(theirs._mean), float(theirs._ci))
        assert kind == type(theirs._ci).__name__  # float32 for chrF and TER
        want = str(metric.get_signature())
        assert f"|bs:25|seed:{seed or 12345}|" in want  # the oracle's own text
        assert signature.rsplit("|version:", 1)[0] == want.rsplit("|version:", 1)[0]
        assert text == str(theirs)


def test_a_target_language_with_another_tokenizer_warns_as_sacrebleu(caplog: Any) -> None:
    for lang, tokenize in (("zh", "13a"), ("ja", "intl"), ("ko", "char")):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="sacrebleu"):
            BLEU(trg_lang=lang, tokenize=tokenize)
        theirs = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="sacrebleu"):
            bleustream.BLEU(trg_lang=lang, tokenize=tokenize)
        ours = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
        assert ours == theirs and len(ours) == 1, (lang, ours, theirs)


def test_versions() -> None:
    from packaging import version

    from bleustream._version import __version__ as own

    assert bleustream.__version__ == own
    assert bleustream.version.__version__ == f"2.6.0+bleustream.{own}"
    parsed = version.parse(bleustream.version.__version__)
    assert parsed.public == sacrebleu.__version__ and parsed.local == f"bleustream.{own}"


def test_significance_paired_test_as_sacrebleus(monkeypatch: Any) -> None:
    from sacrebleu import significance as theirs

    from bleustream.sacrebleu import significance as ours

    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hyps, refs = _corpus(5, 50, 1)
    systems = [("base", hyps)] + [(f"s{k}", _corpus(6 + k, 50, 1)[0]) for k in range(2)]
    for test_type, n, conf in (("bs", 60, -1), ("ar", 80, 30)):
        got = ours.PairedTest(
            systems,
            {"BLEU": bleustream.BLEU(), "chrF": bleustream.CHRF()},
            refs,
            test_type,
            n,
            conf,
        )()
        want = theirs.PairedTest(
            systems, {"BLEU": BLEU(), "chrF": CHRF()}, refs, test_type, n, conf
        )()
        assert list(got[0]) == list(want[0])
        for label in got[0]:
            strip = f"|version:{sacrebleu.__version__}"
            assert str(got[0][label]).rsplit("|version:", 1)[0] == str(want[0][label]).replace(
                strip, ""
            )
        assert list(got[1]) == list(want[1]) and got[1]["System"] == want[1]["System"]
        for label in got[0]:
            for a, b in zip(got[1][label], want[1][label]):
                assert isinstance(a, ours.Result)
                assert (a.score, a.p_value, a.mean, a.ci) == (b.score, b.p_value, b.mean, b.ci)
                # numpy scalars as SacreBLEU's (float32 for chrF): same type, same text
                assert [type(v) for v in vars(a).values()] == [type(v) for v in vars(b).values()]
                assert repr(a) == repr(b)
    scores = [41.5, 40.25, 43.0, 39.5, 42.0] * 9
    for kind in (list, np.float64, np.float32):
        data = np.asarray(scores, dtype=kind) if kind is not list else scores
        got, want = ours.estimate_ci(data), theirs.estimate_ci(np.asarray(data))
        assert got == want and [type(v) for v in got] == [type(v) for v in want]
        assert [str(v) for v in got] == [str(v) for v in want]


# -- the signature classes and the modules' constants -----------------------------

SIGNATURE_CASES = [
    ("bleu", "BLEU", "BLEUSignature", {}),
    ("bleu", "BLEU", "BLEUSignature", {"tokenize": "intl", "lowercase": True}),
    ("bleu", "BLEU", "BLEUSignature", {"smooth_method": "floor", "smooth_value": 0.2}),
    ("bleu", "BLEU", "BLEUSignature", {"smooth_method": "add-k", "effective_order": True}),
    ("bleu", "BLEU", "BLEUSignature", {"trg_lang": "zh"}),
    ("chrf", "CHRF", "CHRFSignature", {}),
    ("chrf", "CHRF", "CHRFSignature", {"word_order": 2, "eps_smoothing": True}),
    ("chrf", "CHRF", "CHRFSignature", {"lowercase": True, "whitespace": True}),
    ("ter", "TER", "TERSignature", {}),
    ("ter", "TER", "TERSignature", {"normalized": True, "no_punct": True, "case_sensitive": True}),
    ("ter", "TER", "TERSignature", {"asian_support": True}),
]


def _unversioned(text: str) -> str:
    """A signature's text without its version field (SacreBLEU's or bleustream's)."""
    return "|".join(part for part in text.split("|") if not part.startswith(("version:", "v:")))


@pytest.mark.parametrize(("module", "cls", "sig", "settings"), SIGNATURE_CASES, ids=repr)
def test_signature_classes_as_sacrebleus(module: str, cls: str, sig: str, settings: dict) -> None:
    ours_mod = importlib.import_module(f"bleustream.sacrebleu.metrics.{module}")
    theirs_mod = importlib.import_module(f"sacrebleu.metrics.{module}")
    OurSig, TheirSig = getattr(ours_mod, sig), getattr(theirs_mod, sig)
    from bleustream.sacrebleu.metrics.base import Signature

    assert issubclass(OurSig, Signature) and OurSig.__name__ == TheirSig.__name__
    hyps, refs = _corpus(11, 40, 2)
    for n_bootstrap in (1, 20):
        ours = getattr(ours_mod, cls)(**settings)
        theirs = getattr(theirs_mod, cls)(**settings)
        ours.corpus_score(hyps, refs, n_bootstrap=n_bootstrap)
        theirs.corpus_score(hyps, refs, n_bootstrap=n_bootstrap)
        want = theirs.get_signature()
        made = [
            ours.get_signature(),
            OurSig(vars(ours)),  # constructed as SacreBLEU's is, from either's metric
            OurSig(vars(theirs)),
        ]
        for got in made:
            assert type(got) is OurSig
            assert list(got.info) == list(want.info)
            for short in (False, True):
                text = got.format(short=short)
                assert _unversioned(text) == _unversioned(want.format(short=short))
                assert text.endswith(
                    f"|{'v' if short else 'version'}:bleustream-{bleustream.__version__}"
                )
            assert str(got) == repr(got) == got.format()
            got.update("test", "wmt17")
            want.update("test", "wmt17")
            assert _unversioned(got.format(short=True)) == _unversioned(want.format(short=True))
            want.info["test"] = None


def test_base_signature_and_its_refusal() -> None:
    from sacrebleu.metrics.base import Signature as Theirs

    from bleustream.sacrebleu.metrics.base import Signature

    args = {"num_refs": -1, "n_bootstrap": 100, "seed": 7, "test_set": "wmt17", "langpair": "en-de"}
    got, want = Signature(args), Theirs(args)
    assert list(got.info) == list(want.info)
    for short in (False, True):
        assert _unversioned(got.format(short=short)) == _unversioned(want.format(short=short))
    for bad in ({}, {"lowercase": True}):
        with pytest.raises(ValueError, match="Number of references unknown"):
            Signature(bad)
        with pytest.raises(ValueError, match="Number of references unknown"):
            Theirs(bad)
    with pytest.raises(ValueError, match="Number of references unknown"):
        bleustream.BLEU().get_signature()


def _defined_names(module: Any) -> dict[str, Any]:
    """The public names a module defines itself (not those it imports)."""
    found = {}
    for name, value in vars(module).items():
        if name.startswith("_") or inspect.ismodule(value) or name == "TYPE_CHECKING":
            continue
        home = getattr(value, "__module__", module.__name__)
        if isinstance(home, str) and home == module.__name__:
            found[name] = value
    return found


SACREBLEU_MODULES = [
    "metrics.base",
    "metrics.bleu",
    "metrics.chrf",
    "metrics.ter",
    "metrics.helpers",
    "significance",
    *(
        f"tokenizers.tokenizer_{name}"
        for name in (
            "13a",
            "base",
            "char",
            "intl",
            "ja_mecab",
            "ko_mecab",
            "none",
            "re",
            "spm",
            "ter",
            "zh",
        )
    ),
]


@pytest.mark.parametrize("name", SACREBLEU_MODULES)
def test_every_name_a_sacrebleu_module_defines(name: str) -> None:
    """Classes, functions and constants: each there, constants equal (the
    mecab FAIL_MESSAGE names bleustream's extra for SacreBLEU's)."""
    theirs = importlib.import_module(f"sacrebleu.{name}")
    ours = importlib.import_module(f"bleustream.sacrebleu.{name}")
    for key, value in _defined_names(theirs).items():
        assert hasattr(ours, key), f"bleustream.{name} has no {key}"
        mine = getattr(ours, key)
        if inspect.isclass(value) or callable(value):
            assert callable(mine) and getattr(mine, "__name__", key) == value.__name__
        elif key == "FAIL_MESSAGE":
            assert mine == value.replace("pip install sacrebleu[", "pip install bleustream[")
        else:
            assert mine == value, key


def test_constants_and_base_classes_through_the_users_imports() -> None:
    from sacrebleu.tokenizers import tokenizer_ja_mecab as their_ja
    from sacrebleu.tokenizers.tokenizer_spm import SPM_MODELS as THEIR_MODELS

    from bleustream.sacrebleu.metrics.base import Metric, Score
    from bleustream.sacrebleu.metrics.bleu import MAX_NGRAM_ORDER
    from bleustream.sacrebleu.tokenizers import (
        tokenizer_ja_mecab,
        tokenizer_ko_mecab,
        tokenizer_spm,
    )
    from bleustream.sacrebleu.tokenizers.tokenizer_spm import SPM_MODELS
    from bleustream.tokenizers.spm import model_path

    assert MAX_NGRAM_ORDER == 4
    assert SPM_MODELS == THEIR_MODELS
    for key, model in SPM_MODELS.items():  # the cache file is the address's basename
        assert Path(model_path(key)).name == Path(model["url"]).name
    for cls in ("Flores101Tokenizer", "Flores200Tokenizer", "spBLEU1KTokenizer"):
        assert issubclass(getattr(tokenizer_spm, cls), tokenizer_spm.TokenizerSPM)
    assert "pip install bleustream[ja]" in tokenizer_ja_mecab.FAIL_MESSAGE
    assert "pip install bleustream[ko]" in tokenizer_ko_mecab.FAIL_MESSAGE
    assert tokenizer_ja_mecab.FAIL_MESSAGE.replace("bleustream[", "sacrebleu[") == (
        their_ja.FAIL_MESSAGE
    )
    hyps, refs = _corpus(12, 20, 1)
    for metric in (bleustream.BLEU(), bleustream.CHRF(), bleustream.TER()):
        assert isinstance(metric, Metric)
        assert isinstance(metric.corpus_score(hyps, refs), Score)
        assert isinstance(metric.sentence_score(hyps[0], [refs[0][0]]), Score)


def test_missing_mecab_raises_sacrebleus_fail_message(monkeypatch: Any) -> None:
    from bleustream.sacrebleu.tokenizers import tokenizer_ja_mecab, tokenizer_ko_mecab

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda n, *a: None if n in ("MeCab", "mecab_ko") else real(n, *a),
    )
    for module, cls in (
        (tokenizer_ja_mecab, "TokenizerJaMecab"),
        (tokenizer_ko_mecab, "TokenizerKoMecab"),
    ):
        with pytest.raises(RuntimeError) as raised:
            getattr(module, cls)()
        assert str(raised.value) == module.FAIL_MESSAGE


# -- install_as_sacrebleu() ----------------------------------------------------------

INSTALLED = """
import json, sys
import bleustream
bleustream.install_as_sacrebleu()
bleustream.install_as_sacrebleu()
import sacrebleu
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
import sacrebleu.version
refused = []
for name in ("sacrebleu.metrics.counting", "sacrebleu.run", "sacrebleu.tokenizers.registry"):
    try:
        __import__(name)
    except ImportError:
        refused.append(name)
print(json.dumps({
    "version": sacrebleu.__version__,
    "version_module": sacrebleu.version.__version__,
    "own": bleustream.__version__,
    "modules": {n: m.__name__ for n, m in sys.modules.items() if n.split(".")[0] == "sacrebleu"},
    "BLEU": BLEU.__module__,
    "tokens": Tokenizer13a()("Hello, world."),
    "refused": refused,
    "testsets": len(sacrebleu.get_available_testsets()),
    "finders": sum(type(f).__name__ == "SacrebleuFinder" for f in sys.meta_path),
}))
"""


def test_install_as_sacrebleu() -> None:
    got = _child(INSTALLED)
    assert got["own"] == bleustream.__version__
    assert got["version"] == got["version_module"] == f"2.6.0+bleustream.{bleustream.__version__}"
    assert got["BLEU"] == "bleustream.metrics.metric_classes"
    assert got["tokens"] == "Hello , world ."
    assert got["refused"] == [
        "sacrebleu.metrics.counting",
        "sacrebleu.run",
        "sacrebleu.tokenizers.registry",
    ]
    # SacreBLEU's registry works through bleustream.utils, from the real package.
    assert got["testsets"] == len(sacrebleu.get_available_testsets()) > 0
    assert got["finders"] == 1  # installed twice, once
    modules = got["modules"]
    assert modules["sacrebleu"] == "bleustream.sacrebleu"
    assert modules["sacrebleu.metrics.bleu"] == "bleustream.sacrebleu.metrics.bleu"
    real = [n for n, m in modules.items() if not m.startswith("bleustream")]
    assert real and all(n.startswith("sacrebleu.dataset.") for n in real), real


NAMES = """
import json, sys
import bleustream
if sys.argv[2] == "install":
    bleustream.install_as_sacrebleu()
import sacrebleu
from sacrebleu.metrics.base import Metric, Score, Signature
from sacrebleu.metrics.bleu import BLEU, MAX_NGRAM_ORDER, BLEUSignature
from sacrebleu.metrics.chrf import CHRF, CHRFSignature
from sacrebleu.metrics.ter import TER, TERSignature
from sacrebleu.significance import IS_WINDOWS, PairedTest
from sacrebleu.tokenizers import tokenizer_ja_mecab, tokenizer_ko_mecab, tokenizer_spm
hyps, refs, other = json.loads(sys.argv[1])
out = {"module": BLEU.__module__}
for metric, cls in ((BLEU(tokenize="intl"), BLEUSignature), (CHRF(word_order=2), CHRFSignature),
                    (TER(asian_support=True), TERSignature)):
    score = metric.corpus_score(hyps, refs, n_bootstrap=10)
    sig = metric.get_signature()
    made = cls(vars(metric))
    out[type(sig).__name__] = [
        isinstance(sig, cls), isinstance(sig, Signature), isinstance(metric, Metric),
        isinstance(score, Score), sig.format(), sig.format(short=True), str(made), list(sig.info),
    ]
out["constants"] = [MAX_NGRAM_ORDER, IS_WINDOWS, tokenizer_spm.SPM_MODELS,
                    tokenizer_ja_mecab.FAIL_MESSAGE, tokenizer_ko_mecab.FAIL_MESSAGE]
sigs, columns = PairedTest([("base", hyps), ("other", other)], {"chrF": CHRF()}, refs, "bs", 50)()
out["paired"] = [[type(v).__name__ for v in vars(r).values()] + [repr(r)] for r in columns["chrF2"]]
print(json.dumps(out))
"""


def test_signatures_and_constants_under_install_as_sacrebleu() -> None:
    """The names through ``import sacrebleu`` after the install are SacreBLEU's,
    text and types, bar the version field and the extra the messages name."""
    hyps, refs = _corpus(13, 40, 2)
    other = _corpus(14, 40, 1)[0]
    data = json.dumps([hyps, refs, other])
    got = _child(NAMES, data, "install")
    want = _child(NAMES, data, "real")
    assert got.pop("module") == "bleustream.metrics.metric_classes"
    assert want.pop("module") == "sacrebleu.metrics.bleu"
    for name in ("BLEUSignature", "CHRFSignature", "TERSignature"):
        mine, theirs = got[name], want[name]
        assert mine[:4] == theirs[:4] == [True] * 4
        for a, b in zip(mine[4:7], theirs[4:7]):
            assert _unversioned(a) == _unversioned(b)
            assert a.endswith(f":bleustream-{bleustream.__version__}")
        assert mine[7] == theirs[7]
    mine, theirs = got["constants"], want["constants"]
    assert mine[:3] == theirs[:3]
    assert [m.replace("bleustream[", "sacrebleu[") for m in mine[3:]] == theirs[3:]
    assert got["paired"] == want["paired"]
    assert got["paired"][0][2:4] == ["float32", "float32"]


USER = """
import json, sys
import bleustream
bleustream.install_as_sacrebleu()
from tests.dropin import sacrebleu_user
from tests.dropin.child import run_child as _child
hyps, refs = json.loads(sys.argv[1])
print(json.dumps([sacrebleu_user.run_all(hyps, refs), sacrebleu_user.scb.corpus_bleu.__module__]))
"""


def test_a_library_that_imports_sacrebleu_scores_with_bleustream() -> None:
    """Hugging Face evaluate's BLEU-family scripts, as tests/dropin/sacrebleu_user.py
    does what they do: after the install, the numbers are SacreBLEU's."""
    assert sacrebleu_user.scb is sacrebleu  # here, the real SacreBLEU: the oracle
    hyps, streams = _corpus(9, 80, 2)
    per_prediction = [list(refs) for refs in zip(*streams)]
    want = sacrebleu_user.run_all(hyps, per_prediction)
    got, module = _child(USER, json.dumps([hyps, per_prediction]))
    assert module.startswith("bleustream.")
    assert got == json.loads(json.dumps(want))


def test_python_m_dropin_runs_a_script_and_a_module(tmp_path: Path) -> None:
    script = tmp_path / "score.py"
    script.write_text(
        "import sys, sacrebleu\n"
        "print(sacrebleu.__version__, sys.argv[1:], sys.path[0] == sys.argv[0].rpartition('/')[0],"
        " sacrebleu.sentence_bleu('a b c d', ['a b c d e']).score)\n",
        encoding="utf-8",
    )
    (tmp_path / "scoremod.py").write_text(script.read_text(encoding="utf-8"), encoding="utf-8")
    want = sacrebleu.sentence_bleu("a b c d", ["a b c d e"]).score
    version = f"2.6.0+bleustream.{bleustream.__version__}"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    for how in ([str(script)], ["-m", "scoremod"]):
        done = subprocess.run(
            [sys.executable, "-m", "bleustream.dropin", *how, "x", "--y"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [version, "['x',", "'--y']", "True", repr(want)], how
    done = subprocess.run(
        [sys.executable, "-m", "bleustream.dropin"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and done.stderr.startswith("usage: python -m bleustream.dropin")


def test_the_readmes_example_prints_what_it_says() -> None:
    """README's "Coming from SacreBLEU" example: the version its comment
    shows, and SacreBLEU's score."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [
        b
        for b in re.findall(r"^```python\n(.*?)^```", readme, re.M | re.S)
        if "install_as_sacrebleu()" in b
    ]
    shown = re.search(r"^print\(sacrebleu.__version__\)  # (\S+):", block, re.M)
    assert shown is not None and shown.group(1) == f"2.6.0+bleustream.{bleustream.__version__}"
    out = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    score = sacrebleu.corpus_bleu(["The cat sat on the mat."], [["The cat sat on a mat."]]).score
    assert out == [shown.group(1), repr(score)]
