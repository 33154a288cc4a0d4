"""The encoder of a COMET checkpoint and its inputs, as unbabel-comet 2.2.7
builds them: the Hugging Face model of ``hparams.encoder_model`` made from
the configuration of ``hparams.pretrained_model`` (its weights come from the
checkpoint), its fast tokenizer, and the batches unbabel-comet feeds it (its
tokenizer call, truncation, padding, and for unified models the
concatenation of hypothesis, source and reference).

Imported only when a model runs (it imports torch and transformers).
"""

from __future__ import annotations

import contextlib
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import transformers

from bleustream.comet.checkpoint import Checkpoint
from bleustream.comet.errors import ModelError, corrupt

# unbabel-comet's encoder names: the transformers classes of the model and its
# configuration, and where the tokenizer comes from (None: pretrained_model).
ENCODERS: dict[str, tuple[str, str, str | None]] = {
    "XLM-RoBERTa": ("XLMRobertaConfig", "XLMRobertaModel", None),
    "XLM-RoBERTa-XL": ("XLMRobertaXLConfig", "XLMRobertaXLModel", None),
    # unbabel-comet's MiniLM (eamt22-cometinho-da) is a BERT with XLM-R's tokenizer.
    "MiniLM": ("BertConfig", "BertModel", "xlm-roberta-base"),
}


@dataclass
class Batch:
    """Token ids and attention mask of one batch, with how many of its rows were cut."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    truncated: list[bool]
    label_ids: torch.Tensor | None = None  # hypothesis tokens (not -1), unified models
    offsets: list[list[tuple[int, int]]] | None = None  # hypothesis character offsets


def tokenizer_class() -> Any:
    # transformers 5 has one XLM-R tokenizer (the fast one); 4 calls it ...Fast.
    return getattr(transformers, "XLMRobertaTokenizerFast", None) or (
        transformers.XLMRobertaTokenizer
    )


def no_init_weights() -> Any:
    """transformers' context that skips the random initialisation of a
    model's weights (seconds to minutes for a large encoder), or none."""
    for module in ("transformers.initialization", "transformers.modeling_utils"):
        try:
            context = getattr(importlib.import_module(module), "no_init_weights", None)
        except ImportError:
            continue
        if context is not None:
            return context()
    return contextlib.nullcontext()


def tokenizer_json(source: str) -> str | None:
    """The ``tokenizer.json`` of a tokenizer directory or cached model id, if any."""
    if Path(source).is_dir():
        path = Path(source) / "tokenizer.json"
        return str(path) if path.is_file() else None
    import huggingface_hub

    found = huggingface_hub.try_to_load_from_cache(source, "tokenizer.json")
    return found if isinstance(found, str) else None


def clean_up_tokenization(text: str) -> str:
    """transformers 4's ``clean_up_tokenization`` (for tokenizers configured with it)."""
    for spaced, joined in (
        (" .", "."),
        (" ?", "?"),
        (" !", "!"),
        (" ,", ","),
        (" ' ", "'"),
        (" n't", "n't"),
        (" 'm", "'m"),
        (" 's", "'s"),
        (" 've", "'ve"),
        (" 're", "'re"),
    ):
        text = text.replace(spaced, joined)
    return text


class Tokenizer:
    """The fast tokenizer unbabel-comet runs (transformers 4's): the
    ``tokenizer.json`` itself when the tokenizer has one (transformers 5
    rebuilds its pipeline, with other character offsets and whitespace
    rules), else transformers' own; called as transformers 4 calls it."""

    def __init__(self, hf_tokenizer: Any, source: str) -> None:
        self.hf = hf_tokenizer
        found = tokenizer_json(source)
        if found is not None:
            import tokenizers

            self.backend = tokenizers.Tokenizer.from_file(found)
        else:
            self.backend = hf_tokenizer.backend_tokenizer
        self.backend.no_padding()
        self.clean_up = bool(getattr(hf_tokenizer, "clean_up_tokenization_spaces", False))

    def encode(self, texts: list[str], max_length: int) -> list[Any]:
        """One ``tokenizers.Encoding`` per text, with special tokens, cut at ``max_length``."""
        self.backend.enable_truncation(max_length, stride=0, strategy="longest_first")
        return self.backend.encode_batch(texts, add_special_tokens=True)

    def decode(self, ids: list[int]) -> str:
        text = self.backend.decode(ids, skip_special_tokens=False)
        return clean_up_tokenization(text) if self.clean_up else text


def from_pretrained(cls: Any, model: str, what: str, source: str, local_only: bool) -> Any:
    """``cls.from_pretrained(source)``, or a ``ModelError`` saying what is missing."""
    try:
        return cls.from_pretrained(source, local_files_only=local_only)
    except (OSError, ValueError):
        where = (
            "that directory"
            if Path(source).is_dir()
            else f"the Hugging Face cache; download it once (huggingface-cli download {source})"
        )
        raise ModelError(
            f"COMET model {model}: its encoder's {what} ({source}) is not in {where}"
        ) from None


