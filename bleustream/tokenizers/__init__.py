"""Tokenizers: text to the tokens each metric counts (SacreBLEU's, by name)."""
