"""Benchmark workloads: each module exposes ``WORKLOAD`` or ``WORKLOADS`` (see benchmarks/harness.py)."""
