"""Parallel counting: the worker pool, byte-range blocks of files, and what travels to workers."""
