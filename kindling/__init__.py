"""Kindling: Apache Flink's Python DataStream API, executing on Apache Spark.

Change ``pyflink`` to ``kindling`` in a PyFlink job's imports and it runs on Spark.
"""
__version__ = "0.1.0"
