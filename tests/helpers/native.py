"""The compiled kernels as the tests see them: the built extension, loaded
here on either path, the skip marks of the tests that need it, a child
process's environment, and floats compared by their bits."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import struct
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import bleustream
from bleustream import kernels

PACKAGE_DIR = Path(bleustream.__file__).resolve().parent


def extension_files() -> list[Path]:
    """The built extension in the package directory, if any."""
    return [
        p
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        for p in (PACKAGE_DIR / "_native").glob(f"_kernels{suffix}")
    ]


def load_native() -> ModuleType | None:
    """The compiled kernels, loaded here even on the pure path (where
    ``bleustream.kernels`` did not load them); None when not built."""
    try:
        return importlib.import_module("bleustream._native._kernels")
    except ImportError:
        return None


NATIVE = load_native()
needs_native = pytest.mark.skipif(
    NATIVE is None, reason="the C extension bleustream._native._kernels is not built"
)


def _why_no_kernel() -> str | None:
    """Why the kernel tests cannot run (their skip reason), or None: they
    run on both paths, loading the extension itself where
    ``BLEUSTREAM_PUREPYTHON`` keeps bleustream from it."""
    if not extension_files():
        return "the C extension bleustream._native._kernels is not built"
    return None


NO_KERNEL = _why_no_kernel()
needs_kernel = pytest.mark.skipif(NO_KERNEL is not None, reason=NO_KERNEL or "")


def child_env(**values: str) -> dict[str, str]:
    """This process's environment without ``BLEUSTREAM_PUREPYTHON``, with
    ``values`` set: a child chooses its kernels as told here."""
    env = {k: v for k, v in os.environ.items() if k != kernels.ENV_VAR}
    env.update(values)
    return env


def bits(x: Any) -> str:
    """A float by its bits (and its type); anything else by type and repr."""
    if type(x) is float:
        return f"float:{x.hex()}:{struct.pack('<d', x).hex()}"
    return f"{type(x).__name__}:{x!r}"
