"""token_bleu's kept thread pool: shared by Python threads calling with
different ``threads=``, and made anew in a forked child.  Every number is
SacreBLEU's (``oracle``, called here), on whichever kernels the process
chose."""

from __future__ import annotations

import json
import os
import select
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

import bleustream
from tests.metrics.test_token_bleu import oracle


def test_python_threads_with_different_thread_counts_share_the_pool() -> None:
    """Python threads split a training loop's work, each calling with its
    own ``threads=``: a call with another N replaces the kept pool while
    others are mapping on it, and none of them fails or gets another
    number (a pool shut down under a running batch refused its work)."""
    rng = np.random.default_rng(11)
    refs = rng.integers(0, 20, (12, 30))
    hyps = np.where(rng.random(refs.shape) < 0.3, rng.integers(0, 20, refs.shape), refs)
    want, _ = oracle(hyps.tolist(), [refs.tolist()])
    expected = [float.hex(x) for x in want]
    assert _scores_on_threads(hyps, refs, 1) == expected
    start = threading.Barrier(6)

    def work(k: int) -> list[list[str] | str]:
        start.wait()
        found: list[list[str] | str] = []
        for j in range(50):
            try:
                found.append(_scores_on_threads(hyps, refs, 2 + (j + k) % 3))
            except RuntimeError as exc:
                found.append(str(exc))
        return found

    with ThreadPoolExecutor(6) as pool:
        results = [result for part in pool.map(work, range(6)) for result in part]
    assert [r for r in results if r != expected] == []
    assert len(results) == 300


def _scores_on_threads(hyps: Any, refs: Any, threads: int) -> list[str]:
    return [float.hex(x) for x in bleustream.token_bleu(hyps, [refs], threads=threads)]


def _in_forked_child(func: Any, *args: Any) -> Any:
    """func(*args) in a child forked from this process, its result read back
    through a pipe; a child that has not answered in a minute (a hang: the
    failure this guards against) is killed and the test fails."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, and leave without running the parent's exit code
        try:
            os.write(write, json.dumps(func(*args)).encode())
        finally:
            os._exit(0)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 60)
        if not ready:
            os.kill(pid, signal.SIGKILL)
            pytest.fail("the forked child did not answer: a hang")
        with os.fdopen(read, "rb") as pipe:
            return json.loads(pipe.read())
    finally:
        os.waitpid(pid, 0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_kept_thread_pool_is_made_anew_in_a_forked_child() -> None:
    """threads=N keeps its pool for the next batch; a child forked after one
    has none of its threads, and scores with a pool of its own (not a hang
    on the parent's), then the parent's is used again, and a batch with
    another N replaces it."""
    rng = np.random.default_rng(3)
    refs = rng.integers(0, 30, (40, 50))
    hyps = np.where(rng.random(refs.shape) < 0.3, rng.integers(0, 30, refs.shape), refs)
    want, _ = oracle(hyps.tolist(), [refs.tolist()])
    expected = [float.hex(x) for x in want]
    assert _scores_on_threads(hyps, refs, 2) == expected  # the pool is made and kept
    assert _in_forked_child(_scores_on_threads, hyps, refs, 2) == expected
    assert _scores_on_threads(hyps, refs, 2) == expected
    assert _scores_on_threads(hyps, refs, 3) == expected
