"""SacreBLEU's ``tokenizers``: ``BaseTokenizer`` and its ``tokenizer_*``
modules, each SacreBLEU's class on bleustream's tokenizer
(``bleustream.tokenizers.objects``)."""

from __future__ import annotations

from bleustream.tokenizers.objects import BaseTokenizer

__all__ = ["BaseTokenizer"]
