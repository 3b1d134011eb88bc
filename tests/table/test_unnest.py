"""UNNEST (Flink's array expansion) end to end on Spark: a row per ARRAY element, per MAP entry (key,
value) and per ROW element of an ARRAY (its fields), beside the row's columns; a NULL or empty collection
makes none (LEFT JOIN ... ON TRUE: one row of nulls); what Kindling refuses. The rows are PyFlink 2.3's;
tests/conformance/programs/table_unnest.py compares printed rows with PyFlink's in both modes."""
from __future__ import annotations

import pytest

from kindling.table import DataTypes
from table_support import quiet_t_env

ROWS = [(1, [10, 20], {'a': 1, 'b': 2}, [(1, 'x'), (2, 'y')]), (2, [], {}, []), (3, None, None, None),
        (4, [30], {'c': 3}, [(3, 'z')])]
SCHEMA = DataTypes.ROW([
    DataTypes.FIELD('id', DataTypes.INT()), DataTypes.FIELD('xs', DataTypes.ARRAY(DataTypes.INT())),
    DataTypes.FIELD('m', DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
    DataTypes.FIELD('items', DataTypes.ARRAY(DataTypes.ROW([DataTypes.FIELD('n', DataTypes.INT()),
                                                            DataTypes.FIELD('name', DataTypes.STRING())])))])
QUERIES = [
    ("SELECT id, x FROM t CROSS JOIN UNNEST(xs) AS u(x)", [(1, 10), (1, 20), (4, 30)]),
    ("SELECT id, x * 2 FROM t, UNNEST(t.xs) AS u(x) WHERE x > 10", [(1, 40), (4, 60)]),
    ("SELECT id, k, v FROM t CROSS JOIN UNNEST(m) AS u(k, v)", [(1, 'a', 1), (1, 'b', 2), (4, 'c', 3)]),
    ("SELECT id, n, name FROM t CROSS JOIN UNNEST(items) AS u(n, name)", [(1, 1, 'x'), (1, 2, 'y'), (4, 3, 'z')]),
    ("SELECT id, x FROM t LEFT JOIN UNNEST(xs) AS u(x) ON TRUE",
     [(1, 10), (1, 20), (2, None), (3, None), (4, 30)]),
    ("SELECT t.id, u.id FROM t CROSS JOIN UNNEST(xs) AS u(id) WHERE u.id < 15", [(1, 10)]),
    ("SELECT id, x FROM t CROSS JOIN UNNEST(ARRAY[5, 6]) AS u(x) WHERE id = 2", [(2, 5), (2, 6)]),
]


def _t_env(mode: str):
    t_env = quiet_t_env(mode)
    t_env.create_temporary_view('t', t_env.from_elements(ROWS, SCHEMA))
    return t_env


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_unnest_makes_a_row_per_element_entry_or_row_field(mode):
    t_env = _t_env(mode)
    for query, expected in QUERIES:
        with t_env.execute_sql(query).collect() as rows:
            assert sorted(tuple(r) for r in rows) == sorted(expected, key=repr), query


@pytest.mark.parametrize("query, message", [
    ("SELECT * FROM t CROSS JOIN UNNEST(xs)", r"Kindling joins CROSS JOIN UNNEST\(collection\) AS t\(columns\)"),
    ("SELECT * FROM t CROSS JOIN UNNEST(xs) WITH ORDINALITY AS u(x, n)",
     "UNNEST ... WITH ORDINALITY is not supported by Kindling yet"),
    ("SELECT * FROM t CROSS JOIN UNNEST(id) AS u(x)", "UNNEST.* takes an ARRAY or a MAP, got INT"),
    ("SELECT * FROM t JOIN UNNEST(xs) AS u(x) ON x > 1", r"Kindling joins CROSS JOIN UNNEST"),
])
def test_unnest_kindling_does_not_translate_is_refused_by_name(query, message):
    with pytest.raises(ValueError, match=message):
        _t_env("batch").sql_query(query)
