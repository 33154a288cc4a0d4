#!/usr/bin/env python3
"""Score with Spark: the records ``bleustream`` prints, byte for byte.

    python examples/spark_score.py REF... -i HYP... [bleustream options]
    python examples/spark_score.py REF... -i HYP --master spark://head:7077 --parts 256

The options are ``bleustream``'s, plus ``--master`` (default:
``local[N]``, N from ``--workers``, every core without it) and
``--parts``.  The files are cut into parts at line starts here (bytes
only); ``mapPartitions`` reads and counts each part on an executor, so the
files must be readable at the same path everywhere, and a reduce adds
the statistics (exactly, in any order).  ``bleustream.engines`` does the
rest.  The executors run this Python (``PYSPARK_PYTHON``, unless set).

Exit status: as ``bleustream``'s; 2 also when PySpark is not installed;
71 the engine failed (no score is printed).
"""

from __future__ import annotations

import argparse
import operator
import os
import sys
from collections.abc import Sequence

from bleustream import engines

PROG = "spark_score.py"


def score(job: engines.Job, args: argparse.Namespace) -> engines.Stats:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # else the executors run PATH's
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    started = session is None
    if started:
        master = args.master or f"local[{args.workers or '*'}]"
        builder = SparkSession.builder.master(master).appName("bleustream")
        for key, value in (
            ("spark.ui.enabled", "false"),
            ("spark.log.level", "ERROR"),
            ("spark.ui.showConsoleProgress", "false"),
        ):
            builder = builder.config(key, value)
        session = builder.getOrCreate()
    try:
        context = session.sparkContext
        slots = context.defaultParallelism
        parts = job.parts(args.parts or 4 * slots, min_lines=1 if args.parts else 1000)
        rdd = context.parallelize(parts, len(parts))
        return rdd.mapPartitions(lambda some: map(job.part_stats, some)).reduce(operator.add)
    finally:
        if started:
            session.stop()


def build_parser() -> argparse.ArgumentParser:
    return engines.engine_parser(
        PROG,
        "Spark",
        engines.engine_options(
            ("--master", "the Spark master URL (default: local[N])"),
            "N of local[N] (default: every core)",
            per="core",
        ),
    )


def main(argv: Sequence[str] | None = None) -> int:
    return engines.run(
        score,
        argv,
        prog=PROG,
        engine="Spark",
        extra="bleustream[spark]",
        requires=("pyspark",),
        parser=build_parser(),
    )


if __name__ == "__main__":
    sys.exit(main())
