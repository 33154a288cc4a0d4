"""A COMET model that cannot be loaded is one ``ModelError``: one line naming
the model and what to do, status 66 when it is not there, 65 when it is
there but unusable; never a traceback, never a download.  And what a loaded
model says of itself (family, references, identity, signature)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bleustream.comet import ModelError, load_model
from bleustream.errors import EXIT_DATAERR, EXIT_NOINPUT, EXIT_USAGE, UsageError


def copy_checkpoint(source: Path, target: Path) -> Path:
    """A copy of a built checkpoint directory (its encoder stays where it is)."""
    (target / "checkpoints").mkdir(parents=True)
    shutil.copy(source / "hparams.yaml", target / "hparams.yaml")
    shutil.copy(source / "checkpoints" / "model.ckpt", target / "checkpoints" / "model.ckpt")
    return target


def set_encoder(ckpt: Path, pretrained_model: str) -> None:
    """The encoder a checkpoint names (in model.ckpt's hyper-parameters,
    which unbabel-comet builds the model from; hparams.yaml gives the class)."""
    import torch

    loaded = torch.load(ckpt, weights_only=True)
    loaded["hyper_parameters"]["pretrained_model"] = pretrained_model
    torch.save(loaded, ckpt)


def load_error(model: str | Path) -> ModelError:
    with pytest.raises(ModelError) as caught:
        load_model(str(model))
    message = str(caught.value)
    assert "\n" not in message and str(model) in message
    return caught.value


def test_missing_directory(tmp_path: Path) -> None:
    error = load_error(tmp_path / "no-such-model")
    assert error.status == EXIT_NOINPUT
    assert "no such file or directory" in str(error)


def test_directory_without_checkpoint(tmp_path: Path) -> None:
    error = load_error(tmp_path)
    assert error.status == EXIT_NOINPUT
    assert "checkpoints/model.ckpt" in str(error)


@pytest.fixture
def checkpoint_copy(comet_checkpoint: Callable[[str], Path], tmp_path: Path) -> Path:
    return copy_checkpoint(comet_checkpoint("regression"), tmp_path / "model")


def test_corrupt_checkpoint(checkpoint_copy: Path) -> None:
    (checkpoint_copy / "checkpoints" / "model.ckpt").write_bytes(b"not a checkpoint\n" * 40)
    error = load_error(checkpoint_copy)
    assert error.status == EXIT_DATAERR
    assert "cannot be read as a checkpoint" in str(error)


def test_truncated_checkpoint(checkpoint_copy: Path) -> None:
    ckpt = checkpoint_copy / "checkpoints" / "model.ckpt"
    data = ckpt.read_bytes()
    ckpt.write_bytes(data[: len(data) // 2])
    assert load_error(checkpoint_copy).status == EXIT_DATAERR


class Smuggled:
    """An object whose unpickling would run code (``print``)."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("SMUGGLED CODE RAN",))


