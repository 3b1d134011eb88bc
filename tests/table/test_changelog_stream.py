"""DataStreams of changes as tables (from_changelog_stream with ChangelogMode all, upsert,
insert_only) and tables as changelogs (to_changelog_stream's modes): Flink's changelogs, recorded
from PyFlink 2.3, end to end on Spark at parallelism 2 and, for the upsert normalization, on the
operator with the harness. tests/conformance/programs/table_changelog_stream.py compares the
printed tables with PyFlink line for line."""
from __future__ import annotations

import pytest

from kindling.common import Row, RowKind, Types
from kindling.runtime.table.changelog_normalize import ChangelogNormalize
from kindling.table import ChangelogMode, DataTypes, Schema, StreamTableEnvironment
from kindling.table.expressions import col
from kindling.testing import KeyedProcessFunctionTestHarness

SCORES = Types.ROW_NAMED(["name", "score"], [Types.STRING(), Types.INT()])
_KINDS = {"+I": RowKind.INSERT, "-U": RowKind.UPDATE_BEFORE, "+U": RowKind.UPDATE_AFTER, "-D": RowKind.DELETE}


def _change(kind: str, *values) -> Row:
    row = Row(name=values[0], score=values[1])
    row.set_row_kind(_KINDS[kind])
    return row


def _changes(rows) -> list:
    return [(r.get_row_kind().short_string(), *r) for r in rows]


def _per_key(changes) -> dict:
    """Each key's changes in order (keys of parallel subtasks interleave in no defined order)."""
    out: dict = {}
    for change in changes:
        out.setdefault(change[1], []).append(change)
    return out


UPSERTS = [("+I", "Alice", 12), ("+I", "Bob", 5), ("+U", "Alice", 100), ("+U", "Alice", 100), ("-D", "Bob", None),
           ("-D", "Carl", None), ("+U", "Dan", 3), ("-U", "Alice", 100), ("+I", "Alice", 7)]
# PyFlink 2.3's ChangelogNormalize of UPSERTS: a new key's +U inserts, a repeated row and an unknown key's
# delete give nothing, a delete (only its key set) gives the full last row, -U deletes as -D does
NORMALIZED = {"Alice": [("+I", "Alice", 12), ("-U", "Alice", 12), ("+U", "Alice", 100), ("-D", "Alice", 100),
                        ("+I", "Alice", 7)],
              "Bob": [("+I", "Bob", 5), ("-D", "Bob", 5)], "Dan": [("+I", "Dan", 3)]}


def test_changelog_normalize_keeps_the_last_row_per_key_as_flink():
    with KeyedProcessFunctionTestHarness(ChangelogNormalize(deleted_column=False), lambda row: row[0]) as harness:
        for kind, *values in UPSERTS:
            harness.process_element(_change(kind, *values))
        assert _per_key(_changes(harness.extract_output_values())) == NORMALIZED


# PyFlink 2.3 with `WHERE score > 6` pushed into its ChangelogNormalize: a key's row that stops passing
# deletes it (its last passing row), one that starts passing inserts it, one failing with no passing row
# before and a delete after a failing row give nothing
FILTERED_UPSERTS = [("+I", "Alice", 12), ("+U", "Alice", 3), ("+U", "Alice", 2), ("-D", "Alice", None),
                    ("+U", "Eve", 9), ("+U", "Eve", 10), ("+U", "Eve", 10), ("+U", "Eve", 1), ("+U", "Eve", 11),
                    ("+I", "Bob", 5), ("+U", "Bob", 7)]
FILTERED = {"Alice": [("+I", "Alice", 12), ("-D", "Alice", 12)],
            "Eve": [("+I", "Eve", 9), ("-U", "Eve", 9), ("+U", "Eve", 10), ("-D", "Eve", 10), ("+I", "Eve", 11)],
            "Bob": [("+I", "Bob", 7)]}


