"""Kindling benchmarks: see benchmarks/README.md."""
