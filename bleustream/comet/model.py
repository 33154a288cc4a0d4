"""A COMET model loaded from its checkpoint, and its forward pass: the
regression (COMET), reference-free regression (COMET-QE) and unified
(CometKiwi 22, XCOMET) models of unbabel-comet 2.2.7, their segment scores
as its ``predict`` gives them at fp32, and the unified models' error spans.

Imported only when a model runs (it imports torch and transformers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import transformers
from torch import nn

from bleustream.comet import heads
from bleustream.comet.checkpoint import Checkpoint, read_checkpoint
from bleustream.comet.encoder import Batch, Encoder
from bleustream.comet.errors import corrupt
from bleustream.errors import UsageError

PRECISION = "fp32"
# unbabel-comet's XCOMET: the weights of the three regression scores and of
# the MQM score from the spans; the span probabilities' weights per input.
XCOMET_SCORE_WEIGHTS = (0.12, 0.33, 0.33, 0.22)
SPAN_INPUT_WEIGHTS = (0.1667, 0.3333, 0.5)
MQM_PENALTY = {"minor": 1, "major": 5, "critical": 10}


class Network(nn.Module):
    """The trainable parts, named as unbabel-comet names them in its state dict."""

    def __init__(self, ckpt: Checkpoint, encoder: Encoder) -> None:
        super().__init__()
        hp = ckpt.hparams
        self.encoder = nn.Module()
        self.encoder.model = encoder.model
        layer = hp["sent_layer"] if ckpt.family == "unified" else hp["layer"]
        self.layerwise_attention = None
        if layer == "mix":
            self.layerwise_attention = heads.LayerwiseAttention(
                encoder.num_layers,
                bool(hp["layer_norm"]),
                str(hp["layer_transformation"]),
            )
        in_dim = {"regression": 6, "referenceless": 4, "unified": 1}[ckpt.family]
        self.estimator = heads.FeedForward(
            encoder.hidden_size * in_dim,
            list(hp["hidden_sizes"]),
            str(hp["activations"]),
            hp["final_activation"],
        )
        self.hidden2tag = None
        if word_level(ckpt):
            labels = len(error_labels(ckpt)) + 1
            self.hidden2tag = nn.Linear(encoder.hidden_size, labels)


def word_level(ckpt: Checkpoint) -> bool:
    if ckpt.class_identifier == "xcomet_metric":
        return True
    return ckpt.family == "unified" and bool(ckpt.hparams["word_level_training"])


def error_labels(ckpt: Checkpoint) -> list[str]:
    if ckpt.class_identifier == "xcomet_metric":
        return ["minor", "major", "critical"]
    return list(ckpt.hparams["error_labels"]) if ckpt.family == "unified" else []


def input_segments(ckpt: Checkpoint) -> list[str]:
    if ckpt.class_identifier == "xcomet_metric":
        return ["mt", "src", "ref"]
    if ckpt.family == "unified":
        return list(ckpt.hparams["input_segments"])
    return ["mt", "src", "ref"] if ckpt.family == "regression" else ["mt", "src"]


def load_weights(ckpt: Checkpoint, network: Network) -> None:
    """The checkpoint's state dict into the network: every parameter must be there."""
    expected = network.state_dict()
    state = {k: v for k, v in ckpt.state_dict.items() if k in expected}
    missing = sorted(set(expected) - set(state))
    if missing:
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise corrupt(ckpt.name, f"weights missing from the checkpoint: {shown}")
    for key, value in state.items():
        if not isinstance(value, torch.Tensor) or value.shape != expected[key].shape:
            raise corrupt(ckpt.name, f"weight {key} does not fit the model described")
    network.load_state_dict(state, strict=False)


