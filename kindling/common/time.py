"""Durations, time spans and instants, as in ``pyflink.common.time``."""
import datetime
from typing import Any, Optional, Union

__all__ = ['Duration', 'Time', 'Instant', 'to_millis', 'duration_millis', 'MIN_WATERMARK',
           'MAX_WATERMARK']

#: Flink's watermarks before any element and at the end of a bounded input (Long.MIN/MAX_VALUE)
MIN_WATERMARK = -(2**63)
MAX_WATERMARK = 2**63 - 1

_NANOS_PER_MILLI = 1_000_000
_NANOS_PER_SECOND = 1_000_000_000


class Duration(object):
    """An amount of time held in nanoseconds, like ``java.time.Duration``.

    Example: ``Duration.of_seconds(5).to_milliseconds() == 5000``.
    """

    __slots__ = ('_nanos',)

    def __init__(self, nanos: int = 0) -> None:
        self._nanos = int(nanos)

    @staticmethod
    def of_days(days: int) -> 'Duration':
        return Duration(days * 86_400 * _NANOS_PER_SECOND)

    @staticmethod
    def of_hours(hours: int) -> 'Duration':
        return Duration(hours * 3_600 * _NANOS_PER_SECOND)

    @staticmethod
    def of_minutes(minutes: int) -> 'Duration':
        return Duration(minutes * 60 * _NANOS_PER_SECOND)

    @staticmethod
    def of_seconds(seconds: int) -> 'Duration':
        return Duration(seconds * _NANOS_PER_SECOND)

    @staticmethod
    def of_millis(millis: int) -> 'Duration':
        return Duration(millis * _NANOS_PER_MILLI)

    @staticmethod
    def of_nanos(nanos: int) -> 'Duration':
        return Duration(nanos)

    def to_milliseconds(self) -> int:
        return self._nanos // _NANOS_PER_MILLI

    def to_millis(self) -> int:
        return self.to_milliseconds()

    def to_nanos(self) -> int:
        return self._nanos

    def get_seconds(self) -> int:
        return self._nanos // _NANOS_PER_SECOND

    def get_nano(self) -> int:
        return self._nanos % _NANOS_PER_SECOND

    def __eq__(self, other) -> bool:
        return isinstance(other, Duration) and self._nanos == other._nanos

    def __lt__(self, other: 'Duration') -> bool:
        return self._nanos < other._nanos

    def __le__(self, other: 'Duration') -> bool:
        return self._nanos <= other._nanos

    def __hash__(self) -> int:
        return hash(('Duration', self._nanos))

    def __reduce__(self):
        return Duration, (self._nanos,)

    def __repr__(self) -> str:
        if self._nanos % _NANOS_PER_MILLI == 0:
            return 'Duration.of_millis(%d)' % (self._nanos // _NANOS_PER_MILLI)
        return 'Duration.of_nanos(%d)' % self._nanos


class Time(object):
    """A time span in milliseconds (the older Flink API kept in PyFlink 2.x for windows).

    Example: ``Time.seconds(10).to_milliseconds() == 10000``.
    """

    __slots__ = ('_milliseconds',)

    def __init__(self, milliseconds: int) -> None:
        self._milliseconds = int(milliseconds)

    @staticmethod
    def milliseconds(milliseconds: int) -> 'Time':
        return Time(milliseconds)

    @staticmethod
    def seconds(seconds: int) -> 'Time':
        return Time(seconds * 1_000)

    @staticmethod
    def minutes(minutes: int) -> 'Time':
        return Time(minutes * 60_000)

    @staticmethod
    def hours(hours: int) -> 'Time':
        return Time(hours * 3_600_000)

    @staticmethod
    def days(days: int) -> 'Time':
        return Time(days * 86_400_000)

    def to_milliseconds(self) -> int:
        return self._milliseconds

    def __eq__(self, other) -> bool:
        return isinstance(other, Time) and self._milliseconds == other._milliseconds

    def __hash__(self) -> int:
        return hash(('Time', self._milliseconds))

    def __reduce__(self):
        return Time, (self._milliseconds,)

    def __repr__(self) -> str:
        return 'Time.milliseconds(%d)' % self._milliseconds

    def __str__(self) -> str:
        return '%d ms' % self._milliseconds


class Instant(object):
    """A point on the time line: seconds and nanoseconds since the epoch, like ``java.time.Instant``.

    Example: ``Instant.of_epoch_milli(1500).to_epoch_milli() == 1500``.
    """

    __slots__ = ('seconds', 'nanos')

    def __init__(self, seconds: int, nanos: int) -> None:
        self.seconds = int(seconds)
        self.nanos = int(nanos)

    @staticmethod
    def of_epoch_milli(epoch_milli: int) -> 'Instant':
        seconds, millis = divmod(int(epoch_milli), 1_000)
        return Instant(seconds, millis * _NANOS_PER_MILLI)

    @staticmethod
    def of_epoch_second(epoch_second: int, nano_adjustment: int = 0) -> 'Instant':
        extra, nanos = divmod(int(nano_adjustment), _NANOS_PER_SECOND)
        return Instant(int(epoch_second) + extra, nanos)

    def to_epoch_milli(self) -> int:
        return self.seconds * 1_000 + self.nanos // _NANOS_PER_MILLI

    def to_epoch_micro(self) -> int:
        return self.seconds * 1_000_000 + self.nanos // 1_000

    def __eq__(self, other) -> bool:
        return (isinstance(other, Instant) and self.seconds == other.seconds
                and self.nanos == other.nanos)

    def __lt__(self, other: 'Instant') -> bool:
        return (self.seconds, self.nanos) < (other.seconds, other.nanos)

    def __hash__(self) -> int:
        return hash(('Instant', self.seconds, self.nanos))

    def __reduce__(self):
        return Instant, (self.seconds, self.nanos)

    def __repr__(self) -> str:
        return 'Instant<%s, %s>' % (self.seconds, self.nanos)


def to_millis(value: Union[Time, Duration, int]) -> int:
    """Milliseconds of a :class:`Time`, a :class:`Duration`, a ``datetime.timedelta`` or an int
    (taken as milliseconds already)."""
    if isinstance(value, Duration):
        return value.to_milliseconds()
    if isinstance(value, Time):
        return value.to_milliseconds()
    if isinstance(value, bool):
        raise TypeError("expected Time, Duration or int milliseconds, got bool")
    if isinstance(value, int):
        return value
    if isinstance(value, datetime.timedelta):
        return value // datetime.timedelta(milliseconds=1)
    raise TypeError("expected Time, Duration or int milliseconds, got %s" % type(value).__name__)


# -- TIMESTAMP and TIMESTAMP_LTZ values of the Table API ------------------------------------

#: Flink's default pattern of UNIX_TIMESTAMP, FROM_UNIXTIME and TO_TIMESTAMP
DEFAULT_TIMESTAMP_FORMAT = "yyyy-MM-dd HH:mm:ss"
#: the epoch as a TIMESTAMP value (a naive datetime: Kindling's session time zone is UTC)
EPOCH = datetime.datetime(1970, 1, 1)


def epoch_millis(moment: datetime.datetime) -> int:
    """Milliseconds since the epoch of a TIMESTAMP value (a naive datetime, UTC)."""
    return (moment - EPOCH) // datetime.timedelta(milliseconds=1)


def timestamp_of(value: Union[datetime.datetime, 'Instant', int]) -> datetime.datetime:
    """The TIMESTAMP value (a naive datetime, UTC) of a datetime, an Instant or epoch milliseconds."""
    if isinstance(value, datetime.datetime):
        return value
    millis = value.to_epoch_milli() if isinstance(value, Instant) else int(value)
    return EPOCH + datetime.timedelta(milliseconds=millis)


def instant_of(value: Union[datetime.datetime, 'Instant', int]) -> 'Instant':
    """The TIMESTAMP_LTZ value (an Instant) of a TIMESTAMP's datetime (UTC), an Instant or epoch milliseconds."""
    if isinstance(value, Instant):
        return value
    if isinstance(value, datetime.datetime):
        return Instant.of_epoch_milli(epoch_millis(value))
    return Instant.of_epoch_milli(int(value))


def utc_datetime(value: Optional['Instant']) -> Optional[datetime.datetime]:
    """The datetime PyFlink hands a Python function for a TIMESTAMP_LTZ value: aware, in the session
    time zone (Kindling's is UTC); None for null."""
    if value is None or isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value
    moment = value if isinstance(value, datetime.datetime) else EPOCH + datetime.timedelta(
        microseconds=instant_of(value).to_epoch_micro())
    return moment.replace(tzinfo=datetime.timezone.utc)


def utc_timestamps(values: list) -> Any:
    """The pandas Series of TIMESTAMP_LTZ values as PyFlink's Arrow conversion gives them (to pandas
    functions, in to_pandas): UTC timestamps, NaT for null."""
    import pandas

    return pandas.Series(pandas.to_datetime([utc_datetime(v) for v in values], utc=True))


# -- Flink's duration notation in configuration values ------------------------------------

_UNIT_MILLIS = {
    **dict.fromkeys(("d", "day", "days"), 86_400_000), **dict.fromkeys(("h", "hour", "hours"), 3_600_000),
    **dict.fromkeys(("min", "m", "minute", "minutes", "mins"), 60_000),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1000),
    **dict.fromkeys(("ms", "milli", "millis", "millisecond", "milliseconds"), 1),
}


def duration_millis(value: Union[str, int, 'Duration', 'Time'], key: str = "duration") -> int:
    """Milliseconds of a configuration duration in Flink's notation (``"10 s"``, ``"1min"``,
    ``"500"``: milliseconds without a unit), or of an int, Duration or Time. ``key`` names the
    setting in the error for a value that is none of these."""
    if not isinstance(value, str):
        return to_millis(value)
    text = value.strip().lower()
    number = text.rstrip("abcdefghijklmnopqrstuvwxyz ")
    unit = text[len(number):].strip() or "ms"
    if not number.strip().isdigit() or unit not in _UNIT_MILLIS:
        raise ValueError("%s must be a duration such as '10 s', '500 ms' or '1 min', got %r" % (key, value))
    return int(number) * _UNIT_MILLIS[unit]
