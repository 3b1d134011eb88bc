"""PyFlink's ``pyflink.testing.test_case_utils`` on Kindling: the unittest base classes PyFlink's
own tests (and users' tests written like them) build on, so that they run with only the import
changed. Each class gets one environment (parallelism 2, as PyFlink's test MiniCluster) on the
process's Spark session; ``cls.t_env`` for the Table classes.

    class MyTests(PyFlinkStreamTableTestCase):
        def test_select(self):
            t = self.t_env.from_elements([(1, 'hi')], ['a', 'b'])
            self.assert_equals([str(r) for r in t.execute().collect()], ["<Row(1, 'hi')>"])

PyFlink's JVM helpers (``to_java_data_structure``, ``invoke_java_object_method``,
``PythonAPICompletenessTestCase``, ``_load_specific_flink_module_jars``) reach into Flink's JVM and
have no Kindling counterpart: importing one fails naming it and why.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import unittest
from functools import wraps
from typing import Any, Dict, List, Optional

from kindling.common.job_execution_result import JobExecutionResult
from kindling.common.unsupported import JVM_ONLY, missing_names
from kindling.datastream.execution_mode import RuntimeExecutionMode
from kindling.datastream.stream_execution_environment import StreamExecutionEnvironment
from kindling.table.table_environment import StreamTableEnvironment
from kindling.testing import source_sink_utils  # noqa: F401 -- brings the 'test-sink' connector, as PyFlink's test jar

__all__ = ["PyFlinkBatchTableTestCase", "PyFlinkBatchTestCase", "PyFlinkITTestCase", "PyFlinkStreamTableTestCase",
           "PyFlinkStreamingTestCase", "PyFlinkTestCase", "PyFlinkUTTestCase", "TestEnv", "Tuple2",
           "exec_insert_table", "replace_uuid", "run_with_config"]


def exec_insert_table(table, table_path: str) -> JobExecutionResult:
    """Inserts ``table`` into ``table_path`` and waits for the job; returns its result."""
    return table.execute_insert(table_path).get_job_client().get_job_execution_result().result()


class PyFlinkTestCase(unittest.TestCase):
    """Base of the test cases: a temporary directory per class (``cls.tempdir``)."""

    @classmethod
    def setUpClass(cls):
        cls.tempdir = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tempdir, ignore_errors=True)

    @classmethod
    def assert_equals(cls, actual: List[Any], expected: List[Any]) -> None:
        """The two lists hold the same elements in any order (both are sorted in place, as PyFlink's)."""
        actual.sort()
        expected.sort()
        assert len(actual) == len(expected), f"{len(actual)} rows, expected {len(expected)}: {actual} != {expected}"
        assert actual == expected, f"{actual} != {expected}"


class PyFlinkITTestCase(PyFlinkTestCase):
    """A test case with one StreamExecutionEnvironment per class (``cls.env``), parallelism 2, in the
    subclass's runtime mode, and with its table environment (``cls.t_env``) for the Table ones."""

    _mode: Optional[RuntimeExecutionMode] = None
    _tables = False

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.env = StreamExecutionEnvironment.get_execution_environment()
        cls.env.set_parallelism(2)
        if cls._mode is not None:
            cls.env.set_runtime_mode(cls._mode)
        if cls._tables:
            cls.t_env = _table_environment(cls.env)


class PyFlinkUTTestCase(PyFlinkTestCase):
    """A fresh streaming environment and table environment for every test (``self.env``, ``self.t_env``)."""

    def setUp(self) -> None:
        self.env = StreamExecutionEnvironment.get_execution_environment()
        self.env.set_runtime_mode(RuntimeExecutionMode.STREAMING)
        self.env.set_parallelism(2)
        self.t_env = _table_environment(self.env)


class PyFlinkStreamTableTestCase(PyFlinkITTestCase):
    """Table tests in streaming mode: ``cls.t_env`` on the class's environment."""

    _mode, _tables = RuntimeExecutionMode.STREAMING, True


class PyFlinkBatchTableTestCase(PyFlinkITTestCase):
    """Table tests in batch mode: ``cls.t_env`` on the class's environment."""

    _mode, _tables = RuntimeExecutionMode.BATCH, True


class PyFlinkStreamingTestCase(PyFlinkITTestCase):
    """DataStream tests in streaming mode (``cls.env``)."""

    _mode = RuntimeExecutionMode.STREAMING


class PyFlinkBatchTestCase(PyFlinkITTestCase):
    """DataStream tests in batch mode (``cls.env``)."""

    _mode = RuntimeExecutionMode.BATCH


def _table_environment(env: StreamExecutionEnvironment) -> StreamTableEnvironment:
    t_env = StreamTableEnvironment.create(env)
    t_env.get_config().set("python.fn-execution.bundle.size", "1")  # as PyFlink's test cases
    return t_env


def run_with_config(config_dict: Dict[str, str]):
    """Runs the decorated test method with the environment's configuration keys set to
    ``config_dict``'s values, and sets them back afterwards."""

    def decorator(func):
        @wraps(func)
        def wrapper(self, *args, **kwargs):
            config = self.env.get_configuration()
            before = {key: config.get_string(key, None) for key in config_dict}
            for key, value in config_dict.items():
                config.set_string(key, value)
            try:
                return func(self, *args, **kwargs)
            finally:
                for key, value in before.items():
                    if value is None:
                        config.remove_config(key)
                    else:
                        config.set_string(key, value)

        return wrapper

    return decorator


def replace_uuid(input_obj: Any) -> Any:
    """``input_obj`` (a string, or a dict of them) with every UUID replaced by ``{uuid}``."""
    if isinstance(input_obj, str):
        return re.sub(r'[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}', '{uuid}', input_obj)
    if isinstance(input_obj, dict):
        return {replace_uuid(k): replace_uuid(v) for k, v in input_obj.items()}
    return None


class Tuple2:
    """A pair as Flink's Java ``Tuple2`` (``f0``, ``f1``, ``getField``), for :class:`TestEnv`."""

    def __init__(self, f0: Any, f1: Any):
        self.f0, self.f1 = f0, f1
        self.field = [f0, f1]

    def getField(self, index: int) -> Any:  # noqa: N802 -- Java's name, as PyFlink's
        return self.field[index]


class TestEnv:
    """Records ``registerCachedFile`` calls, as PyFlink's dependency tests read them."""

    __test__ = False  # not a pytest test class

    def __init__(self):
        self.result: List[Tuple2] = []

    def registerCachedFile(self, file_path: str, key: str) -> None:  # noqa: N802
        self.result.append(Tuple2(key, file_path))

    def getCachedFiles(self) -> List[Tuple2]:  # noqa: N802
        return self.result

    def to_dict(self) -> Dict[str, str]:
        return {item.f0: item.f1 for item in self.result}


os.environ.setdefault("FLINK_TESTING", "1")  # PyFlink's test cases set it; some tests read it

__getattr__ = missing_names(__name__, dict.fromkeys(
    ("PythonAPICompletenessTestCase", "invoke_java_object_method", "to_java_data_structure",
     "_load_specific_flink_module_jars"), JVM_ONLY))