def test_checkpoint_holding_python_objects_is_not_run(
    checkpoint_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """torch.load(weights_only=True): a pickle of other objects is refused, unrun."""
    import torch

    ckpt = checkpoint_copy / "checkpoints" / "model.ckpt"
    state = torch.load(ckpt, weights_only=True)
    torch.save({**state, "extra": Smuggled()}, ckpt)
    error = load_error(checkpoint_copy)
    assert error.status == EXIT_DATAERR
    assert "cannot be read as a checkpoint" in str(error)
    assert "SMUGGLED" not in capsys.readouterr().out


def test_checkpoint_missing_a_weight(checkpoint_copy: Path) -> None:
    import torch

    ckpt = checkpoint_copy / "checkpoints" / "model.ckpt"
    state = torch.load(ckpt, weights_only=True)
    del state["state_dict"]["estimator.ff.0.weight"]
    torch.save(state, ckpt)
    error = load_error(checkpoint_copy)
    assert error.status == EXIT_DATAERR
    assert "estimator.ff.0.weight" in str(error)


def test_unknown_class_identifier(checkpoint_copy: Path) -> None:
    hparams = checkpoint_copy / "hparams.yaml"
    text = hparams.read_text(encoding="utf-8")
    hparams.write_text(
        text.replace("class_identifier: regression_metric", "class_identifier: ranking_metric"),
        encoding="utf-8",
    )
    error = load_error(checkpoint_copy)
    assert error.status == EXIT_DATAERR
    assert "unknown class_identifier 'ranking_metric'" in str(error)


def test_missing_hparams(checkpoint_copy: Path) -> None:
    (checkpoint_copy / "hparams.yaml").unlink()
    error = load_error(checkpoint_copy)
    assert error.status == EXIT_DATAERR
    assert "no hparams.yaml" in str(error)


def test_model_ckpt_path_loads_as_its_directory(checkpoint_copy: Path) -> None:
    """``comet-score --model`` takes the model.ckpt: so does load_model."""
    by_file = load_model(str(checkpoint_copy / "checkpoints" / "model.ckpt"))
    assert by_file.identity == load_model(str(checkpoint_copy)).identity


LOAD_AND_REPORT = """
import sys
from bleustream.comet import ModelError, load_model
try:
    load_model(sys.argv[1])
except ModelError as exc:
    print(exc.status)
    print(exc)
"""


def load_offline(model: str, hf_home: Path) -> list[str]:
    """``load_model(model)`` in a child with an empty Hugging Face cache, offline:
    its error's status and line."""
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
    env.pop("HF_HUB_CACHE", None)
    env.pop("HUGGINGFACE_HUB_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", LOAD_AND_REPORT, model],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout.splitlines()


def test_model_id_without_cached_copy(tmp_path: Path) -> None:
    lines = load_offline("Unbabel/wmt22-comet-da", tmp_path / "hf")
    assert len(lines) == 2, lines
    assert lines[0] == str(EXIT_NOINPUT)
    assert "COMET model Unbabel/wmt22-comet-da:" in lines[1]
    assert "no copy in the Hugging Face cache" in lines[1]
    assert "huggingface-cli download Unbabel/wmt22-comet-da" in lines[1]
    assert not any((tmp_path / "hf").rglob("*.ckpt"))


def test_encoder_id_without_cached_copy(checkpoint_copy: Path, tmp_path: Path) -> None:
    """A checkpoint whose encoder (``pretrained_model``) is a model id not in the cache."""
    set_encoder(checkpoint_copy / "checkpoints" / "model.ckpt", "xlm-roberta-large")
    out = load_offline(str(checkpoint_copy), tmp_path / "hf")
    assert len(out) == 2, out
    assert out[0] == str(EXIT_NOINPUT)
    assert str(checkpoint_copy) in out[1] and "xlm-roberta-large" in out[1]
    assert "huggingface-cli download xlm-roberta-large" in out[1]


FAMILIES = {
    "regression": ("regression", True, "yes"),
    "referenceless": ("referenceless", False, "no"),
    "unified": ("unified", False, "yes"),
    "xcomet": ("unified", False, "yes"),
}


@pytest.mark.parametrize("name", list(FAMILIES))
def test_what_a_model_says_of_itself(name: str, comet_checkpoint: Callable[[str], Path]) -> None:
    checkpoint = comet_checkpoint(name)
    model = load_model(str(checkpoint))
    family, needs_references, refs = FAMILIES[name]
    assert (model.family, model.needs_references) == (family, needs_references)
    ckpt = checkpoint / "checkpoints" / "model.ckpt"
    digest = hashlib.sha256(ckpt.read_bytes()).hexdigest()[:16]
    assert digest in model.identity and "maxlen=126" in model.identity
    assert model.signature_fields["digest"] == digest
    assert model.signature_fields["refs"] == refs
    assert model.signature_fields["precision"] == "fp32"
    assert model.signature_fields["maxlen"] == "126"
    assert model.name == str(checkpoint)
    assert model.forward_passes == 0 and model.truncated() == 0
    assert model.score_batch([], [], None) == []


def fake_hub_cache(hf_home: Path, repo_id: str, files: dict[str, Path]) -> None:
    """``files`` laid out as the Hugging Face cache keeps a downloaded snapshot."""
    commit = "0" * 40
    repo = hf_home / "hub" / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")
    for name, source in files.items():
        target = repo / "snapshots" / commit / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)


LOAD_AND_SCORE = """
import sys
from bleustream.comet import load_model
model = load_model(sys.argv[1])
print(model.identity)
print(repr(model.score_batch(["Hello world."], ["Hallo Welt."], ["Hallo, Welt."])[0]))
"""


def test_model_and_encoder_ids_from_the_cache_offline(
    comet_checkpoint: Callable[[str], Path], tmp_path: Path
) -> None:
    """A model id and its encoder's id, both found in the local cache, with
    the network off: the same model, the same score as the directory."""
    checkpoint = comet_checkpoint("regression")
    encoder = checkpoint / "encoder"
    copy = copy_checkpoint(checkpoint, tmp_path / "copy")
    set_encoder(copy / "checkpoints" / "model.ckpt", "test-org/tiny-xlmr")
    hf_home = tmp_path / "hf"
    fake_hub_cache(
        hf_home,
        "test-org/tiny-comet",
        {
            "hparams.yaml": copy / "hparams.yaml",
            "checkpoints/model.ckpt": copy / "checkpoints" / "model.ckpt",
        },
    )
    fake_hub_cache(hf_home, "test-org/tiny-xlmr", {p.name: p for p in encoder.iterdir()})
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
    env.pop("HF_HUB_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", LOAD_AND_SCORE, "test-org/tiny-comet"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    identity, score = done.stdout.splitlines()
    direct = load_model(str(checkpoint))
    digest = hashlib.sha256((copy / "checkpoints" / "model.ckpt").read_bytes()).hexdigest()[:16]
    assert identity == direct.identity.replace(direct.signature_fields["digest"], digest)
    expected = direct.score_batch(["Hello world."], ["Hallo Welt."], ["Hallo, Welt."])[0]
    assert abs(float(score) - expected) <= 1e-6


@pytest.mark.parametrize("device", ["no-such-device", "cuda:99"])
def test_unusable_device(device: str, comet_checkpoint: Callable[[str], Path]) -> None:
    with pytest.raises(UsageError) as caught:
        load_model(str(comet_checkpoint("regression")), device=device)
    assert str(caught.value).startswith(f"COMET device {device!r} cannot be used: ")
    assert "\n" not in str(caught.value) and caught.value.status == EXIT_USAGE
