"""Imports inside ``kindling`` point one way: datastream -> graph -> spark -> runtime.

The API (``kindling.datastream``) records what the user asked for in the job graph
(``kindling.graph``, plain data); the Spark compiler (``kindling.spark``) chooses the runtime
operators (``kindling.runtime``), which know only the user-facing base classes of functions,
state and windows, and ``kindling.common``. Only ``kindling.spark`` imports pyspark. Every import
statement of the package, also those inside functions, is checked.
"""
from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import kindling

PACKAGE = pathlib.Path(kindling.__file__).parent

#: the user-facing modules of ``kindling.datastream`` that user functions subclass or use
#: (functions, state descriptors, windows, tags): what runtime operators may know of the API
USER_FACING = ('kindling.datastream.functions', 'kindling.datastream.state',
               'kindling.datastream.output_tag', 'kindling.datastream.time_domain',
               'kindling.datastream.execution_mode', 'kindling.datastream.window',
               'kindling.datastream.async_retry_strategies', 'kindling.metrics')

#: for the modules under each prefix (longest prefix wins): the modules they may import
ALLOWED = {
    'kindling.common': ('kindling.common',),
    'kindling.metrics': ('kindling.common', 'kindling.metrics'),
    # the Table API builds DataStream jobs (kindling/table, docs/table.md)
    'kindling.table': ('kindling.common', 'kindling.graph', 'kindling.datastream', 'kindling.table'),
    # the planner lowers a plan into the job: its Python nodes run the Table operators of kindling/runtime/table
    'kindling.table.planner.lowering': ('kindling.common', 'kindling.graph', 'kindling.datastream', 'kindling.table',
                                        'kindling.runtime.table'),
    # a lookup join's function reads the database in its Spark task with the JDBC connector's
    # connection (drivers, retries), as the JDBC sink's tasks do
    'kindling.table.lookup_join': ('kindling.common', 'kindling.graph', 'kindling.datastream', 'kindling.table',
                                   'kindling.spark.jdbc'),
    # TEMPORARY, until the plan translator lands (kindling/table/planner): the Expression facade's
    # evaluate/_aggregate/spark_column compile resolved expressions with the runtime's and Spark's
    # compilers
    'kindling.table.expressions': ('kindling.common', 'kindling.graph', 'kindling.datastream', 'kindling.table',
                                   'kindling.runtime.table', 'kindling.spark.table.columns',
                                   'kindling.spark.type_mapping'),
    'kindling.graph': ('kindling.common', 'kindling.graph'),
    # the user-facing modules stand on their own: runtime operators import them
    **{m: ('kindling.common',) + USER_FACING for m in USER_FACING if m != 'kindling.metrics'},
    'kindling.datastream': ('kindling.common', 'kindling.metrics', 'kindling.graph',
                            'kindling.datastream'),
    # running a job is the one way from the API into Spark
    'kindling.datastream.stream_execution_environment': (
        'kindling.common', 'kindling.metrics', 'kindling.graph', 'kindling.datastream',
        'kindling.spark.runner'),
    'kindling.spark': ('kindling.common', 'kindling.graph', 'kindling.spark', 'kindling.runtime')
                      + USER_FACING,
    'kindling.runtime': ('kindling.common', 'kindling.runtime') + USER_FACING,
    'kindling.testing': ('kindling.common', 'kindling.runtime', 'kindling.testing') + USER_FACING,
    # PyFlink's test utilities for Table and DataStream tests build jobs with the API, as a user's test does
    **{m: ('kindling.common', 'kindling.graph', 'kindling.datastream', 'kindling.table', 'kindling.testing')
       for m in ('kindling.testing.source_sink_utils', 'kindling.testing.test_case_utils')},
    # the command line sits on top: it configures a run and reports the session it would use
    'kindling.cli': ('kindling.common', 'kindling.spark.session', 'kindling.pyflink_alias'),
    'kindling.pyflink_alias': (),
    'kindling.__main__': ('kindling.cli',),
}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix('').parts
    if parts[-1] == '__init__':
        parts = parts[:-1]
    return '.'.join(parts)


def _is_package(module: str) -> bool:
    return (PACKAGE.parent / module.replace('.', '/') / '__init__.py').exists()


def _imports(path: pathlib.Path, module: str):
    """The kindling modules ``path`` imports, with the line of each import."""
    package = module if path.name == '__init__.py' else module.rpartition('.')[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                anchor = package.split('.')
                anchor = anchor[:len(anchor) - node.level + 1]
                base = '.'.join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = base + '.' + alias.name
                # ``from kindling.runtime import lifecycle`` imports a module
                yield node.lineno, sub if _is_package(base) and (
                    _is_package(sub) or (PACKAGE.parent / (sub.replace('.', '/') + '.py')).exists()) else base


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + '.')


