"""BIG_DEC values come back from Spark in the form a user wrote them, as in PyFlink."""
from __future__ import annotations

import decimal


def test_big_dec_keeps_python_decimal_form(env):
    from kindling.common import Row, Types

    values = [decimal.Decimal(3), decimal.Decimal("2.5"), decimal.Decimal("-0.05"),
              decimal.Decimal("12345678901234567890.123456789012345678")]
    out = (env.from_collection([Row("a", v) for v in values],
                               type_info=Types.ROW([Types.STRING(), Types.BIG_DEC()]))
           .map(lambda r: r[1], output_type=Types.BIG_DEC()))
    assert sorted(str(v) for v in out.execute_and_collect(limit=10)) == sorted(str(v) for v in values)
