#!/usr/bin/env python3
"""Score with Ray Data: the records ``bleustream`` prints, byte for byte.

    python examples/ray_score.py REF... -i HYP... [bleustream options]
    python examples/ray_score.py REF... -i HYP --address ray://head:10001 --parts 256

The options are ``bleustream``'s, plus ``--address`` (a running cluster;
default: a local one of ``--workers`` CPUs, started and stopped here) and
``--parts``.  The files are cut into parts at line starts here (bytes
only); each part is one row of a dataset that ``map_batches`` turns into
its statistics, read on a worker, so the files must be readable at the
same path everywhere.  ``bleustream.engines`` does the rest.

A crashed task is an error (``max_retries=0``: Ray Data would retry it
forever), and no block may be dropped (``max_errored_blocks=0``); the
records refuse statistics with a part missing anyway.

Exit status: as ``bleustream``'s; 2 also when Ray is not installed; 71
the engine failed (no score is printed).
"""

from __future__ import annotations

import argparse
import logging
import os
import pickle
import sys
import warnings
from collections.abc import Sequence

from bleustream import engines

PROG = "ray_score.py"


def score(job: engines.Job, args: argparse.Namespace) -> engines.Stats:
    import ray

    warnings.filterwarnings("ignore", message=".*ray_remote_args.* is deprecated")

    started = not ray.is_initialized()
    if started:
        ray.init(
            address=args.address,
            num_cpus=None if args.address else args.workers,
            include_dashboard=False,
            logging_level="ERROR",
            log_to_driver=False,
        )
    try:
        logging.getLogger("ray.data").setLevel(logging.ERROR)
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = context.print_on_execution_start = False
        context.max_errored_blocks = 0  # a failed block fails the run: never a smaller corpus
        slots = int(ray.cluster_resources().get("CPU", 1))
        parts = job.parts(args.parts or 4 * slots, min_lines=1 if args.parts else 1000)

        def stats(batch: dict) -> dict:
            return {"stats": [pickle.dumps(job.part_stats(parts[i])) for i in batch["part"]]}

        items = [{"part": i} for i in range(len(parts))]
        dataset = ray.data.from_items(items, override_num_blocks=len(parts))
        rows = dataset.map_batches(stats, batch_size=1, max_retries=0).take_all()
        return sum((pickle.loads(row["stats"]) for row in rows), job.zero())
    finally:
        if started:
            ray.shutdown()


def build_parser() -> argparse.ArgumentParser:
    return engines.engine_parser(
        PROG,
        "Ray",
        engines.engine_options(
            ("--address", "a running Ray cluster (default: start a local one)"),
            "CPUs of the local cluster (default: every core)",
        ),
    )


def main(argv: Sequence[str] | None = None) -> int:
    return engines.run(
        score,
        argv,
        prog=PROG,
        engine="Ray",
        extra="bleustream[ray]",
        requires=("ray.data",),
        parser=build_parser(),
    )


if __name__ == "__main__":
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    sys.exit(main())