class CometModel:
    """A loaded COMET model (see ``bleustream.comet``)."""

    def __init__(
        self, ckpt: Checkpoint, device: str, max_length: int | None, local_only: bool
    ) -> None:
        self.name = ckpt.name
        self.checkpoint = ckpt
        self.family = ckpt.family
        self.encoder = Encoder(ckpt, local_only)
        self.network = Network(ckpt, self.encoder)
        load_weights(ckpt, self.network)
        ckpt.state_dict = {}  # the network holds the weights now
        self.device = place(self.network, device)
        own = self.encoder.max_positions - 2  # what unbabel-comet's tokenizer call keeps
        self.max_length = own if max_length is None else max(1, min(max_length, own))
        self.word_level = word_level(ckpt)
        self.labels = ["O", *(f"I-{label}" for label in error_labels(ckpt))]
        self.segments = input_segments(ckpt)
        if self.family == "regression":
            self.needs_references = True
        elif self.family == "referenceless":
            self.needs_references = False
        else:
            self.needs_references = self.segments == ["mt", "ref"]
        self.forward_passes = 0
        self._truncated = 0
        # The last batch run and its result: spans_batch after score_batch of
        # the same batch (or the reverse) runs the model once.
        self._last: tuple[Any, tuple[list[float], list[list[dict[str, Any]]]]] | None = None
        self.identity = (
            f"comet:{ckpt.class_identifier}:sha256={ckpt.digest}:"
            f"maxlen={self.max_length}:{PRECISION}"
        )
        self.signature_fields = {
            "model": self.name,
            "digest": ckpt.digest,
            "refs": "yes" if self.uses_references_when_given() else "no",
            "precision": PRECISION,
            "maxlen": str(self.max_length),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }

    def uses_references_when_given(self) -> bool:
        return self.family == "regression" or (self.family == "unified" and "ref" in self.segments)

    def truncated(self) -> int:
        """How many segments so far had an input cut at ``max_length`` tokens."""
        return self._truncated

    def score_batch(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: Sequence[str] | None,
    ) -> list[float]:
        """The segment scores of one batch, as unbabel-comet's ``predict`` gives them."""
        return self.run(sources, hypotheses, references)[0]

    def spans_batch(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: Sequence[str] | None,
    ) -> list[list[dict[str, Any]]]:
        """The error spans of one batch (unified models with word-level tags;
        empty lists for other models): ``text``, ``confidence``, ``severity``,
        ``start``, ``end``, as unbabel-comet gives them."""
        if not self.word_level:
            return [[] for _ in hypotheses]
        return self.run(sources, hypotheses, references)[1]

    def run(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: Sequence[str] | None,
    ) -> tuple[list[float], list[list[dict[str, Any]]]]:
        """Scores and spans of one batch: one forward pass (none when the
        batch is the one run last)."""
        if not hypotheses:
            return [], []
        key = (tuple(sources), tuple(hypotheses), None if references is None else tuple(references))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        if len(sources) != len(hypotheses) or (
            references is not None and len(references) != len(hypotheses)
        ):
            raise ValueError("score_batch: sources, hypotheses and references differ in length")
        if references is None and self.needs_references:
            raise UsageError(f"COMET model {self.name} needs references")
        src, mt = [str(s) for s in sources], [str(h) for h in hypotheses]
        ref = None if references is None else [str(r) for r in references]
        with torch.inference_mode():
            if self.family == "unified":
                scores, spans = self.unified(src, mt, ref)
            else:
                scores, spans = self.regression(src, mt, ref), []
        self.forward_passes += 1
        self._last = (key, (scores.tolist(), spans))
        return self._last[1]

    def count_truncated(self, *cuts: list[bool]) -> None:
        self._truncated += sum(any(row) for row in zip(*cuts))

    def sentence_embedding(self, batch: Batch) -> torch.Tensor:
        """unbabel-comet's ``compute_sentence_embedding`` of one input."""
        input_ids = batch.input_ids.to(self.device)
        mask = batch.attention_mask.to(self.device)
        encoded = self.encoder.forward(input_ids, mask)
        embeddings = self.layer_embeddings(encoded, mask)
        how = str(self.checkpoint.hparams["pool"])
        return heads.pool(how, encoded, embeddings, input_ids, mask, self.encoder.pad_id)

    def layer_embeddings(self, encoded: dict[str, Any], mask: torch.Tensor) -> torch.Tensor:
        """The layer mix, or the one layer ``hparams`` names."""
        if self.network.layerwise_attention is not None:
            return self.network.layerwise_attention(encoded["all_layers"], mask)
        hp = self.checkpoint.hparams
        layer = hp["sent_layer"] if self.family == "unified" else hp["layer"]
        if not isinstance(layer, int) or not 0 <= layer < self.encoder.num_layers:
            raise corrupt(self.name, f"hparams.yaml: invalid encoder layer {layer!r}")
        return encoded["all_layers"][layer]

    def regression(self, src: list[str], mt: list[str], ref: list[str] | None) -> torch.Tensor:
        """Regression and reference-free regression: unbabel-comet's estimate."""
        batches = [self.encoder.prepare(texts, self.max_length) for texts in (src, mt)]
        src_emb, mt_emb = (self.sentence_embedding(b) for b in batches)
        diff_src = torch.abs(mt_emb - src_emb)
        prod_src = mt_emb * src_emb
        if self.family == "referenceless":
            features = torch.cat((mt_emb, src_emb, prod_src, diff_src), dim=1)
        else:
            assert ref is not None
            batches.append(self.encoder.prepare(ref, self.max_length))
            ref_emb = self.sentence_embedding(batches[-1])
            diff_ref = torch.abs(mt_emb - ref_emb)
            prod_ref = mt_emb * ref_emb
            features = torch.cat((mt_emb, ref_emb, prod_ref, diff_ref, prod_src, diff_src), dim=1)
        self.count_truncated(*(b.truncated for b in batches))
        return self.network.estimator(features).view(-1).cpu()

    def unified(
        self, src: list[str], mt: list[str], ref: list[str] | None
    ) -> tuple[torch.Tensor, list[list[dict[str, Any]]]]:
        """Unified models: unbabel-comet's ``predict_step`` (UnifiedMetric or XCOMETMetric)."""
        if self.word_level:
            mt_batch = self.encoder.subword_tokenize(mt, self.max_length)
        else:
            mt_batch = self.encoder.prepare(mt, self.max_length)
        inputs = [mt_batch]
        if "src" in self.segments:
            inputs.append(self.encoder.prepare(src, self.max_length))
        if ref is not None and "ref" in self.segments:
            inputs.append(self.encoder.prepare(ref, self.max_length))
        if len(inputs) == 3:
            pairs = [[inputs[0], inputs[1]], [inputs[0], inputs[2]], inputs]
        else:
            pairs = [inputs]
        joined = [self.encoder.concat(p, self.word_level) for p in pairs]
        self.count_truncated(*(b.truncated for b in inputs), *(cut for _, cut in joined))
        outputs = [self.unified_forward(batch) for batch, _ in joined]
        spans: list[list[dict[str, Any]]] = []
        if self.word_level:
            spans = self.error_spans(joined[0][0], [logits for _, logits in outputs])
        scores = [score for score, _ in outputs]
        if self.checkpoint.class_identifier == "xcomet_metric":
            return xcomet_scores(scores, spans), spans
        if len(scores) == 3:
            return torch.stack(scores, dim=0).mean(dim=0).cpu(), spans
        return scores[0].cpu(), spans

    def unified_forward(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor | None]:
        """UnifiedMetric.forward: the score from the first token of the mix,
        and the word-level logits of ``word_layer``."""
        input_ids = batch.input_ids.to(self.device)
        mask = batch.attention_mask.to(self.device)
        encoded = self.encoder.forward(input_ids, mask)
        logits = None
        if self.network.hidden2tag is not None:
            layer = self.checkpoint.hparams["word_layer"]
            if not isinstance(layer, int) or not 0 <= layer < self.encoder.num_layers:
                raise corrupt(self.name, f"hparams.yaml: invalid word_layer {layer!r}")
            logits = self.network.hidden2tag(encoded["all_layers"][layer])
        sentemb = self.layer_embeddings(encoded, mask)[:, 0, :]
        return self.network.estimator(sentemb).view(-1), logits

    def error_spans(
        self, first: Batch, logits: list[torch.Tensor | None]
    ) -> list[list[dict[str, Any]]]:
        """The hypothesis tokens' label probabilities (weighted over the
        inputs when there are three), decoded into spans."""
        assert first.label_ids is not None and first.offsets is not None
        seq_len = int((first.label_ids != -1).sum(dim=1).max())
        probs = [torch.softmax(x, dim=2)[:, :seq_len, :] for x in logits if x is not None]
        if len(probs) == 3:
            weights = torch.tensor(SPAN_INPUT_WEIGHTS)
            subword_probs = torch.sum(torch.stack([p * w for w, p in zip(weights, probs)]), dim=0)
        else:
            subword_probs = probs[0]
        return self.decode(subword_probs.cpu(), first.input_ids, first.offsets)

    def decode(
        self,
        subword_probs: torch.Tensor,
        input_ids: torch.Tensor,
        offsets: list[list[tuple[int, int]]],
    ) -> list[list[dict[str, Any]]]:
        """UnifiedMetric.decode: runs of tokens whose likeliest label is an
        error, each with its severity, mean probability and character span."""
        decoded = []
        for i, row_offsets in enumerate(offsets):
            seq_len = len(row_offsets)
            spans, span = [], None
            for token_id, probs, offset in zip(
                input_ids[i, :seq_len].tolist(), subword_probs[i][:seq_len], row_offsets
            ):
                probability, label_value = torch.topk(probs, 1)
                label = self.labels[int(label_value[0])]
                if label.startswith("I") and span is None:
                    span = {
                        "tokens": [token_id],
                        "severity": label.split("-")[1],
                        "offset": list(offset),
                        "confidence": [probability],
                    }
                elif label.startswith("I"):
                    assert span is not None
                    span["tokens"].append(token_id)
                    span["confidence"].append(probability)
                    span["offset"][1] = offset[1]
                elif span is not None:  # "O" ends a span; a span open at the end is dropped
                    spans.append(span)
                    span = None
            decoded.append([self.span_record(s) for s in spans])
        return decoded

    def span_record(self, span: dict[str, Any]) -> dict[str, Any]:
        return {
            "text": self.encoder.tokenizer.decode(span["tokens"]),
            "confidence": torch.concat(span["confidence"]).mean().item(),
            "severity": span["severity"],
            "start": span["offset"][0],
            "end": span["offset"][1],
        }


