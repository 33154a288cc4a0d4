"""Tokenizers: text to the tokens each metric counts (SacreBLEU's, by name).

``registry`` has them by name; ``objects`` has SacreBLEU's tokenizer
objects on them (``Tokenizer13a``...), which ``bleustream.sacrebleu.tokenizers``
gives under SacreBLEU's module names.
"""
