"""Flink operator semantics in pure Python, run inside Spark tasks (no Spark imports here)."""
