"""Argument types shared by the command line and the metrics' options.

Each returns a function that argparse calls on the option's text; the
config file calls the same function on a TOML value's text, so a value is
checked the same way wherever it comes from.  The return annotations tell
the config file which TOML type an option takes.
"""

from __future__ import annotations

import argparse
from typing import Callable


def whole_number(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` (to ``maximum``)."""
    if maximum is not None:
        requirement = f"must be a whole number from {minimum} to {maximum}"
    elif minimum == 0:
        requirement = "must not be negative"
    else:
        requirement = f"must be at least {minimum}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"{requirement}: {text!r}")
        return value

    return parse


def bounded_number(minimum: float, maximum: float) -> Callable[[str], float]:
    """An argparse type: a number from ``minimum`` to ``maximum`` (never NaN)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not minimum <= value <= maximum:  # also false for nan
            raise argparse.ArgumentTypeError(
                f"must be a number from {minimum:g} to {maximum:g}: {text!r}"
            )
        return value

    return parse