class Encoder:
    """The Hugging Face encoder of a checkpoint, with its tokenizer."""

    def __init__(self, ckpt: Checkpoint, local_only: bool) -> None:
        hparams = ckpt.hparams
        name = hparams["encoder_model"]
        if name not in ENCODERS:
            known = ", ".join(ENCODERS)
            raise corrupt(ckpt.name, f"encoder {name!r} is not supported (supported: {known})")
        config_name, model_name, tokenizer_source = ENCODERS[name]
        pretrained = str(hparams["pretrained_model"])
        config = from_pretrained(
            getattr(transformers, config_name), ckpt.name, "configuration", pretrained, local_only
        )
        source = tokenizer_source or pretrained
        hf_tokenizer = from_pretrained(
            tokenizer_class(), ckpt.name, "tokenizer", source, local_only
        )
        self.tokenizer = Tokenizer(hf_tokenizer, source)
        model_class = getattr(transformers, model_name)
        kwargs = {} if name == "MiniLM" else {"add_pooling_layer": False}
        with no_init_weights():  # every weight comes from the checkpoint
            self.model = model_class(config, **kwargs)
        self.uses_bert = name == "MiniLM"
        self.pad_id = hf_tokenizer.pad_token_id
        self.cls_id = hf_tokenizer.cls_token_id
        self.sep_id = hf_tokenizer.sep_token_id
        self.hidden_size = config.hidden_size
        self.num_layers = config.num_hidden_layers + 1  # the embeddings and each layer
        self.max_positions = config.max_position_embeddings - 2

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> dict[str, Any]:
        """unbabel-comet's encoder output: ``sentemb``, ``wordemb``, ``all_layers``."""
        output = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            output_hidden_states=True,
            return_dict=True,
        )
        last = output.last_hidden_state
        return {"sentemb": last[:, 0, :], "wordemb": last, "all_layers": output.hidden_states}

    def prepare(self, texts: list[str], max_length: int) -> Batch:
        """unbabel-comet's ``prepare_sample`` of one input: cut at
        ``max_length`` tokens, padded to the longest."""
        return self.padded(self.tokenizer.encode(texts, max_length))

    def padded(self, encoded: list[Any]) -> Batch:
        """Encodings as a batch: ids padded to the longest, the attention mask."""
        ids = [list(e.ids) for e in encoded]
        longest = max(len(seq) for seq in ids)
        return Batch(
            torch.tensor([seq + [self.pad_id] * (longest - len(seq)) for seq in ids]),
            torch.tensor([[1] * len(seq) + [0] * (longest - len(seq)) for seq in ids]),
            [bool(e.overflowing) for e in encoded],
        )

    def subword_tokenize(self, texts: list[str], max_length: int) -> Batch:
        """unbabel-comet's word-level ``subword_tokenize`` of the hypotheses:
        ``prepare``'s batch with the character offsets, and label ids 0 (no
        annotation) on every token, -1 on padding."""
        encoded = self.tokenizer.encode(texts, max_length)
        batch = self.padded(encoded)
        lengths = [len(e.ids) for e in encoded]
        longest = max(lengths)
        batch.label_ids = torch.tensor([[0] * n + [-1] * (longest - n) for n in lengths])
        batch.offsets = [list(e.offsets) for e in encoded]
        return batch

    def concat(self, inputs: list[Batch], word_level: bool) -> tuple[Batch, list[bool]]:
        """unbabel-comet's ``concat_sequences``: each row's inputs (padding
        removed) joined as ``<s> a </s></s> b </s>...``, cut at the encoder's
        positions when too long; with which rows were cut."""
        rows = [
            [x.masked_select(x.ne(self.pad_id)).tolist() for x in batch.input_ids.unbind(dim=0)]
            for batch in inputs
        ]
        special_tokens = 1 + len(inputs) * 2  # XLM-R's separator is two tokens
        sequences, cut = [], []
        for i in range(len(rows[0])):
            lengths = sum(len(x[i][1:-1]) for x in rows)
            sequence = rows[0][i]
            for j in range(1, len(inputs)):
                sequence = [
                    self.cls_id,
                    *sequence[1:-1],
                    self.sep_id,
                    self.sep_id,
                    *rows[j][i][1:-1],
                    self.sep_id,
                ]
            too_long = lengths > self.max_positions - special_tokens
            if too_long:
                sequence = sequence[: self.max_positions]
            cut.append(too_long and len(sequence) < lengths + special_tokens - 1)
            sequences.append(sequence)
        longest = max(len(s) for s in sequences)
        input_ids = torch.tensor([s + [self.pad_id] * (longest - len(s)) for s in sequences])
        lengths_t = torch.tensor([len(s) for s in sequences], dtype=torch.long)
        attention_mask = torch.arange(longest)[None, :] < lengths_t[:, None]
        batch = Batch(input_ids, attention_mask, cut)
        if word_level:
            labels = inputs[0].label_ids
            assert labels is not None
            pad = torch.full((labels.shape[0], longest - labels.shape[1]), -1, dtype=labels.dtype)
            batch.label_ids = torch.cat((labels, pad), dim=1)
            batch.offsets = inputs[0].offsets
        return batch, cut
