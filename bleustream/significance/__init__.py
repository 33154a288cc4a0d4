"""Significance: the segment store, SacreBLEU's resampling draws and their numpy scoring.

SacreBLEU's public ``significance`` API (``PairedTest``, ``Result``,
``estimate_ci``, ``IS_WINDOWS``) is in its wing, ``bleustream.sacrebleu.significance``.
"""
