"""Regular joins on Spark over two partitions: each join kind's changelog, applied, leaves the rows
the join of the final inputs has (the order of changes depends on which input comes first, as in
Flink); batch joins emit those rows only. tests/conformance/programs/table_*join*.py compare the
printed rows with PyFlink's."""
from __future__ import annotations

from collections import Counter

import pytest

from kindling.common import Types
from kindling.common.types import RowKind
from kindling.table import StreamTableEnvironment
from kindling.table.expressions import col
from keyed_state_support import KeyContext  # tests/: on sys.path (tests/conftest.py)

ORDERS = [(n, f"u{n % 13}", n * 10) for n in range(1, 300)]
USERS = [(f"u{n}", f"name{n}") for n in range(5, 20)]


def _tables(env):
    t_env = StreamTableEnvironment.create(env)
    orders = env.from_collection(ORDERS, Types.ROW_NAMED(['oid', 'user', 'amount'],
                                                         [Types.INT(), Types.STRING(), Types.INT()])).rebalance()
    users = env.from_collection(USERS, Types.ROW_NAMED(['uid', 'name'], [Types.STRING(), Types.STRING()])).rebalance()
    return t_env, t_env.from_data_stream(orders), t_env.from_data_stream(users)


def _applied(changes) -> Counter:
    rows: Counter = Counter()
    for change in changes:
        if change.get_row_kind() in (RowKind.UPDATE_BEFORE, RowKind.DELETE):
            assert rows[tuple(change)] > 0, f"{change} retracts a row never emitted"
            rows[tuple(change)] -= 1
        else:
            rows[tuple(change)] += 1
    return +rows


def _expected(left_outer: bool, right_outer: bool) -> Counter:
    names = dict(USERS)
    rows = Counter((oid, user, amount, user, names[user]) for oid, user, amount in ORDERS if user in names)
    if left_outer:
        rows.update((oid, user, amount, None, None) for oid, user, amount in ORDERS if user not in names)
    if right_outer:
        used = {user for _, user, _ in ORDERS}
        rows.update((None, None, None, uid, name) for uid, name in USERS if uid not in used)
    return rows


@pytest.mark.parametrize("method, left_outer, right_outer", [
    ("join", False, False), ("left_outer_join", True, False), ("right_outer_join", False, True),
    ("full_outer_join", True, True)])
def test_each_join_kind_applies_to_the_join_of_the_inputs(env, method, left_outer, right_outer):
    env.set_parallelism(2)
    t_env, orders, users = _tables(env)
    joined = getattr(orders, method)(users, col('user') == col('uid'))
    assert _applied(t_env.to_changelog_stream(joined).execute_and_collect()) == _expected(left_outer, right_outer)


def test_a_join_of_an_updating_table_follows_its_changes(env):
    env.set_parallelism(2)
    t_env, orders, users = _tables(env)
    totals = orders.group_by(col('user')).select(col('user'), col('amount').sum.alias('total'))
    joined = totals.join(users, (col('user') == col('uid')) & (col('total') > 10000)).select(col('name'), col('total'))
    sums = Counter()
    for _, user, amount in ORDERS:
        sums[user] += amount
    names = dict(USERS)
    assert _applied(t_env.to_changelog_stream(joined).execute_and_collect()) == \
        Counter((names[u], s) for u, s in sums.items() if u in names and s > 10000)


def test_a_batch_join_emits_the_joined_rows_only(env):
    from kindling.datastream import RuntimeExecutionMode

    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    t_env, orders, users = _tables(env)
    rows = list(orders.full_outer_join(users, col('user') == col('uid')).execute().collect())
    assert {r.get_row_kind() for r in rows} == {RowKind.INSERT}
    assert Counter(map(tuple, rows)) == _expected(True, True)


def test_joins_fail_clearly_without_equal_keys(env):
    t_env, orders, users = _tables(env)
    with pytest.raises(ValueError, match=r"Invalid join condition: \(amount > 3\)\. At least one equi-join"):
        orders.join(users, col('amount') > 3)
    with pytest.raises(ValueError, match="both tables have the columns"):
        orders.join(orders, col('oid') == col('oid'))
    with pytest.raises(ValueError, match="an outer join needs a join predicate"):
        orders.left_outer_join(users)


