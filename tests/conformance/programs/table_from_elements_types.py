"""from_elements with column names only: each column's type inferred from its values as PyFlink infers
it (lists as ARRAY, dicts as MAP, Decimal, date, time, bytes, datetime as TIMESTAMP_LTZ(6), a first
row of None), printed in the boxed table (arrays with NULL, bytes as x'..')."""
import datetime
import decimal

from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.get_config().set("table.local-time-zone", "UTC")
values = t_env.from_elements(
    [(1, [1, 2], {'a': 1.5}, decimal.Decimal('1.5'), datetime.date(2024, 1, 2), datetime.time(1, 2, 3), bytearray(b'ab'),
      ['x', None]),
     (2, [3], {}, None, None, None, None, [])], ['a', 'b', 'c', 'd', 'e', 'g', 'h', 'i'])
values.print_schema()
values.execute().print()
times = t_env.from_elements([(1, datetime.datetime(2024, 1, 2, 3, 4, 5))], ['a', 'ts'])
times.print_schema()
times.execute().print()
t_env.from_elements([(None, 'x'), (1, 'y')], ['a', 'b']).print_schema()