def test_changelog_normalize_with_a_condition_keeps_the_last_passing_row_per_key_as_flink():
    from kindling.common.types import _create_row
    from kindling.runtime.table.rows import Condition
    from kindling.table.planner.expressions import resolve

    condition = Condition(resolve(col("score") > 6, ["name", "score"], [DataTypes.STRING(), DataTypes.INT()]))
    # upsert-kafka's records: a last column saying whether the record deletes its key
    with KeyedProcessFunctionTestHarness(ChangelogNormalize(True, condition), lambda row: row[0]) as harness:
        for kind, name, score in FILTERED_UPSERTS:
            harness.process_element(_create_row(["name", "score", "deleted"], [name, score, kind == "-D"]))
        assert _per_key(_changes(harness.extract_output_values())) == FILTERED


def _t_env(env):
    env.set_parallelism(2)
    return StreamTableEnvironment.create(env)


def _stream(env, changes):
    return env.from_collection([_change(*c) for c in changes], type_info=SCORES)


def test_a_changelog_stream_keeps_its_kinds_through_a_group_by(env):
    t_env = _t_env(env)
    table = t_env.from_changelog_stream(_stream(env, [("+I", "Alice", 12), ("+I", "Bob", 5), ("-U", "Alice", 12),
                                                      ("+U", "Alice", 100)]))
    assert table._updating
    with table.execute().collect() as rows:
        assert _per_key(_changes(rows)) == {"Alice": [("+I", "Alice", 12), ("-U", "Alice", 12), ("+U", "Alice", 100)],
                                            "Bob": [("+I", "Bob", 5)]}
    t_env.create_temporary_view("scores", table)
    with t_env.execute_sql("SELECT name, SUM(score) AS total FROM scores GROUP BY name").collect() as rows:
        # PyFlink 2.3: the -U empties Alice's group (-D), the +U starts it again
        assert _per_key(_changes(rows)) == {"Alice": [("+I", "Alice", 12), ("-D", "Alice", 12), ("+I", "Alice", 100)],
                                            "Bob": [("+I", "Bob", 5)]}


def test_an_upsert_stream_is_normalized_on_its_primary_key(env):
    t_env = _t_env(env)
    table = t_env.from_changelog_stream(_stream(env, UPSERTS), Schema.new_builder().primary_key("name").build(),
                                        ChangelogMode.upsert())
    assert str(table.get_schema()) == ("root\n |-- name: STRING NOT NULL\n |-- score: INT\n"
                                       " |-- CONSTRAINT PK_name PRIMARY KEY (name)\n")
    with table.execute().collect() as rows:
        assert _per_key(_changes(rows)) == NORMALIZED


def test_an_upsert_stream_needs_a_primary_key(env):
    t_env = _t_env(env)
    with pytest.raises(ValueError, match="requires a primary key"):
        t_env.from_changelog_stream(_stream(env, UPSERTS), Schema.new_builder().build(), ChangelogMode.upsert())


def test_an_insert_only_changelog_stream_fails_on_another_kind(env):
    t_env = _t_env(env)
    inserts = t_env.from_changelog_stream(_stream(env, [("+I", "Alice", 12), ("+I", "Bob", 5)]), None,
                                          ChangelogMode.insert_only())
    assert not inserts._updating
    with inserts.execute().collect() as rows:
        assert sorted(_changes(rows)) == [("+I", "Alice", 12), ("+I", "Bob", 5)]
    updated = t_env.from_changelog_stream(_stream(env, [("+I", "Alice", 12), ("+U", "Alice", 100)]), None,
                                          ChangelogMode.insert_only())
    with pytest.raises(Exception, match=r"insert_only\(\) expects INSERT rows only, the stream has a UPDATE_AFTER"):
        with updated.execute().collect() as rows:
            list(rows)


