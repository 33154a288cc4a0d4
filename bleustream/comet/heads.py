"""What COMET puts on top of the encoder, with unbabel-comet 2.2.7's
floating-point operations in its order: the layer mix (its
``LayerwiseAttention``, softmax or sparsemax, with its masked layer norm),
the sentence pooling and the feed-forward estimator.  Parameter names are
unbabel-comet's, so that its checkpoint's state dict loads as it is.

Imported only when a model runs (it imports torch).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


def sparsemax(weights: torch.Tensor, dim: int = 0) -> torch.Tensor:
    """entmax 1.3's ``sparsemax`` (its sort-based threshold), as the layer mix uses it."""
    weights = weights - weights.max(dim=dim, keepdim=True)[0]
    ordered = torch.sort(weights, dim=dim, descending=True)[0]
    cumsum = ordered.cumsum(dim) - 1
    shape = [1] * weights.dim()
    shape[0] = -1
    rhos = torch.arange(1, weights.size(dim) + 1, device=weights.device, dtype=weights.dtype)
    rhos = rhos.view(shape).transpose(0, dim)
    support = rhos * ordered > cumsum
    support_size = support.sum(dim=dim).unsqueeze(dim)
    tau = cumsum.gather(dim, support_size - 1)
    tau /= support_size.to(weights.dtype)
    return torch.clamp(weights - tau, min=0)


class LayerwiseAttention(nn.Module):
    """unbabel-comet's scalar mix of the encoder's layers (at inference)."""

    def __init__(self, num_layers: int, layer_norm: bool, transformation: str) -> None:
        super().__init__()
        self.num_layers = num_layers
        self.layer_norm = layer_norm
        # unbabel-comet mixes with sparsemax only for exactly "sparsemax"
        # (a "sparsemax_patch" checkpoint runs softmax).
        self.transform = sparsemax if transformation == "sparsemax" else torch.softmax
        self.scalar_parameters = nn.ParameterList(
            [nn.Parameter(torch.zeros(1)) for _ in range(num_layers)]
        )
        self.gamma = nn.Parameter(torch.ones(1))

    def forward(self, tensors: tuple[torch.Tensor, ...], mask: torch.Tensor) -> torch.Tensor:
        weights = torch.cat(list(self.scalar_parameters))
        normed_weights = torch.split(self.transform(weights, dim=0), split_size_or_sections=1)
        if not self.layer_norm:
            return self.gamma * sum(w * t for w, t in zip(normed_weights, tensors))
        mask_float = mask.float()
        broadcast_mask = mask_float.unsqueeze(-1)
        pieces = [
            w * masked_layer_norm(t, broadcast_mask, mask_float)
            for w, t in zip(normed_weights, tensors)
        ]
        return self.gamma * sum(pieces)


def masked_layer_norm(
    tensor: torch.Tensor, broadcast_mask: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """The layer mix's normalisation of one layer over its unmasked tokens."""
    tensor_masked = tensor * broadcast_mask
    batch_size, _, input_dim = tensor.size()
    num_elements_not_masked = mask.sum(1) * input_dim
    mean = tensor_masked.view(batch_size, -1).sum(1)
    mean = (mean / num_elements_not_masked).view(batch_size, 1, 1)
    variance = (((tensor_masked - mean) * broadcast_mask) ** 2).view(batch_size, -1).sum(
        1
    ) / num_elements_not_masked
    return (tensor - mean) / torch.sqrt(variance + 1e-12).view(batch_size, 1, 1)


def activation(name: str) -> nn.Module:
    """The activation unbabel-comet names (``Tanh``, ``Sigmoid``...): torch.nn's."""
    module = getattr(nn, name.title(), None)
    if module is None:
        raise ValueError(f"{name} is not an activation function")
    return module()


class FeedForward(nn.Module):
    """unbabel-comet's estimator: Linear, activation (and dropout, idle at
    inference) per hidden size, a last Linear, an optional final activation."""

    def __init__(
        self,
        in_dim: int,
        hidden_sizes: list[int],
        activations: str,
        final_activation: str | None,
        out_dim: int = 1,
    ) -> None:
        super().__init__()
        modules: list[nn.Module] = []
        sizes = [in_dim, *hidden_sizes]
        for n_in, n_out in zip(sizes, sizes[1:]):
            modules += [nn.Linear(n_in, n_out), activation(activations), nn.Dropout(0.0)]
        modules.append(nn.Linear(sizes[-1], int(out_dim)))
        if final_activation is not None:
            modules.append(activation(final_activation))
        self.ff = nn.Sequential(*modules)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.ff(features)


def average_pooling(
    input_ids: torch.Tensor, embeddings: torch.Tensor, mask: torch.Tensor, pad_id: int
) -> torch.Tensor:
    """The mean of the embeddings of the tokens that are not padding."""
    wordemb = mask_fill(0.0, input_ids, embeddings, pad_id)
    sentemb = torch.sum(wordemb, 1)
    sum_mask = mask.unsqueeze(-1).expand(embeddings.size()).float().sum(1)
    return sentemb / sum_mask


def mask_fill(
    fill_value: float, input_ids: torch.Tensor, embeddings: torch.Tensor, pad_id: int
) -> torch.Tensor:
    padding_mask = input_ids.eq(pad_id).unsqueeze(-1)
    return embeddings.float().masked_fill_(padding_mask, fill_value).type_as(embeddings)


def pool(
    how: str, encoded: dict[str, Any], embeddings: torch.Tensor, input_ids, mask, pad_id: int
) -> torch.Tensor:
    """A sentence embedding, pooled as ``hparams.pool`` says."""
    if how == "default":
        return encoded["sentemb"]
    if how == "max":
        return mask_fill(float("-inf"), input_ids, embeddings, pad_id).max(dim=1)[0]
    if how == "avg":
        return average_pooling(input_ids, embeddings, mask, pad_id)
    if how == "cls":
        return embeddings[:, 0, :]
    raise ValueError(f"unknown pooling {how!r}")
