"""Small COMET checkpoints of each family, built with unbabel-comet 2.2.7's
own classes, and that package's scores for them: the COMET tests' oracle.

unbabel-comet cannot be installed beside a current stack, so it lives in a
virtual environment of its own (``tools/comet_oracle.sh DIR`` builds it; CI
exports ``BLEUSTREAM_COMET_ORACLE`` as its python).  Everything here that
needs it runs ``comet_oracle_side.py`` in a subprocess of that python.

A checkpoint is random (seeded): an XLM-R-shaped encoder of a few layers
with a SentencePiece tokenizer trained on text of the real WMT sets, the
family's heads, in unbabel-comet's layout.  Built checkpoints are kept in
``.ci-cache/comet/NAME-KEY/model/``, the key a hash of the builder, the spec and
the training text, so reruns and CI reuse them.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REAL_DATA, REAL_DATA_MISSING, real_data_present
from tests.helpers.paths import ROOT
from tests.helpers.required import missing

VARIABLE = "BLEUSTREAM_COMET_ORACLE"
ORACLE_SIDE = Path(__file__).with_name("comet_oracle_side.py")
CACHE = ROOT / ".ci-cache" / "comet"

# The text the tokenizers learn from: sources and references of the WMT21
# sets (English, German, Chinese, Japanese) and the TED Slovak sources.
TRAINING_TEXT = (
    "wmt21-en-de/newstest2021.en-de.src.en",
    "wmt21-en-de/newstest2021.en-de.ref.A.de",
    "wmt21-en-zh/newstest2021.en-zh.ref.A.zh",
    "wmt21-en-ja/newstest2021.en-ja.ref.A.ja",
    "compare-mt-ted-slk-en-detok/ted.orig.slk",
)

_SMALL_ENCODER = {
    "encoder_model": "XLM-RoBERTa",
    "vocab": 4000,
    "hidden": 32,
    "layers": 2,
    "heads": 2,
    "intermediate": 64,
    # 128 positions: inputs are cut at 126 tokens, and a few WMT lines are longer.
    "max_position_embeddings": 130,
    "seed": 49,
}

SPECS: dict[str, dict[str, Any]] = {
    "regression": {
        **_SMALL_ENCODER,
        "class_identifier": "regression_metric",
        "hparams": {
            "layer": "mix",
            "pool": "avg",
            "layer_transformation": "softmax",
            "layer_norm": True,
            "hidden_sizes": [64],
        },
    },
    "referenceless": {
        **_SMALL_ENCODER,
        "seed": 50,
        "class_identifier": "referenceless_regression_metric",
        "hparams": {
            "layer": "mix",
            "pool": "avg",
            "layer_transformation": "sparsemax",
            "layer_norm": False,
            "hidden_sizes": [64, 32],
            "final_activation": "Sigmoid",
        },
    },
    "unified": {
        **_SMALL_ENCODER,
        "seed": 51,
        "class_identifier": "unified_metric",
        "hparams": {
            "sent_layer": "mix",
            "layer_transformation": "sparsemax",
            "layer_norm": True,
            "word_layer": 2,
            "hidden_sizes": [64],
            "input_segments": ["mt", "src", "ref"],
            "word_level_training": True,
            "error_labels": ["minor", "major"],
        },
    },
    "xcomet": {
        **_SMALL_ENCODER,
        "encoder_model": "XLM-RoBERTa-XL",
        "seed": 52,
        "class_identifier": "xcomet_metric",
        "hparams": {
            "sent_layer": "mix",
            "layer_transformation": "sparsemax",
            "layer_norm": False,
            "word_layer": 2,
            "hidden_sizes": [64],
        },
    },
    # eamt22-cometinho-da's kind: unbabel-comet's MiniLM encoder (a BERT
    # taking xlm-roberta-base's tokenizer, here from a Hugging Face cache of
    # the checkpoint's own, ``hf_home``).
    "minilm": {
        **_SMALL_ENCODER,
        "encoder_model": "MiniLM",
        "seed": 54,
        "class_identifier": "regression_metric",
        "hparams": {
            "layer": "mix",
            "pool": "avg",
            "layer_transformation": "softmax",
            "layer_norm": True,
            "hidden_sizes": [64],
        },
    },
    # eamt22-cometinho-da's size (a MiniLM: hidden 384, 12 layers, 12 heads)
    # with an XLM-R encoder, for the benchmark only.
    "cometinho": {
        **_SMALL_ENCODER,
        "hidden": 384,
        "layers": 12,
        "heads": 12,
        "intermediate": 1536,
        "max_position_embeddings": 514,
        "seed": 53,
        "class_identifier": "regression_metric",
        "hparams": {
            "layer": "mix",
            "pool": "avg",
            "layer_transformation": "softmax",
            "layer_norm": True,
            "hidden_sizes": [1536, 384],
        },
    },
}


def oracle_python() -> str:
    """The oracle venv's python, or the test skipped (failed under CI)."""
    given = os.environ.get(VARIABLE, "")
    if given and Path(given).is_file():
        return given
    missing(
        f"unbabel-comet 2.2.7's venv not found: set {VARIABLE} to its python "
        "(tools/comet_oracle.sh DIR builds it; .ci/run does)"
    )


