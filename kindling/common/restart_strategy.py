"""Restart strategies, as in ``pyflink.common.restart_strategy``, and the logic that applies them.

A strategy is configured with Flink's keys (``restart-strategy.type``: ``none``, ``fixed-delay``,
``failure-rate``, ``exponential-delay``, and their ``restart-strategy.<type>.*`` options) or,
as in PyFlink 1.x, with ``env.set_restart_strategy(RestartStrategies...)``, which writes those
keys. Without one, a job restarts with ``exponential-delay`` when checkpointing is enabled and
not at all otherwise, as in Flink 2.x. The runner (``kindling/spark/runner.py``) asks
:class:`RestartBackoff` after each failure of the Spark query whether, and after how long, to
start it again from its checkpoint.
"""
import random
from datetime import timedelta
from typing import Optional, Union

from kindling.common.configuration import Configuration
from kindling.common.time import Duration, Time, duration_millis, to_millis

__all__ = ['RestartStrategies', 'RestartStrategyConfiguration', 'RestartBackoff']

TYPE = 'restart-strategy.type'
_TYPE_NAMES = {'none': 'none', 'off': 'none', 'disable': 'none', 'fixed-delay': 'fixed-delay',
               'fixeddelay': 'fixed-delay', 'failure-rate': 'failure-rate', 'failurerate': 'failure-rate',
               'exponential-delay': 'exponential-delay', 'exponentialdelay': 'exponential-delay'}


def _millis(value: Union[int, timedelta, Duration, Time, None]) -> int:
    return 0 if value is None else to_millis(value)


class RestartStrategyConfiguration(object):
    """A restart strategy; ``env.set_restart_strategy`` applies it to a job."""

    def get_description(self) -> str:
        return type(self).__name__

    def _options(self) -> dict:
        """The ``restart-strategy.*`` keys this strategy stands for (empty: the configured default)."""
        return {}

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.__dict__.items()))))

    def __repr__(self) -> str:
        return '%s(%s)' % (type(self).__name__,
                           ', '.join('%s=%r' % kv for kv in sorted(self.__dict__.items())))


class RestartStrategies(object):
    """Factories for restart strategies, e.g. ``RestartStrategies.fixed_delay_restart(3, 10000)``:
    restart a failed job up to 3 times, 10 s apart, each time from its last checkpoint."""

    class NoRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Fail the job at its first failure."""

        def __init__(self, j_restart_strategy=None) -> None:
            pass

        def get_description(self) -> str:
            return 'Restart deactivated.'

        def _options(self) -> dict:
            return {TYPE: 'none'}

    class FixedDelayRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Restart up to ``restart_attempts`` times, waiting a fixed delay before each restart."""

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

        def _options(self) -> dict:
            return {TYPE: 'fixed-delay', 'restart-strategy.fixed-delay.attempts': str(self.restart_attempts),
                    'restart-strategy.fixed-delay.delay': '%d ms' % self.delay_between_attempts_ms}

    class FailureRateRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Restart unless more than ``max_failure_rate`` failures happen within
        ``failure_interval``, waiting a fixed delay before each restart."""

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

        def _options(self) -> dict:
            return {TYPE: 'failure-rate',
                    'restart-strategy.failure-rate.max-failures-per-interval': str(self.max_failure_rate),
                    'restart-strategy.failure-rate.failure-rate-interval': '%d ms' % self.failure_interval_ms,
                    'restart-strategy.failure-rate.delay': '%d ms' % self.delay_between_attempts_ms}

    class FallbackRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Use the strategy of the configuration (``restart-strategy.type``), else the default."""

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


def restart_strategy_of(configuration: Configuration) -> RestartStrategyConfiguration:
    """The strategy the ``restart-strategy.*`` keys of ``configuration`` stand for (PyFlink 1.x's
    ``get_restart_strategy``): ``fall_back_restart()`` when none is set, and for
    ``exponential-delay``, which has no RestartStrategies factory."""
    backoff = RestartBackoff(configuration, checkpointing=False)
    if not (configuration.get_string(TYPE, '') or configuration.get_string('restart-strategy', '')):
        return RestartStrategies.fall_back_restart()
    if backoff.type == 'none':
        return RestartStrategies.no_restart()
    if backoff.type == 'fixed-delay':
        return RestartStrategies.fixed_delay_restart(backoff.attempts, backoff.delay_ms)
    if backoff.type == 'failure-rate':
        return RestartStrategies.failure_rate_restart(backoff.max_failures, backoff.interval_ms, backoff.delay_ms)
    return RestartStrategies.fall_back_restart()