def xcomet_scores(scores: list[torch.Tensor], spans: list[list[dict[str, Any]]]) -> torch.Tensor:
    """XCOMET's score: the regression scores (capped at 1) weighted, plus the
    MQM score of the spans weighted."""
    mqm = mqm_scores(spans)
    if len(scores) == 3:
        regression = torch.stack(
            [torch.where(s > 1.0, 1.0, s) * w for s, w in zip(scores, XCOMET_SCORE_WEIGHTS[:3])],
            dim=0,
        ).sum(dim=0)
        return (regression + mqm.to(regression.device) * XCOMET_SCORE_WEIGHTS[3]).cpu()
    regression = torch.where(scores[0] > 1.0, 1.0, scores[0])
    combined = regression * sum(XCOMET_SCORE_WEIGHTS[:3])
    return (combined + mqm.to(regression.device) * XCOMET_SCORE_WEIGHTS[3]).cpu()


def mqm_scores(spans: list[list[dict[str, Any]]]) -> torch.Tensor:
    """XCOMET's MQM score of each segment's spans: 1 - penalty / 25, penalty capped at 25."""
    penalties = [
        min(25, sum(MQM_PENALTY.get(span["severity"], 0) for span in row)) for row in spans
    ]
    return (torch.tensor(penalties) * -1 + 25) / 25


def place(network: nn.Module, device: str) -> torch.device:
    """The network moved to ``device`` in inference mode; a device PyTorch
    does not know or cannot reach is a usage error."""
    try:
        where = torch.device(device)
        network.to(where).eval()
    except (RuntimeError, AssertionError, ValueError) as exc:
        problem = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"COMET device {device!r} cannot be used: {problem}") from None
    return where


def load(model: str, *, device: str, max_length: int | None, local_only: bool) -> CometModel:
    """``bleustream.comet.load_model``."""
    ckpt = read_checkpoint(model, local_only)
    return CometModel(ckpt, device, max_length, local_only)