def test_to_changelog_stream_in_upsert_mode_drops_update_before_rows(env):
    t_env = _t_env(env)
    totals = t_env.from_elements([("a", 1), ("b", 2), ("a", 3)], ["k", "v"]) \
        .group_by(col("k")).select(col("k"), col("v").sum.alias("s"))
    schema = Schema.new_builder().column("k", DataTypes.STRING()).column("s", DataTypes.BIGINT()).build()
    upserts = t_env.to_changelog_stream(totals, schema, ChangelogMode.upsert())
    assert _per_key(_changes(upserts.execute_and_collect())) == {"a": [("+I", "a", 1), ("+U", "a", 4)],
                                                                 "b": [("+I", "b", 2)]}
    everything = t_env.to_changelog_stream(totals, None, ChangelogMode.all())
    assert _per_key(_changes(everything.execute_and_collect()))["a"] == [("+I", "a", 1), ("-U", "a", 1), ("+U", "a", 4)]
    with pytest.raises(ValueError, match="cannot take the table's updates"):
        t_env.to_changelog_stream(totals, None, ChangelogMode.insert_only())
    with pytest.raises(ValueError, match="target schema other than the table's columns"):
        t_env.to_changelog_stream(totals, Schema.new_builder().column("k", DataTypes.INT()).build())


def test_a_group_by_on_the_upsert_key_keeps_the_updates_as_flink(env):
    t_env = _t_env(env)
    table = t_env.from_changelog_stream(_stream(env, UPSERTS), Schema.new_builder().primary_key("name").build(),
                                        ChangelogMode.upsert())
    t_env.create_temporary_view("upserts", table)
    # PyFlink 2.3: one row per key, so SUM/MAX by the key is no aggregation: the normalized changelog as it is
    with t_env.execute_sql("SELECT name, SUM(score) AS total FROM upserts GROUP BY name").collect() as rows:
        assert _per_key(_changes(rows)) == NORMALIZED
    maxima = table.group_by(col("name")).select(col("name"), col("score").max.alias("best"))
    assert _per_key(_changes(t_env.to_changelog_stream(maxima).execute_and_collect())) == NORMALIZED
    # COUNT stays an aggregation; SQL reads the key only, so Alice's new score is no change of hers
    with t_env.execute_sql("SELECT name, COUNT(*) AS n FROM upserts GROUP BY name").collect() as rows:
        assert _per_key(_changes(rows)) == {"Alice": [("+I", "Alice", 1), ("-D", "Alice", 1), ("+I", "Alice", 1)],
                                            "Bob": [("+I", "Bob", 1), ("-D", "Bob", 1)], "Dan": [("+I", "Dan", 1)]}


def test_a_filter_on_columns_outside_the_key_goes_into_the_normalization_as_flink(env):
    from kindling.table.udf import udf

    t_env = _t_env(env)
    table = t_env.from_changelog_stream(_stream(env, FILTERED_UPSERTS), Schema.new_builder().primary_key("name")
                                        .build(), ChangelogMode.upsert())
    t_env.create_temporary_view("upserts", table)
    with t_env.execute_sql("SELECT name, score FROM upserts WHERE score > 6").collect() as rows:
        assert _per_key(_changes(rows)) == FILTERED
    # a condition on the key alone filters the records before the normalization
    filtered = table.where((col("score") > 6) & (col("name") != "Bob"))
    assert "ChangelogNormalize(key=[name], condition=[(score > 6)])" in filtered.explain()
    with filtered.execute().collect() as rows:
        assert _per_key(_changes(rows)) == {k: v for k, v in FILTERED.items() if k != "Bob"}
    # PyFlink 2.3 keeps a condition calling a Python function above: it filters each change on its own
    t_env.create_temporary_function("big", udf(lambda s: s is not None and s > 6, result_type=DataTypes.BOOLEAN()))
    with t_env.execute_sql("SELECT name, score FROM upserts WHERE big(score)").collect() as rows:
        assert _per_key(_changes(rows)) == {
            "Alice": [("+I", "Alice", 12), ("-U", "Alice", 12)], "Bob": [("+U", "Bob", 7)],
            "Eve": [("+I", "Eve", 9), ("-U", "Eve", 9), ("+U", "Eve", 10), ("-U", "Eve", 10), ("+U", "Eve", 11)]}
