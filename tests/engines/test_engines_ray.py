"""examples/ray_score.py on a real local Ray cluster of two CPUs: the command's output."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.comet_checkpoints import build_checkpoint
from tests.helpers.engine_cases import Small, check_comet_engine, check_engine, load_example
from tests.helpers.engine_cases import small_inputs as make_small

pytestmark = pytest.mark.slow  # a real cluster of the engine

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'bleustream[ray]'")

example = load_example("ray_score")


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Small:
    return make_small(tmp_path_factory.mktemp("ray"))


def test_ray_scores_as_the_command_does(
    cluster: None, small: Small, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """One test, so that one test process starts the engine: every case, then the errors."""
    check_engine(example, "Ray", small, tmp_path, capsysbinary)


def test_ray_scores_comet_as_the_command_does(
    cluster: None, small: Small, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """COMET from a real checkpoint built here, each worker loading it."""
    check_comet_engine(example, small, build_checkpoint("regression"), capsysbinary)