class RestartBackoff(object):
    """Decides, failure after failure, whether a job restarts and after what delay, as Flink's
    restart back-off strategies do (defaults as Flink 2.3's).

    Example::

        backoff = RestartBackoff(configuration, checkpointing=True)
        delay_ms = backoff.on_failure(now_ms)   # None: give up, the job fails
    """

    def __init__(self, configuration: Configuration, checkpointing: bool) -> None:
        conf = configuration
        configured = conf.get_string(TYPE, '') or conf.get_string('restart-strategy', '')
        if configured and configured.strip().lower() not in _TYPE_NAMES:
            raise ValueError("%s must be one of none, fixed-delay, failure-rate, exponential-delay; got %r"
                             % (TYPE, configured))
        self.type = _TYPE_NAMES[configured.strip().lower()] if configured else (
            'exponential-delay' if checkpointing else 'none')

        def ms(key: str, default: str) -> int:
            return duration_millis(conf.get_string(key, default), key)

        if self.type == 'fixed-delay':
            self.attempts = conf.get_integer('restart-strategy.fixed-delay.attempts', 1)
            self.delay_ms = ms('restart-strategy.fixed-delay.delay', '1 s')
        elif self.type == 'failure-rate':
            self.max_failures = conf.get_integer('restart-strategy.failure-rate.max-failures-per-interval', 1)
            self.interval_ms = ms('restart-strategy.failure-rate.failure-rate-interval', '1 min')
            self.delay_ms = ms('restart-strategy.failure-rate.delay', '1 s')
        elif self.type == 'exponential-delay':
            prefix = 'restart-strategy.exponential-delay.'
            self.initial_ms = ms(prefix + 'initial-backoff', '1 s')
            self.max_backoff_ms = ms(prefix + 'max-backoff', '1 min')
            self.multiplier = conf.get_float(prefix + 'backoff-multiplier', 1.5)
            self.reset_ms = ms(prefix + 'reset-backoff-threshold', '1 h')
            self.jitter = conf.get_float(prefix + 'jitter-factor', 0.1)
            self.attempts = conf.get_integer(prefix + 'attempts-before-reset-backoff', 2147483647)
            self.backoff_ms = self.initial_ms
            self.restarted_at: Optional[int] = None
        self.failures: list = []  # times of the failures so far (ms)

    def on_failure(self, now_ms: int) -> Optional[int]:
        """Records a failure at ``now_ms``; returns the delay (ms) before the restart, or None
        when the strategy is exhausted and the job must fail."""
        self.failures.append(now_ms)
        if self.type == 'none':
            return None
        if self.type == 'fixed-delay':
            return self.delay_ms if len(self.failures) <= self.attempts else None
        if self.type == 'failure-rate':
            recent = [t for t in self.failures if now_ms - t <= self.interval_ms]
            return self.delay_ms if len(recent) <= self.max_failures else None
        if self.restarted_at is not None and now_ms - self.restarted_at >= self.reset_ms:
            self.failures, self.backoff_ms = [now_ms], self.initial_ms  # ran long enough: start over
        if len(self.failures) > self.attempts:
            return None
        delay = self.backoff_ms
        self.backoff_ms = min(int(self.backoff_ms * self.multiplier), self.max_backoff_ms)
        delay = max(0, int(delay + delay * self.jitter * random.uniform(-1, 1)))
        self.restarted_at = now_ms + delay
        return delay

    def description(self) -> str:
        """The strategy in words, for the console."""
        if self.type == 'none':
            return 'no restart'
        if self.type == 'fixed-delay':
            return 'fixed-delay: %d attempts, %d ms apart' % (self.attempts, self.delay_ms)
        if self.type == 'failure-rate':
            return 'failure-rate: at most %d failures per %d ms, %d ms apart' % (
                self.max_failures, self.interval_ms, self.delay_ms)
        return 'exponential-delay: from %d ms up to %d ms (x%s)' % (self.initial_ms, self.max_backoff_ms,
                                                                     self.multiplier)
