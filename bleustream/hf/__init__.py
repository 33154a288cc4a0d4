"""bleustream as a Hugging Face ``evaluate`` module, shipped with the package."""

from __future__ import annotations

from pathlib import Path

from bleustream.extras import install_command

__all__ = ["evaluate_module_path"]


def evaluate_module_path() -> str:
    """The directory of the module, for ``evaluate.load(path, "bleu")`` (or "chrf", "ter").

    It loads offline: nothing is fetched from the Hub.  Without ``evaluate``
    installed, an ImportError names the extra to install.
    """
    try:
        import evaluate  # noqa: F401 - what the module runs on
    except ImportError:
        raise ImportError(f"needs Hugging Face evaluate: {install_command('hf')}") from None
    return str(Path(__file__).resolve().parent / "bleustream_metric")
