"""Dates and times as Flink's functions compute them: Java date patterns (``yyyy-MM-dd HH:mm:ss.SSS``)
read once into a formatter or a parser (:func:`java_formatter`, :func:`java_parser`, cached by
pattern), time units of EXTRACT, FLOOR, CEIL and TIMESTAMPDIFF, CONVERT_TZ. TIMESTAMP values are
naive datetimes (UTC, Kindling's session time zone), TIMESTAMP_LTZ values Instants."""
from __future__ import annotations

import calendar
import datetime
import functools
import re
from typing import Any, Callable, List, Optional

from kindling.common.time import epoch_millis, timestamp_of

__all__ = ["UNPARSABLE", "add_unit", "timestamp_add", "epoch_seconds", "extract", "floor_time", "java_formatter",
           "java_parser", "parse_date", "parse_timestamp", "timestamp_diff", "to_datetime", "zoned"]

#: what Flink's UNIX_TIMESTAMP gives for a text that does not fit its pattern
UNPARSABLE = -2 ** 63

_JAVA_PATTERN = re.compile(r"'[^']*'|y+|M+|d+|H+|h+|m+|s+|S+|E+|a|D+|Z+|X+|.")
_STRFTIME = {"yyyy": "%Y", "yy": "%y", "MM": "%m", "MMM": "%b", "MMMM": "%B", "dd": "%d", "HH": "%H", "hh": "%I",
             "mm": "%M", "ss": "%S", "EEE": "%a", "EEEE": "%A", "a": "%p", "DDD": "%j"}
_UNIT_MICROS = {"MICROSECOND": 1, "MILLISECOND": 1_000, "SECOND": 1_000_000, "MINUTE": 60_000_000,
                "HOUR": 3_600_000_000, "DAY": 86_400_000_000, "WEEK": 7 * 86_400_000_000}


@functools.lru_cache(maxsize=256)
def java_formatter(pattern: str) -> Callable[[Any], str]:
    """The function writing a date or timestamp with the Java date pattern ``pattern``."""
    parts: List[Callable[[datetime.datetime], str]] = []
    for token in _JAVA_PATTERN.findall(pattern):
        if token.startswith("'"):
            text = token[1:-1] or "'"
            parts.append(lambda moment, text=text: text)
        elif token[0] == "S":
            parts.append(lambda moment, n=len(token): f"{getattr(moment, 'microsecond', 0):06d}"[:n].ljust(n, "0"))
        elif token in _STRFTIME:
            parts.append(lambda moment, code=_STRFTIME[token]: moment.strftime(code))
        elif token in ("M", "d", "H", "m", "s", "y"):
            code = _STRFTIME[token * 2 if token != "y" else "yyyy"]
            parts.append(lambda moment, code=code: moment.strftime(code).lstrip("0") or "0")
        else:
            parts.append(lambda moment, text=token: text)

    def write(moment: Any) -> str:
        moment = to_datetime(moment)
        return "".join(part(moment) for part in parts)
    return write


@functools.lru_cache(maxsize=256)
def java_parser(pattern: str) -> Callable[[str], Optional[datetime.datetime]]:
    """The function reading a timestamp written with the Java date pattern ``pattern`` (None when a
    text does not fit)."""
    regex, fields = [], []
    for token in _JAVA_PATTERN.findall(pattern):
        if token.startswith("'"):
            regex.append(re.escape(token[1:-1] or "'"))
        elif token[0] in "yMdHhmsS" and not (token[0] == "M" and len(token) >= 3):
            regex.append(r"(\d{4})" if token[0] == "y" and len(token) != 2 else
                         r"(\d{1,2})" if len(token) == 1 else r"(\d{%d})" % len(token))
            fields.append(token[0])
        else:
            regex.append(re.escape(token))
    compiled = re.compile("".join(regex))

    def parse(text: str) -> Optional[datetime.datetime]:
        match = compiled.fullmatch(text.strip())
        if match is None:
            return None
        parts = {"y": 1970, "M": 1, "d": 1, "H": 0, "h": 0, "m": 0, "s": 0, "S": "0"}
        for field, value in zip(fields, match.groups()):
            parts[field] = value if field == "S" else int(value)
        micro = int((parts["S"] + "000000")[:6])
        try:
            return datetime.datetime(int(parts["y"]), parts["M"], parts["d"], parts["H"] or parts["h"], parts["m"],
                                     parts["s"], micro)
        except ValueError:
            return None
    return parse


def parse_timestamp(text: str, pattern: Optional[str] = None) -> Optional[datetime.datetime]:
    """Flink's TO_TIMESTAMP: with a pattern, None when the text does not fit; without one a date, a
    time to the second or a fraction (``T`` or a space between), else a ValueError (as Flink fails)."""
    if pattern is None:
        return datetime.datetime.fromisoformat(text.strip())
    return java_parser(pattern)(text)


