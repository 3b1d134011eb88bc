"""User functions belong to the TableEnvironment that registers them: two environments in one program
register ``f`` differently and each one's Table API (``call('f', ...)``, resolved when a Table takes it,
even when built before the registration) and SQL call its own; a function (scalar, table, pandas
aggregate) registered in one is unknown in the other; dropping it in one leaves the other's."""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import call, col
from pyflink.table.udf import udaf, udf, udtf


def show(name, build):
    try:
        with build().execute().collect() as rows:
            print(name, sorted(str(r) for r in rows))
    except Exception:  # the texts differ: Flink's planner dump, Kindling's reason
        print(name, "refused")


early = call('f', col('x'))
a = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
b = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
a.create_temporary_function('f', udf(lambda x: x + 1, result_type=DataTypes.BIGINT()))
b.create_temporary_system_function('f', udf(lambda x: x * 10, result_type=DataTypes.BIGINT()))
a.create_temporary_function('pair', udtf(lambda x: [(x, -x)], result_types=[DataTypes.BIGINT(), DataTypes.BIGINT()]))
b.create_temporary_function('total', udaf(lambda v: v.sum(), result_type=DataTypes.BIGINT(), func_type='pandas'))
print("a functions", a.list_user_defined_functions())
print("b functions", b.list_user_defined_functions())
for name, t_env in (("a", a), ("b", b)):
    table = t_env.from_elements([(1,), (2,)], ['x'])
    t_env.create_temporary_view('t', table)
    show(f"{name} call", lambda: table.select(call('f', col('x'))))
    show(f"{name} call built before", lambda: table.select(early.alias('e')))
    show(f"{name} sql", lambda: t_env.sql_query("SELECT f(x) + 1 FROM t"))
    show(f"{name} lateral", lambda: table.join_lateral(call('pair', col('x')).alias('p', 'q')))
    show(f"{name} sql lateral", lambda: t_env.sql_query("SELECT x, p FROM t, LATERAL TABLE(pair(x)) AS u(p, q)"))
    show(f"{name} aggregate", lambda: table.select(call('total', col('x'))))
    show(f"{name} sql aggregate", lambda: t_env.sql_query("SELECT total(x) FROM t"))
print("a drops f", a.drop_temporary_function('f'))
print("a functions", a.list_user_defined_functions())
print("b functions", b.list_user_defined_functions())
show("a call after drop", lambda: a.from_path('t').select(call('f', col('x'))))
show("b call after a's drop", lambda: b.from_path('t').select(call('f', col('x'))))
