import datetime
import pickle

import pytest

from kindling.common import Duration, Instant, Time
from kindling.common.time import to_millis


def test_duration_factories():
    assert Duration.of_millis(1500).to_milliseconds() == 1500
    assert Duration.of_seconds(2).to_milliseconds() == 2000
    assert Duration.of_minutes(1).to_milliseconds() == 60_000
    assert Duration.of_hours(1).to_milliseconds() == 3_600_000
    assert Duration.of_days(1).to_milliseconds() == 86_400_000
    assert Duration.of_nanos(2_500_000).to_milliseconds() == 2
    assert Duration.of_seconds(1) == Duration.of_millis(1000)
    assert Duration.of_seconds(1) != Duration.of_millis(1001)
    assert hash(Duration.of_seconds(1)) == hash(Duration.of_millis(1000))
    assert repr(Duration.of_seconds(5)) == 'Duration.of_millis(5000)'
    assert Duration.of_millis(1) < Duration.of_seconds(1)
    assert pickle.loads(pickle.dumps(Duration.of_nanos(7))) == Duration.of_nanos(7)


def test_time():
    assert Time.milliseconds(5).to_milliseconds() == 5
    assert Time.seconds(10).to_milliseconds() == 10_000
    assert Time.minutes(2).to_milliseconds() == 120_000
    assert Time.hours(1).to_milliseconds() == 3_600_000
    assert Time.days(1).to_milliseconds() == 86_400_000
    assert Time.seconds(1) == Time.milliseconds(1000)
    assert repr(Time.seconds(1)) == 'Time.milliseconds(1000)'


def test_instant():
    i = Instant.of_epoch_milli(1_234)
    assert (i.seconds, i.nanos) == (1, 234_000_000)
    assert i.to_epoch_milli() == 1_234
    assert Instant.of_epoch_milli(-1).to_epoch_milli() == -1
    assert Instant(1, 5) == Instant(1, 5)
    assert pickle.loads(pickle.dumps(i)) == i


def test_to_millis():
    assert to_millis(Time.seconds(1)) == 1000
    assert to_millis(Duration.of_minutes(1)) == 60_000
    assert to_millis(250) == 250
    assert to_millis(datetime.timedelta(seconds=2)) == 2000
    with pytest.raises(TypeError):
        to_millis('5')
    with pytest.raises(TypeError):
        to_millis(True)