def test_a_python_function_in_an_inner_join_condition_outer_joins_refuse_it(any_env):
    """As PyFlink 2.3: an inner join evaluates the Python function on each pair of a key's rows (SQL also
    without an equality: every pair, CROSS JOIN and FROM a, b); the Table API needs an equality; an outer
    join whose condition calls one fails when the job is planned (Flink's rule)."""
    from kindling.table import DataTypes
    from kindling.table.udf import udf

    any_env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(any_env)
    near = udf(lambda x, y: abs(x - y) <= 1, result_type=DataTypes.BOOLEAN())
    t_env.create_temporary_function("near", near)
    a = t_env.from_elements([(n % 7, n) for n in range(40)], ["k", "x"])
    b = t_env.from_elements([(n % 5, 3 * n) for n in range(30)], ["k2", "y"])
    t_env.create_temporary_view("a", a)
    t_env.create_temporary_view("b", b)
    pairs = [(k, x, k2, y) for k, x in ((n % 7, n) for n in range(40)) for k2, y in ((n % 5, 3 * n) for n in range(30))
             if abs(x - y) <= 1]
    keyed = sorted(p for p in pairs if p[0] == p[2])
    for table, expected in ((a.join(b, (a.k == b.k2) & near(a.x, b.y)), keyed),
                            (a.join(b).where(near(a.x, b.y)), sorted(pairs)),
                            (t_env.sql_query("SELECT * FROM a JOIN b ON a.k = b.k2 AND near(a.x, b.y)"), keyed),
                            (t_env.sql_query("SELECT * FROM a JOIN b ON near(a.x, b.y)"), sorted(pairs)),
                            (t_env.sql_query("SELECT * FROM a CROSS JOIN b WHERE near(a.x, b.y)"), sorted(pairs)),
                            (t_env.sql_query("SELECT * FROM a, b WHERE a.k = b.k2 AND near(a.x, b.y)"), keyed)):
        with table.execute().collect() as rows:
            assert sorted(tuple(r) for r in rows) == expected, table
    equi = t_env.sql_query("SELECT * FROM a, b WHERE a.k = b.k2 AND a.x > b.y")
    assert "(k = k2)" in equi.explain().replace("===", "=") and "Filter" not in equi.explain()
    with pytest.raises(ValueError, match="At least one equi-join predicate is required"):
        a.join(b, near(a.x, b.y))
    for outer in (a.left_outer_join(b, (a.k == b.k2) & near(a.x, b.y)),
                  t_env.sql_query("SELECT * FROM a FULL JOIN b ON a.k = b.k2 AND near(a.x, 11)"),
                  t_env.sql_query("SELECT * FROM a RIGHT JOIN b ON near(a.x, b.y)")):
        with pytest.raises(ValueError, match="Only inner join condition with equality predicates supports the "
                                             "Python UDF"):
            outer.execute()


def test_each_copy_of_a_padded_row_is_retracted_and_padded_again_as_flink_does():
    """Two equal left rows without a partner are two padded rows: the right row that comes joins each
    copy (``-D`` of its padding, then ``+I`` of the pair: PyFlink 2.3's changes), and its retraction
    gives each copy back its padding (``-D`` of the pair, then ``+I`` of the padding)."""
    from kindling.common.types import _create_row
    from kindling.runtime.table.join import RegularJoinFunction

    join = RegularJoinFunction(['v', 'k'], ['key', 'w'], None, True, False)
    join.open(KeyContext())
    left = lambda: _create_row(['v', 'k'], [1, 'a'], RowKind.INSERT)  # noqa: E731
    changes = [*join.process_element1(left(), None), *join.process_element1(left(), None),
               *join.process_element2(_create_row(['key', 'w'], ['a', 10], RowKind.INSERT), None),
               *join.process_element2(_create_row(['key', 'w'], ['a', 10], RowKind.DELETE), None)]
    padded, pair = (1, 'a', None, None), (1, 'a', 'a', 10)
    assert [(str(c.get_row_kind()), tuple(c)) for c in changes] == [
        ("+I", padded), ("+I", padded), ("-D", padded), ("+I", pair), ("-D", padded), ("+I", pair),
        ("-D", pair), ("+I", padded), ("-D", pair), ("+I", padded)]
