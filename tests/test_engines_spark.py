"""examples/spark_score.py on a real local Spark session, local[2]: the command's output."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bleustream import engines
from tests.engine_cases import CASES, Small, command_output, failing, last_line, load_example
from tests.engine_cases import small_inputs as make_small

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
    """One test, so that one test process starts the engine: every case, then the errors.

    The output of each case is the command's, byte for byte; a worker that
    fails is one error naming Spark, and a bad line in a later part is the
    command's error; neither prints a score.
    """
    for case, make in CASES.items():
        args = [str(a) for a in make(small)]
        status = example.main([*args, "--no-config", "--parts", "3"])
        out, err = capsysbinary.readouterr()
        assert status == 0, (case, err)
        assert out == command_output(*args), case

    status = engines.run(
        lambda job, args: example.score(failing(job), args),
        [str(small.ref17), "-i", str(small.hyps17[0]), "--no-config", "--parts", "3"],
        prog=example.PROG,
        engine="Spark",
        extra="bleustream[spark]",
        parser=example.build_parser(),
    )
    out, err = capsysbinary.readouterr()
    assert status == 71
    assert out == b""
    line = last_line(err)  # the engine may log lines of its own before it
    assert line.startswith("spark_score.py: Spark failed (")
    assert "RuntimeError: injected failure" in line
    assert line.endswith("; no score is printed")

    lines = small.hyps17[0].read_bytes().split(b"\n")
    lines[250] = lines[250][:3] + b"\xff" + lines[250][3:]
    bad = tmp_path / "bad.de"
    bad.write_bytes(b"\n".join(lines))
    status = example.main([str(small.ref17), "-i", str(bad), "--no-config", "--parts", "3"])
    out, err = capsysbinary.readouterr()
    assert status == 65
    assert out == b""
    assert last_line(err).startswith(f"spark_score.py: {bad}:251: ")
