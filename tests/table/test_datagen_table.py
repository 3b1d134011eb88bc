"""The datagen table connector and DataStream <-> Table inside one job, end to end on Spark."""
from __future__ import annotations

import pytest

from kindling.common import Types
from kindling.table import DataTypes, Schema, StreamTableEnvironment, TableDescriptor
from kindling.table.connectors import DataGenRows


def _schema():
    return Schema.new_builder().column('user_id', DataTypes.INT()).column('comments', DataTypes.STRING()).build()


def test_datagen_rows_follow_the_field_options():
    rows = DataGenRows(Schema.new_builder().column('id', DataTypes.BIGINT()).column('name', DataTypes.STRING())
                       .column('score', DataTypes.INT()).build(),
                       {'connector': 'datagen', 'fields.id.kind': 'sequence', 'fields.id.start': '10',
                        'fields.id.end': '14', 'fields.name.length': '6', 'fields.score.min': '1',
                        'fields.score.max': '3'})
    assert rows.count(None) == 5 and rows.count(3) == 3
    generated = [rows(i) for i in range(5)]
    assert [r.id for r in generated] == [10, 11, 12, 13, 14]
    assert all(len(r.name) == 6 and 1 <= r.score <= 3 for r in generated)
    assert generated == [rows(i) for i in range(5)]  # a replayed index makes the same row


@pytest.mark.parametrize("options, message", [
    ({'fields.nope.kind': 'random'}, "Unsupported options for the 'datagen' connector: fields.nope.kind"),
    ({'fields.user_id.kind': 'sequence'}, "needs 'fields.user_id.start' and 'fields.user_id.end'"),
    ({'fields.user_id.kind': 'other'}, "must be 'random' or 'sequence'"),
])
def test_datagen_refuses_wrong_options_when_the_table_is_read(env, options, message):
    t_env = StreamTableEnvironment.create(env)
    builder = TableDescriptor.for_connector('datagen').schema(_schema())
    for key, value in options.items():
        builder.option(key, value)
    t_env.create_temporary_table('source', builder.build())
    with pytest.raises(ValueError, match=message):
        t_env.from_path('source')


def test_to_data_stream_gives_rows_with_attribute_access_in_the_same_job(env):
    # the shape of PyFlink's remote_model_inference example
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(stream_execution_environment=env)
    t_env.create_temporary_table(
        'source', TableDescriptor.for_connector('datagen').schema(_schema())
        .option('fields.user_id.kind', 'sequence').option('fields.user_id.start', '1')
        .option('fields.user_id.end', '1000').option('fields.comments.kind', 'random')
        .option('fields.comments.length', '4').option('rows-per-second', '1000').option('number-of-rows', '8')
        .build())
    ds = t_env.to_data_stream(t_env.from_path('source'))
    out = ds.map(lambda row: f"{row.user_id}:{len(row.comments)}", output_type=Types.STRING()) \
        .execute_and_collect()
    assert sorted(out, key=lambda s: int(s.split(':')[0])) == [f"{i}:4" for i in range(1, 9)]


def test_ddl_source_to_append_stream_with_the_given_row_type(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql("""CREATE TABLE my_source (a INT, b VARCHAR) WITH (
        'connector' = 'datagen', 'number-of-rows' = '10', 'fields.b.length' = '3')""")
    ds = t_env.to_append_stream(t_env.from_path('my_source'), Types.ROW([Types.INT(), Types.STRING()]))
    rows = list(ds.execute_and_collect())
    assert len(rows) == 10
    assert all(isinstance(r[0], int) and len(r[1]) == 3 for r in rows)
    with pytest.raises(ValueError, match="has 1 fields, the table my_source has 2 columns"):
        t_env.to_append_stream(t_env.from_path('my_source'), Types.ROW([Types.INT()]))


def test_an_append_only_table_as_retract_and_changelog_streams(env):
    from kindling.common import RowKind

    t_env = StreamTableEnvironment.create(env)
    table = t_env.from_elements([(1, 'a'), (2, 'b')], ['id', 'tag'])
    pairs = list(t_env.to_retract_stream(table, Types.ROW([Types.LONG(), Types.STRING()])).execute_and_collect())
    assert sorted((flag, tuple(row)) for flag, row in pairs) == [(True, (1, 'a')), (True, (2, 'b'))]
    changes = list(t_env.to_changelog_stream(table).execute_and_collect())
    assert sorted((r.get_row_kind(), r.id) for r in changes) == [(RowKind.INSERT, 1), (RowKind.INSERT, 2)]
