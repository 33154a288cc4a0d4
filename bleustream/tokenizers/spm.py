"""SentencePiece tokenizers: ``flores101``, ``flores200``, ``spBLEU-1K`` and ``spm``.

SacreBLEU's tokenizers of the same names cut a line into the pieces of a
fixed SentencePiece model (``EncodeAsPieces``) and join them with spaces;
splitting that on white space gives the tokens.  ``spm`` is SacreBLEU's old
name of ``flores101``: same model, and its signature says ``flores101``.

bleustream never downloads.  It loads the model SacreBLEU keeps in its own
cache, ``$SACREBLEU/models`` (``~/.sacrebleu/models`` without the variable),
under the file name SacreBLEU gives it (the last part of its download
address), so running SacreBLEU once with the tokenizer provides the model
to both.  ``sentencepiece`` is an optional extra
(``pip install 'bleustream[spm]'``), imported and the model loaded the first
time a line is tokenized.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from bleustream.errors import OpenError, lone_surrogate
from bleustream.frozen import Frozen


class SpmModel(Frozen):
    """One SentencePiece tokenizer of SacreBLEU's ``tokenizer_spm.py``."""

    name: str  # the tokenizer's name, as -tok takes it
    signature: str  # what SacreBLEU's signature says
    url: str  # where SacreBLEU downloads the model from

    @property
    def file_name(self) -> str:
        """The model's file in SacreBLEU's cache: the basename of its address."""
        return self.url.rsplit("/", 1)[-1]


_FLORES101 = "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"
MODELS = {
    model.name: model
    for model in (
        SpmModel("flores101", "flores101", _FLORES101),
        SpmModel("spm", "flores101", _FLORES101),
        SpmModel("flores200", "flores200", "https://tinyurl.com/flores200sacrebleuspm"),
        SpmModel(
            "spBLEU-1K",
            "spBLEU-1K",
            "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model",
        ),
    )
}

# The encoders loaded so far, by tokenizer name.
_ENCODERS: dict[str, Callable[[str], list[str]]] = {}


def sacrebleu_dir() -> str:
    """SacreBLEU's cache directory: ``$SACREBLEU``, else ``~/.sacrebleu``."""
    return os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))


def model_path(name: str) -> str:
    """Where SacreBLEU keeps (and bleustream looks for) the model of ``name``."""
    return os.path.join(sacrebleu_dir(), "models", MODELS[name].file_name)


def _load(name: str) -> Callable[[str], list[str]]:
    """The model's ``EncodeAsPieces``; UsageError or OpenError if it cannot be had."""
    from bleustream.extras import require  # here: spm is loaded with every run

    sentencepiece = require("sentencepiece", f"-tok {name}", "SentencePiece", "spm")
    path = model_path(name)
    if not os.path.exists(path):
        raise OpenError(
            f"no SentencePiece model for -tok {name} (bleustream does not download it: "
            f"running SacreBLEU once with -tok {name}, e.g. sacrebleu REF -i HYP -tok {name}, "
            "fetches it here)",
            path,
        )
    processor: Any = sentencepiece.SentencePieceProcessor()
    try:
        processor.Load(path)
    except (OSError, RuntimeError) as exc:
        message = " ".join(str(exc).split())
        raise OpenError(
            f"cannot load the SentencePiece model for -tok {name}: {message}", path
        ) from None
    encode: Callable[[str], list[str]] = processor.EncodeAsPieces
    return encode


def encoder(name: str) -> Callable[[str], list[str]]:
    """The piece encoder of tokenizer ``name``, loaded on first use."""
    found = _ENCODERS.get(name)
    if found is None:
        found = _ENCODERS[name] = _load(name)
    return found


def _tokenize(name: str, line: str) -> list[str]:
    try:
        pieces = encoder(name)(line)
    except (TypeError, RuntimeError, UnicodeError):
        # SentencePiece takes UTF-8: text decoded from another encoding can
        # hold a lone surrogate, which SacreBLEU cannot tokenize either.
        error = lone_surrogate(name, line)
        if error is None:
            raise
        raise error from None
    # A piece can hold white space that is not a space (the model decides),
    # and SacreBLEU's tokens are the joined pieces split on white space.
    return " ".join(pieces).split()


def tokenize_flores101(line: str) -> list[str]:
    """SacreBLEU's ``flores101`` (FLORES-101 SentencePiece model)."""
    return _tokenize("flores101", line)


def tokenize_flores200(line: str) -> list[str]:
    """SacreBLEU's ``flores200`` (FLORES-200 SentencePiece model)."""
    return _tokenize("flores200", line)


def tokenize_spbleu_1k(line: str) -> list[str]:
    """SacreBLEU's ``spBLEU-1K`` (the spBLEU-1K SentencePiece model)."""
    return _tokenize("spBLEU-1K", line)


def tokenize_spm(line: str) -> list[str]:
    """SacreBLEU's ``spm``, the old name of ``flores101``."""
    return _tokenize("spm", line)


def signature(name: str) -> str:
    """SacreBLEU's signature of the tokenizer (``spm`` says ``flores101``)."""
    return MODELS[name].signature


TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "flores101": tokenize_flores101,
    "flores200": tokenize_flores200,
    "spBLEU-1K": tokenize_spbleu_1k,
    "spm": tokenize_spm,
}
