"""bleustream: a streaming BLEU scorer whose numbers are SacreBLEU's."""

__version__ = "0.1.0"
