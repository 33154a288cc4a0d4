"""Build the optional C kernels, ``bleustream._native._kernels``.

The project's metadata is in ``pyproject.toml``; this file only adds the
extension.  Where there is no C compiler, or the build fails, the install
still succeeds, on the pure-Python path, and says so in one warning
(``bleustream.KERNELS`` is then ``"python"``).
"""

from __future__ import annotations

import os
import sys
import warnings

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

try:  # setuptools >= 59 vendors distutils' errors here
    from setuptools.errors import CCompilerError, ExecError, PlatformError

    BUILD_ERRORS: tuple[type[BaseException], ...] = (
        CCompilerError,
        ExecError,
        PlatformError,
        OSError,
        ValueError,
    )
except ImportError:  # pragma: no cover - older setuptools
    from distutils.errors import CCompilerError, DistutilsExecError, DistutilsPlatformError

    BUILD_ERRORS = (CCompilerError, DistutilsExecError, DistutilsPlatformError, OSError, ValueError)

PURE_PYTHON_WARNING = (
    "bleustream: the C kernels could not be built ({error}); "
    "installing the pure-Python path, which gives the same numbers, more slowly"
)


class BuildFailed(Exception):
    """The extension did not build: the install goes on without it."""


class optional_build_ext(build_ext):
    """build_ext that turns a failed build into one warning (markupsafe's pattern)."""

    def run(self) -> None:
        try:
            super().run()
        except BUILD_ERRORS as error:
            self._warn(error)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except BUILD_ERRORS as error:
            self._warn(error)

    def _warn(self, error: BaseException) -> None:
        if getattr(self, "_warned", False):
            return
        self._warned = True
        message = PURE_PYTHON_WARNING.format(error=str(error).strip() or type(error).__name__)
        warnings.warn(message, stacklevel=1)


def _compile_args() -> list[str]:
    if sys.platform == "win32":
        return []
    # No fused multiply-add: Python rounds a * b and then + c, and the
    # BLEU score kernel must round as it does (clang contracts by default).
    args = ["-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-ffp-contract=off"]
    if not os.environ.get("CFLAGS"):
        args.append("-O2")
    return args


# The kernels' sources, one concept a file, and their one internal header.
# The extension lives beside them, in bleustream/_native/, a folder that is
# no package of its own: unbuilt, ``bleustream._native`` imports as an empty
# namespace package, and only ``bleustream._native._kernels`` means a build.
KERNEL_SOURCES = [
    f"bleustream/_native/{name}.c"
    for name in (
        "module",
        "args",
        "arena",
        "ngrams",
        "tokenize",
        "bleu_rows",
        "bleu_lines",
        "line_blocks",
        "bleu_blocks",
        "chrf",
        "chrf_scores",
        "chrf_blocks",
        "newlines",
        "scores",
        "ter",
        "token_bleu",
        "id_ngrams",
        "analysis",
    )
]

setup(
    ext_modules=[
        Extension(
            "bleustream._native._kernels",
            KERNEL_SOURCES,
            depends=["bleustream/_native/kernels.h"],
            extra_compile_args=_compile_args(),
            optional=False,
        )
    ],
    cmdclass={"build_ext": optional_build_ext},
)