def cache_key(name: str) -> str:
    """A hash of what decides the checkpoint: the builder, the spec, the text."""
    sha = hashlib.sha256(ORACLE_SIDE.read_bytes())
    sha.update(json.dumps(SPECS[name], sort_keys=True).encode())
    for rel in TRAINING_TEXT:
        sha.update(rel.encode())
        sha.update(hashlib.sha256((REAL_DATA / rel).read_bytes()).digest())
    return sha.hexdigest()[:16]


def hf_home(checkpoint: Path) -> Path | None:
    """The Hugging Face cache a checkpoint's encoder needs, when it has one."""
    home = checkpoint.parent / "hf"
    return home if home.is_dir() else None


def run_oracle(*args: str, home: Path | None = None) -> None:
    """``comet_oracle_side.py ARGS`` in the oracle venv, offline (with
    ``home`` as ``$HF_HOME``)."""
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    env.pop("PYTHONPATH", None)
    if home is not None:
        env["HF_HOME"] = str(home)
    done = subprocess.run(
        [oracle_python(), str(ORACLE_SIDE), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"the COMET oracle failed: {args[0]}\n{done.stderr[-4000:]}")


def build_checkpoint(name: str) -> Path:
    """The checkpoint directory of ``SPECS[name]``, built once and kept.

    hparams.yaml names the encoder by its path, so the checkpoint is built
    where it stays, under a lock that other test processes wait on."""
    if not real_data_present():
        pytest.skip(REAL_DATA_MISSING)
    oracle_python()
    target = CACHE / f"{name}-{cache_key(name)}"
    model = target / "model"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / "done").is_file():
            return model
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        text = target / "text.txt"
        with open(text, "w", encoding="utf-8") as out:
            for rel in TRAINING_TEXT:
                out.write((REAL_DATA / rel).read_text(encoding="utf-8"))
        spec = {**SPECS[name], "text": str(text)}
        (target / "spec.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
        run_oracle("build", str(target / "spec.json"), str(model), home=target / "hf")
        text.unlink()
        (target / "done").write_text("built\n", encoding="utf-8")
    return model


def oracle_scores(
    checkpoint: Path,
    sources: list[str],
    hypotheses: list[str],
    references: list[str] | None,
    work: Path,
    batch_size: int = 16,
) -> dict[str, Any]:
    """unbabel-comet's ``predict`` on CPU at fp32: ``scores``, ``system_score``
    and, for a unified model with word-level tags, ``error_spans``."""
    data: dict[str, list[str]] = {"src": sources, "mt": hypotheses}
    if references is not None:
        data["ref"] = references
    data_file, out_file = work / "oracle-in.json", work / "oracle-out.json"
    data_file.write_text(json.dumps(data), encoding="utf-8")
    run_oracle(
        "score",
        str(model_ckpt(checkpoint)),
        str(data_file),
        str(out_file),
        str(batch_size),
        home=hf_home(checkpoint),
    )
    return json.loads(out_file.read_text(encoding="utf-8"))


def model_ckpt(checkpoint: Path) -> Path:
    """The ``model.ckpt`` of a built checkpoint."""
    return checkpoint / "checkpoints" / "model.ckpt"