def _allowed(module: str) -> tuple:
    prefixes = [p for p in ALLOWED if _within(module, p)]
    if not prefixes:
        return ('kindling.common',)
    return ALLOWED[max(prefixes, key=len)]


def wrong_imports_of(path: pathlib.Path, module: str) -> list[str]:
    """The imports of the file ``path`` (module ``module``) its layer does not allow."""
    allowed = _allowed(module)
    return ['%s:%d imports %s' % (module, line, target)
            for line, target in _imports(path, module)
            if _within(target, 'kindling') and target != 'kindling'
            and not any(_within(target, a) for a in allowed)]


def test_imports_point_one_way():
    wrong = []
    for path in sorted(PACKAGE.rglob('*.py')):
        wrong += wrong_imports_of(path, _module_name(path))
    assert wrong == []


def pyspark_imports_of(path: pathlib.Path, module: str) -> list[str]:
    """The imports of pyspark in ``path`` (module ``module``) when it is outside kindling/spark."""
    if _within(module, 'kindling.spark'):
        return []
    return ['%s:%d imports %s' % (module, line, target) for line, target in _imports(path, module)
            if _within(target, 'pyspark')]


def test_only_kindling_spark_imports_pyspark():
    """Spark is reached through kindling/spark: plans, graphs and the runtime stay Spark-free data."""
    wrong = []
    for path in sorted(PACKAGE.rglob('*.py')):
        wrong += pyspark_imports_of(path, _module_name(path))
    assert wrong == []


def import_cycles(package: str) -> list[list[str]]:
    """The sets of modules under ``package`` that import each other in a circle (every import
    statement counts, also those inside functions), each sorted."""
    modules = {_module_name(p): p for p in sorted(PACKAGE.rglob('*.py')) if _within(_module_name(p), package)}
    imports = {m: {t for _, t in _imports(p, m) if t in modules and t != m} for m, p in modules.items()}
    reached = {}
    for module in modules:
        reach, todo = set(), [module]
        while todo:
            for target in imports[todo.pop()] - reach:
                reach.add(target)
                todo.append(target)
        reached[module] = reach
    circles = {tuple(sorted(m for m in reached[module] if module in reached[m])) for module in modules
               if module in reached[module]}
    return sorted(list(c) for c in circles)


def test_the_spark_side_has_no_import_cycle():
    """kindling/spark imports one way too: the runner and compiler over the connectors' table
    (kindling/spark/connectors.py) over each connector over stages, rows and codecs; no module
    needs an import inside a function to break a circle."""
    assert import_cycles('kindling.spark') == []


def test_every_api_module_imports_on_its_own():
    """A Spark worker imports first whatever module a pickled function or format names:
    kindling.common's and kindling.datastream's modules each import in a fresh interpreter that
    has imported nothing of Kindling (their packages import names lazily, so no package import
    settles an import circle for them)."""
    from concurrent.futures import ThreadPoolExecutor

    root = pathlib.Path(kindling.__file__).parent
    modules = sorted('.'.join(('kindling',) + p.relative_to(root).with_suffix('').parts).replace('.__init__', '')
                     for package in ('common', 'datastream') for p in (root / package).rglob('*.py'))

    def failure(module: str) -> str | None:
        done = subprocess.run([sys.executable, '-c', f'import {module}'], capture_output=True, text=True)
        error = done.stderr.strip().splitlines()[-1] if done.returncode else ''
        # a stub for a PyFlink module Kindling lacks refuses its import by design
        return None if not error or error.startswith('kindling.common.unsupported.NotSupportedYetError') \
            else f"{module}: {error}"

    with ThreadPoolExecutor(2) as pool:
        assert [f for f in pool.map(failure, modules) if f] == []


def test_the_check_finds_a_wrong_direction_import(tmp_path):
    """The check itself: the API importing the runtime inside a function is found, and so is
    the runtime importing the API's DataStream."""
    api = tmp_path / 'probe.py'
    api.write_text("def f():\n    from kindling.runtime.window import WindowOperator\n")
    assert wrong_imports_of(api, 'kindling.datastream.probe') == [
        'kindling.datastream.probe:2 imports kindling.runtime.window']
    runtime = tmp_path / 'operator.py'
    runtime.write_text("from kindling.datastream import data_stream, functions\n")
    assert wrong_imports_of(runtime, 'kindling.runtime.operator') == [
        'kindling.runtime.operator:1 imports kindling.datastream.data_stream']
    planner = tmp_path / 'planner.py'
    planner.write_text("def f():\n    from pyspark.sql import functions\n")
    assert pyspark_imports_of(planner, 'kindling.table.planner.probe') == [
        'kindling.table.planner.probe:2 imports pyspark.sql']
    assert pyspark_imports_of(planner, 'kindling.common.typeinfo') == [
        'kindling.common.typeinfo:2 imports pyspark.sql']
    assert pyspark_imports_of(planner, 'kindling.runtime.lifecycle') == [
        'kindling.runtime.lifecycle:2 imports pyspark.sql']
