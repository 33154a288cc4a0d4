"""What COMET is, as plain data: its name, its options, that it reads
sources, and which settings change only the score.

The command line and the config file learn COMET's options here without
loading the metric (``bleustream.metrics.comet``, the ``IMPLEMENTATION``,
which loads PyTorch and the model only when a run scores COMET).  The
metric module gives the same names (``comet.OPTIONS``...).
"""

from __future__ import annotations

from bleustream.metrics.protocol import OptionSpec

NAME = "comet"
TITLE = "COMET"

# A segment needs its source: the run reads ``--src`` in lockstep.
NEEDS_SOURCE = True
# Segments a run gathers before it scores them, per batch of the model:
# the window sorted by length.
WINDOW_BATCHES = 8

DEFAULT_BATCH_SIZE = 16  # comet-score's default
DEVICES = ("auto", "cpu", "cuda")
IMPLEMENTATION = "bleustream.metrics.comet"

OPTIONS = (
    OptionSpec(
        ("--comet-model",),
        "comet_model",
        None,
        metavar="PATH_OR_ID",
        help="the COMET checkpoint: a directory in unbabel-comet's layout "
        "(checkpoints/model.ckpt, hparams.yaml), its model.ckpt, or a Hugging Face "
        "model id in the local cache (never downloaded)",
    ),
    OptionSpec(
        ("--comet-batch-size",),
        "comet_batch_size",
        DEFAULT_BATCH_SIZE,
        kind="int",
        minimum=1,
        maximum=4096,
        metavar="N",
        help=f"segments per forward pass of the model (default: {DEFAULT_BATCH_SIZE})",
    ),
    OptionSpec(
        ("--comet-device",),
        "comet_device",
        "auto",
        kind="choice",
        choices=DEVICES,
        help="where the model runs: cpu, cuda, or auto (cuda when PyTorch sees a GPU; default)",
    ),
    OptionSpec(
        ("--comet-cache",),
        "comet_cache",
        None,
        metavar="FILE",
        help="keep segment scores in FILE (SQLite) by model, source, hypothesis and "
        "reference; a segment scored before by the same model is read back, not run",
    ),
    OptionSpec(
        ("--comet-max-length",),
        "comet_max_length",
        None,
        kind="int",
        minimum=8,
        maximum=1_000_000,
        metavar="N",
        help="the encoder's maximum tokens per input (default: the model's own); "
        "longer inputs are truncated, as COMET truncates them",
    ),
)

# The signature's fields change no statistics: they travel as scoring settings.
SCORE_ONLY = frozenset({"about"})
SCORE_ONLY_ONE_REF: frozenset[str] = frozenset()