_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T].*)?\s*")


def parse_date(text: str, pattern: Optional[str] = None) -> Optional[datetime.date]:
    """Flink's TO_DATE: the date of a text in ``pattern``, or (without one) of a ``yyyy-MM-dd`` text maybe
    followed by a time; None when it does not fit."""
    if pattern is None:
        match = _DATE.fullmatch(text)
        try:
            return None if match is None else datetime.date(*map(int, match.groups()))
        except ValueError:
            return None
    moment = java_parser(pattern)(text)
    return None if moment is None else moment.date()


def to_datetime(value: Any) -> datetime.datetime:
    """A DATE, TIMESTAMP or TIMESTAMP_LTZ value as a naive datetime (UTC)."""
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return timestamp_of(value)


def epoch_seconds(moment: datetime.datetime) -> int:
    return epoch_millis(moment) // 1000


def timestamp_diff(unit: str, start: Any, end: Any) -> int:
    """Flink's TIMESTAMPDIFF: whole units from ``start`` to ``end``, toward zero (months: calendar months,
    a month from the 31st ending on a shorter month's last day, as Calcite counts them)."""
    a, b = to_datetime(start), to_datetime(end)
    if unit in _UNIT_MICROS:
        micros = (b - a) // datetime.timedelta(microseconds=1)
        return int(micros / _UNIT_MICROS[unit])
    months = _months_between(a, b) if a <= b else -_months_between(b, a)
    return int(months / {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit])


def timestamp_add(unit: str, amount: int, moment: datetime.datetime) -> datetime.datetime:
    """Flink's TIMESTAMPADD: ``amount`` units after ``moment`` (months: calendar months, clamped to the
    month's last day)."""
    if unit in _UNIT_MICROS:
        return moment + datetime.timedelta(microseconds=_UNIT_MICROS[unit] * amount)
    return _add_months(moment, amount * {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit])


def _months_between(start: datetime.datetime, end: datetime.datetime) -> int:
    """The most months that added to ``start`` (clamped to the month's last day) do not pass ``end``."""
    months = (end.year - start.year) * 12 + end.month - start.month
    while months > 0 and _add_months(start, months) > end:
        months -= 1
    return months


def _add_months(moment: datetime.datetime, months: int) -> datetime.datetime:
    year, month = divmod(moment.month - 1 + months, 12)
    last = calendar.monthrange(moment.year + year, month + 1)[1]
    return moment.replace(year=moment.year + year, month=month + 1, day=min(moment.day, last))


def extract(unit: str, value: Any) -> int:
    """Flink's EXTRACT of a date or timestamp."""
    moment = to_datetime(value)
    if unit == "QUARTER":
        return (moment.month - 1) // 3 + 1
    if unit == "WEEK":
        return moment.isocalendar()[1]
    if unit == "DOW":
        return moment.isoweekday() % 7 + 1
    if unit == "DOY":
        return moment.timetuple().tm_yday
    return getattr(moment, {"YEAR": "year", "MONTH": "month", "DAY": "day", "HOUR": "hour", "MINUTE": "minute",
                            "SECOND": "second"}[unit])


def floor_time(unit: str, value: Any, ceil: bool = False) -> Any:
    """FLOOR (or CEIL) of a date or timestamp to a time unit."""
    moment = to_datetime(value)
    if unit == "YEAR":
        floor = moment.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    elif unit == "QUARTER":
        floor = moment.replace(month=(moment.month - 1) // 3 * 3 + 1, day=1, hour=0, minute=0, second=0,
                               microsecond=0)
    elif unit == "MONTH":
        floor = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    elif unit == "WEEK":
        start = moment - datetime.timedelta(days=moment.isoweekday() % 7)
        floor = start.replace(hour=0, minute=0, second=0, microsecond=0)
    else:
        step = datetime.timedelta(microseconds=_UNIT_MICROS[unit])
        floor = datetime.datetime.min + (moment - datetime.datetime.min) // step * step
    if ceil and floor != moment:
        floor = floor_time(unit, add_unit(floor, unit))
    return floor.date() if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime) else floor


def add_unit(moment: datetime.datetime, unit: str) -> datetime.datetime:
    """One time unit after ``moment``."""
    if unit in _UNIT_MICROS:
        return moment + datetime.timedelta(microseconds=_UNIT_MICROS[unit])
    return _add_months(moment, {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit])


def zoned(text: str, source: str, target: str) -> str:
    """CONVERT_TZ: a ``yyyy-MM-dd HH:mm:ss`` time in zone ``source`` as the time in ``target``."""
    from zoneinfo import ZoneInfo

    moment = datetime.datetime.fromisoformat(text.strip()).replace(tzinfo=ZoneInfo(source))
    return moment.astimezone(ZoneInfo(target)).strftime("%Y-%m-%d %H:%M:%S")
