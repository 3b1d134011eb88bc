"""Unchanged PyFlink jobs: inside ``kindling run`` (and only there) ``import pyflink...``
imports Kindling, in the job and in the modules Spark's Python workers import for it."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest


def python(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_CONF")}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=120)


def test_importing_kindling_does_not_alias_pyflink():
    result = python("import kindling, kindling.datastream, kindling.cli\nimport pyflink")
    assert "No module named 'pyflink'" in result.stderr


def test_the_alias_serves_kindlings_own_modules_and_refuses_what_kindling_lacks():
    result = python('''
        from kindling.pyflink_alias import install
        install()
        import kindling, kindling.datastream, pyflink, pyflink.datastream
        from pyflink.common import Types
        assert pyflink is kindling and pyflink.datastream is kindling.datastream
        assert kindling.datastream.__spec__.name == "kindling.datastream"  # its own spec, not the alias's
        assert Types.__module__.startswith("kindling.")
        import pyflink.datastream.connectors.pulsar
    ''')
    assert "NotSupportedYetError" in result.stderr and "Pulsar connector" in result.stderr, result.stderr


@pytest.mark.slow
def test_kindling_run_runs_an_unchanged_pyflink_job_and_its_helper_module(tmp_path):
    (tmp_path / "helper_fn.py").write_text(textwrap.dedent('''
        from pyflink.datastream.functions import MapFunction

        class Double(MapFunction):  # imported by reference in Spark's Python workers
            def map(self, value):
                return value[0], value[1] * 2
    '''))
    (tmp_path / "pyflink_job.py").write_text(textwrap.dedent('''
        from pyflink.common import Types
        from pyflink.datastream import StreamExecutionEnvironment
        from helper_fn import Double

        env = StreamExecutionEnvironment.get_execution_environment()
        env.set_parallelism(2)
        pairs = Types.TUPLE([Types.STRING(), Types.INT()])
        env.from_collection([("a", 1), ("b", 2), ("a", 3)], type_info=pairs) \\
            .map(Double(), pairs).key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
        env.execute()
    '''))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_CONF")}
    result = subprocess.run([sys.executable, "-m", "kindling", "run", "--master", "local[2]", "-D",
                             "kindling.progress=false", "pyflink_job.py"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    assert sorted(line.split("> ")[-1] for line in result.stdout.splitlines()) == ["(a,2)", "(a,8)", "(b,4)"]
