"""Restart strategies, as in ``pyflink.common.restart_strategy``.

They are plain data only: Kindling does not restart a failed job yet (fault tolerance is an
open issue); a job fails at its first failure, whatever strategy is configured. A restarted
job with a configured checkpoint location (``execution.checkpointing.dir``) resumes from it.
"""
from datetime import timedelta
from typing import Optional, Union

from kindling.common.time import Duration, Time, to_millis

__all__ = ['RestartStrategies', 'RestartStrategyConfiguration']


def _millis(value: Union[int, timedelta, Duration, Time, None]) -> int:
    return 0 if value is None else to_millis(value)


class RestartStrategyConfiguration(object):
    """A restart strategy as plain data (Kindling does not act on it yet: see the module)."""

    def get_description(self) -> str:
        return type(self).__name__

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.__dict__.items()))))

    def __repr__(self) -> str:
        return '%s(%s)' % (type(self).__name__,
                           ', '.join('%s=%r' % kv for kv in sorted(self.__dict__.items())))


class RestartStrategies(object):
    """Factories for restart strategies, e.g. ``RestartStrategies.fixed_delay_restart(3, 10000)``.
    Kindling records them only: no job is restarted yet."""

    class NoRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Fail the job at the first failure (what every Kindling job does today)."""

        def __init__(self, j_restart_strategy=None) -> None:
            pass

        def get_description(self) -> str:
            return 'Restart deactivated.'

    class FixedDelayRestartStrategyConfiguration(RestartStrategyConfiguration):
        """In Flink: restart up to ``restart_attempts`` times, waiting a fixed delay in between.
        Kindling records it only."""

        def __init__(self, restart_attempts: Optional[int] = None,
                     delay_between_attempts_interval: Union[int, timedelta, Duration, None] = None,
                     j_restart_strategy=None) -> None:
            self.restart_attempts = int(restart_attempts or 0)
            self.delay_between_attempts_ms = _millis(delay_between_attempts_interval)

        def get_restart_attempts(self) -> int:
            return self.restart_attempts

        def get_delay_between_attempts_interval(self) -> timedelta:
            return timedelta(milliseconds=self.delay_between_attempts_ms)

        def get_description(self) -> str:
            return 'Restart with fixed delay (%d ms). #%d restart attempts.' % (
                self.delay_between_attempts_ms, self.restart_attempts)

    class FailureRateRestartStrategyConfiguration(RestartStrategyConfiguration):
        """In Flink: restart unless more than ``max_failure_rate`` failures happen within
        ``failure_interval``. Kindling records it only."""

        def __init__(self, max_failure_rate: Optional[int] = None,
                     failure_interval: Union[int, timedelta, Duration, None] = None,
                     delay_between_attempts_interval: Union[int, timedelta, Duration, None] = None,
                     j_restart_strategy=None) -> None:
            self.max_failure_rate = int(max_failure_rate or 0)
            self.failure_interval_ms = _millis(failure_interval)
            self.delay_between_attempts_ms = _millis(delay_between_attempts_interval)

        def get_max_failure_rate(self) -> int:
            return self.max_failure_rate

        def get_failure_interval(self) -> timedelta:
            return timedelta(milliseconds=self.failure_interval_ms)

        def get_delay_between_attempts_interval(self) -> timedelta:
            return timedelta(milliseconds=self.delay_between_attempts_ms)

        def get_description(self) -> str:
            return ('Failure rate restart with maximum of %d failures within interval %d ms '
                    'and fixed delay %d ms.' % (self.max_failure_rate, self.failure_interval_ms,
                                                self.delay_between_attempts_ms))

    class FallbackRestartStrategyConfiguration(RestartStrategyConfiguration):
        """In Flink: use the strategy of the cluster configuration. Kindling does not restart."""

        def __init__(self, j_restart_strategy=None) -> None:
            pass

        def get_description(self) -> str:
            return 'Cluster level default restart strategy'

    @staticmethod
    def no_restart() -> 'RestartStrategies.NoRestartStrategyConfiguration':
        return RestartStrategies.NoRestartStrategyConfiguration()

    @staticmethod
    def fall_back_restart() -> 'RestartStrategies.FallbackRestartStrategyConfiguration':
        return RestartStrategies.FallbackRestartStrategyConfiguration()

    @staticmethod
    def fixed_delay_restart(restart_attempts: int, delay_between_attempts: Union[int, timedelta, Duration]
                            ) -> 'RestartStrategies.FixedDelayRestartStrategyConfiguration':
        return RestartStrategies.FixedDelayRestartStrategyConfiguration(restart_attempts,
                                                                        delay_between_attempts)

    @staticmethod
    def failure_rate_restart(failure_rate: int, failure_interval: Union[int, timedelta, Duration],
                             delay_interval: Union[int, timedelta, Duration]
                             ) -> 'RestartStrategies.FailureRateRestartStrategyConfiguration':
        return RestartStrategies.FailureRateRestartStrategyConfiguration(failure_rate, failure_interval,
                                                                         delay_interval)
