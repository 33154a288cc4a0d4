"""The error of a COMET model that cannot be loaded."""

from __future__ import annotations

from bleustream.errors import EXIT_DATAERR, EXIT_NOINPUT, BleustreamError


class ModelError(BleustreamError):
    """A COMET model that cannot be loaded: one line naming the model and
    what to do.  Status 66 when it cannot be found (no such checkpoint, a
    model id with no local copy), 65 when it is there but unusable
    (corrupt, an unknown kind of model)."""

    status = EXIT_NOINPUT

    def __init__(self, message: str, status: int = EXIT_NOINPUT) -> None:
        super().__init__(message)
        self.status = status


def corrupt(model: str, problem: str) -> ModelError:
    """The error for a checkpoint that is there but cannot be used."""
    return ModelError(f"COMET model {model}: {problem}", EXIT_DATAERR)
