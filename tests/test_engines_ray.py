"""examples/ray_score.py on a real local Ray cluster of two CPUs: the command's output."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bleustream import engines
from tests.engine_cases import CASES, Small, command_output, failing, last_line, load_example
from tests.engine_cases import small_inputs as make_small

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
    """One test, so that one test process starts the engine: every case, then the errors.

    The output of each case is the command's, byte for byte; a worker that
    fails is one error naming Ray, and a bad line in a later part is the
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
        engine="Ray",
        extra="bleustream[ray]",
        parser=example.build_parser(),
    )
    out, err = capsysbinary.readouterr()
    assert status == 71
    assert out == b""
    line = last_line(err)  # the engine may log lines of its own before it
    assert line.startswith("ray_score.py: Ray failed (")
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
    assert last_line(err).startswith(f"ray_score.py: {bad}:251: ")
