"""Inputs: line sources, pairing with references, log readers, stats records read back."""
