"""examples/spark_score.py on a real local Spark session, local[2]: the command's output."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.comet_checkpoints import build_checkpoint
from tests.helpers.engine_cases import Small, check_comet_engine, check_engine, load_example
from tests.helpers.engine_cases import small_inputs as make_small

pytestmark = pytest.mark.slow  # a real cluster of the engine

pyspark = pytest.importorskip(
    "pyspark", reason="PySpark is not installed: pip install 'bleustream[spark]'"
)

example = load_example("spark_score")


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A local[2] session, found by the example as the active one; a failed task fails."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master("local[2]").appName("bleustream-tests")
    for key, value in (
        ("spark.ui.enabled", "false"),
        ("spark.ui.showConsoleProgress", "false"),
        ("spark.log.level", "OFF"),
        ("spark.task.maxFailures", "1"),
    ):
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    yield
    session.stop()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Small:
    return make_small(tmp_path_factory.mktemp("spark"))


def test_spark_scores_as_the_command_does(
    cluster: None, small: Small, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """One test, so that one test process starts the engine: every case, then the errors."""
    check_engine(example, "Spark", small, tmp_path, capsysbinary)


def test_spark_scores_comet_as_the_command_does(
    cluster: None, small: Small, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """COMET from a real checkpoint built here, each worker loading it."""
    check_comet_engine(example, small, build_checkpoint("regression"), capsysbinary)
