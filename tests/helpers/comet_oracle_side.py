"""Run *inside the unbabel-comet 2.2.7 venv* (never imported by the tests):
builds small COMET checkpoints with unbabel-comet's own classes, and scores
with its Python API, the oracle of the COMET parity tests.

    python comet_oracle_side.py build SPEC.json OUT_DIR
    python comet_oracle_side.py score CHECKPOINT DATA.json OUT.json [BATCH_SIZE]

``build`` trains a SentencePiece unigram tokenizer on the spec's text file,
saves it as an XLM-R tokenizer (slow and fast) beside a random encoder of the
spec's shape, constructs the family's COMET class on it (random heads, random
layer-mix weights, seeded) and saves ``OUT_DIR/checkpoints/model.ckpt`` and
``OUT_DIR/hparams.yaml`` as unbabel-comet's checkpoints are laid out.

``score`` loads the checkpoint with ``comet.load_from_checkpoint`` and runs
``model.predict`` on CPU, as ``comet-score`` does, but at fp32 (the command
line casts the model to half precision; its Python API keeps fp32).  It
writes the segment scores, the system score and any error spans as JSON.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)


def train_tokenizer(spec: dict, enc_dir: Path) -> int:
    import sentencepiece as spm
    from transformers import XLMRobertaTokenizer, XLMRobertaTokenizerFast

    prefix = enc_dir / "spm"
    spm.SentencePieceTrainer.train(
        input=spec["text"],
        model_prefix=str(prefix),
        vocab_size=spec["vocab"],
        model_type="unigram",
        character_coverage=0.9995,
        num_threads=1,
        minloglevel=2,
    )
    slow = XLMRobertaTokenizer(vocab_file=str(prefix) + ".model")
    slow.save_pretrained(enc_dir)
    fast = XLMRobertaTokenizerFast.from_pretrained(str(enc_dir))
    fast.save_pretrained(enc_dir)
    for leftover in (prefix.with_suffix(".model"), prefix.with_suffix(".vocab")):
        leftover.unlink()
    return len(fast)


def save_encoder(spec: dict, enc_dir: Path, vocab: int) -> None:
    import torch
    from transformers import (
        BertConfig,
        BertModel,
        XLMRobertaConfig,
        XLMRobertaModel,
        XLMRobertaXLConfig,
        XLMRobertaXLModel,
    )

    config_class, model_class = {
        "XLM-RoBERTa": (XLMRobertaConfig, XLMRobertaModel),
        "XLM-RoBERTa-XL": (XLMRobertaXLConfig, XLMRobertaXLModel),
        "MiniLM": (BertConfig, BertModel),
    }[spec["encoder_model"]]
    config = config_class(
        vocab_size=vocab,
        hidden_size=spec["hidden"],
        num_hidden_layers=spec["layers"],
        num_attention_heads=spec["heads"],
        intermediate_size=spec["intermediate"],
        max_position_embeddings=spec["max_position_embeddings"],
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    torch.manual_seed(spec["seed"])
    # unbabel-comet's MiniLM keeps BERT's pooler; its XLM-R encoders have none.
    kwargs = {} if spec["encoder_model"] == "MiniLM" else {"add_pooling_layer": False}
    model = model_class(config, **kwargs)
    model.save_pretrained(enc_dir)


def cache_as_xlmr_base(enc_dir: Path) -> None:
    """The tokenizer, as the cached copy of ``xlm-roberta-base`` (where
    unbabel-comet's MiniLM encoder takes its tokenizer from) in ``$HF_HOME``."""
    import shutil

    repo = Path(os.environ["HF_HOME"]) / "hub" / "models--xlm-roberta-base"
    commit = "0" * 40
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(enc_dir / name, snapshot / name)
    shutil.copy(enc_dir / "sentencepiece.bpe.model", snapshot / "sentencepiece.bpe.model")


def comet_model(spec: dict, enc_dir: Path):
    import torch
    from comet.models import str2model

    kwargs = dict(spec["hparams"])
    kwargs.update(
        pretrained_model=str(enc_dir),
        encoder_model=spec["encoder_model"],
        load_pretrained_weights=True,
    )
    torch.manual_seed(spec["seed"] + 1)
    model = str2model[spec["class_identifier"]](**kwargs)
    # Layer-mix weights away from their uniform start, so that the mix is tested.
    generator = torch.Generator().manual_seed(spec["seed"] + 2)
    with torch.no_grad():
        if model.layerwise_attention is not None:
            for parameter in model.layerwise_attention.scalar_parameters:
                parameter.copy_(torch.randn(1, generator=generator))
            model.layerwise_attention.gamma.copy_(1.0 + 0.5 * torch.rand(1, generator=generator))
    return model


def build(spec_file: str, out: str) -> None:
    import pytorch_lightning as ptl
    import torch
    import yaml

    spec = json.loads(Path(spec_file).read_text(encoding="utf-8"))
    out_dir = Path(out)
    enc_dir = out_dir / "encoder"
    enc_dir.mkdir(parents=True)
    save_encoder(spec, enc_dir, train_tokenizer(spec, enc_dir))
    if spec["encoder_model"] == "MiniLM":
        cache_as_xlmr_base(enc_dir)
    model = comet_model(spec, enc_dir)
    hparams = dict(model.hparams)
    hparams["load_pretrained_weights"] = False
    (out_dir / "checkpoints").mkdir()
    torch.save(
        {
            "state_dict": model.state_dict(),
            "hyper_parameters": hparams,
            "pytorch-lightning_version": ptl.__version__,
        },
        out_dir / "checkpoints" / "model.ckpt",
    )
    with open(out_dir / "hparams.yaml", "w", encoding="utf-8") as f:
        yaml.dump(hparams, f)


def score(checkpoint: str, data_file: str, out: str, batch_size: str = "16") -> None:
    import comet

    data = json.loads(Path(data_file).read_text(encoding="utf-8"))
    model = comet.load_from_checkpoint(checkpoint, local_files_only=True)
    samples = [dict(zip(data, values)) for values in zip(*data.values())]
    output = model.predict(samples, batch_size=int(batch_size), gpus=0, progress_bar=False)
    result = {"scores": list(output.scores), "system_score": output.system_score}
    metadata = output.get("metadata") or {}
    if "error_spans" in metadata:
        result["error_spans"] = metadata["error_spans"]
    Path(out).write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"build": build, "score": score}[command](*args)
