"""``pyflink.table.expression``: the ``Expression`` class (defined in kindling/table/expressions.py) and
the enumerations its built-in functions take (``TimeIntervalUnit.YEAR`` for ``extract``,
``JsonValueOnEmptyOrError.DEFAULT`` for ``json_value``, ...).

Example::

    col('ts').extract(TimeIntervalUnit.YEAR)
    col('doc').json_value('$.n', DataTypes.INT(), JsonValueOnEmptyOrError.DEFAULT, 0)
"""
from __future__ import annotations

from enum import Enum

__all__ = ["Expression", "JsonExistsOnError", "JsonOnNull", "JsonQueryOnEmptyOrError", "JsonQueryWrapper",
           "JsonType", "JsonValueOnEmptyOrError", "TimeIntervalUnit", "TimePointUnit"]


class TimeIntervalUnit(Enum):
    """Units of ``extract``, ``floor`` and ``ceil`` on dates and timestamps."""
    YEAR = 0
    YEAR_TO_MONTH = 1
    QUARTER = 2
    MONTH = 3
    WEEK = 4
    DAY = 5
    DAY_TO_HOUR = 6
    DAY_TO_MINUTE = 7
    DAY_TO_SECOND = 8
    HOUR = 9
    SECOND = 10
    HOUR_TO_MINUTE = 11
    HOUR_TO_SECOND = 12
    MINUTE = 13
    MINUTE_TO_SECOND = 14


class TimePointUnit(Enum):
    """Units of ``timestamp_diff``."""
    YEAR = 0
    MONTH = 1
    DAY = 2
    HOUR = 3
    MINUTE = 4
    SECOND = 5
    QUARTER = 6
    WEEK = 7
    MILLISECOND = 8
    MICROSECOND = 9


class JsonType(Enum):
    """What ``is_json`` checks a string is."""
    VALUE = 0
    SCALAR = 1
    ARRAY = 2
    OBJECT = 3


class JsonExistsOnError(Enum):
    """What ``json_exists`` returns when the JSON or the path is invalid."""
    TRUE = 0
    FALSE = 1
    UNKNOWN = 2
    ERROR = 3


class JsonValueOnEmptyOrError(Enum):
    """What ``json_value`` returns when the path finds nothing (empty) or no scalar (error)."""
    NULL = 0
    ERROR = 1
    DEFAULT = 2


class JsonQueryWrapper(Enum):
    """Whether ``json_query`` wraps its result in an array."""
    WITHOUT_ARRAY = 0
    CONDITIONAL_ARRAY = 1
    UNCONDITIONAL_ARRAY = 2


class JsonQueryOnEmptyOrError(Enum):
    """What ``json_query`` returns when the path finds nothing (empty) or fails (error)."""
    NULL = 0
    EMPTY_ARRAY = 1
    EMPTY_OBJECT = 2
    ERROR = 3


class JsonOnNull(Enum):
    """Whether ``json_object``/``json_array`` write a null value (``NULL``) or leave it out (``ABSENT``)."""
    NULL = 0
    ABSENT = 1


from kindling.table.expressions import Expression  # noqa: E402  (defined there; this module is its PyFlink path)
