"""TableResult.print(): Flink's boxed table, column widths by type, values as Flink's tableau
writes them (checked against PyFlink 2.3's output for the same rows)."""
from __future__ import annotations

import datetime
import decimal

from kindling.common.types import Row, RowKind
from kindling.table import DataTypes, Schema, TableResult, TableSchema


class _Rows(list):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


SCHEMA = Schema(['a_bool', 'ti', 'si', 'f', 'd', 'dt', 'ts', 'dec', 's', 'v5', 'a_very_long_column_name_here_xx'],
                [DataTypes.BOOLEAN(), DataTypes.TINYINT(), DataTypes.SMALLINT(), DataTypes.FLOAT(), DataTypes.DOUBLE(),
                 DataTypes.DATE(), DataTypes.TIMESTAMP(3), DataTypes.DECIMAL(10, 2), DataTypes.STRING(),
                 DataTypes.VARCHAR(5), DataTypes.INT()])
# PyFlink 2.3, TableEnvironment in batch mode, from_elements(...).execute().print() of the same rows
PYFLINK = """\
+--------+--------+--------+--------------------------------+--------------------------------+------------+-------------------------+--------------+--------------------------------+--------------------------------+---------------------------------+
| a_bool |     ti |     si |                              f |                              d |         dt |                      ts |          dec |                              s |                             v5 | a_very_long_column_name_here_xx |
+--------+--------+--------+--------------------------------+--------------------------------+------------+-------------------------+--------------+--------------------------------+--------------------------------+---------------------------------+
|   TRUE |      1 |      2 |                            1.5 |                           2.25 | 2020-01-02 | 2020-01-02 03:04:05.123 |         3.14 | xxxxxxxxxxxxxxxxxxxxxxxxxxx... |                            abc |                               7 |
| <NULL> | <NULL> | <NULL> |                         <NULL> |                         <NULL> |     <NULL> |                  <NULL> |       <NULL> |                         <NULL> |                         <NULL> |                          <NULL> |
+--------+--------+--------+--------------------------------+--------------------------------+------------+-------------------------+--------------+--------------------------------+--------------------------------+---------------------------------+
2 rows in set
"""


def test_a_batch_result_prints_as_pyflink_prints_it(capsys):
    rows = _Rows([Row(True, 1, 2, 1.5, 2.25, datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5, 123000),
                      decimal.Decimal('3.14'), 'x' * 40, 'abc', 7), Row(*[None] * 11)])
    TableResult(rows=rows, schema=SCHEMA).print()
    assert capsys.readouterr().out == PYFLINK


def test_a_streaming_result_prints_each_change_with_its_op(capsys):
    schema = Schema(['b', 'd', 's'], [DataTypes.BOOLEAN(), DataTypes.DOUBLE(), DataTypes.STRING()])
    TableResult(rows=_Rows([Row(True, 1.5, 'é日本'), Row.of_kind(RowKind.UPDATE_BEFORE, False, 2.0, None)]),
                schema=schema, with_kind=True).print()
    TableResult(rows=_Rows([]), schema=schema, with_kind=True).print()
    assert capsys.readouterr().out == """\
+----+--------+--------------------------------+--------------------------------+
| op |      b |                              d |                              s |
+----+--------+--------------------------------+--------------------------------+
| +I |   TRUE |                            1.5 |                          é日本 |
| -U |  FALSE |                            2.0 |                         <NULL> |
+----+--------+--------------------------------+--------------------------------+
2 rows in set
Empty set
"""


def test_schemas_are_pyflinks_table_schemas(spark):
    from tests.table.table_support import quiet_t_env

    t_env = quiet_t_env("batch")
    result = t_env.execute_sql("SELECT name, v FROM (VALUES ('a', 5)) AS T(name, v)")
    schema = result.get_table_schema()
    # PyFlink 2.3 prints these lines for the same query
    assert repr(schema) == "root\n |-- name: CHAR(1) NOT NULL\n |-- v: INT NOT NULL\n"
    assert (schema.get_field_count(), schema.get_field_name(1), schema.get_field_name(2)) == (2, 'v', None)
    assert schema.get_field_data_type('v') == DataTypes.INT().not_null() and schema.get_field_data_type('x') is None
    assert schema.to_row_data_type() == DataTypes.ROW([DataTypes.FIELD('name', DataTypes.CHAR(1).not_null()),
                                                       DataTypes.FIELD('v', DataTypes.INT().not_null())])
    assert list(result.collect()) == [Row('a', 5)]  # as PyFlink's, without field names
    table = t_env.from_elements([(1, 'a')], ['id', 'name'])
    assert repr(table.get_schema()) == "root\n |-- id: BIGINT\n |-- name: STRING\n"
    assert TableSchema.builder().field('id', DataTypes.BIGINT()).field('name', DataTypes.STRING()).build() == \
        table.get_schema()

