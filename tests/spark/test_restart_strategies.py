"""Restart strategies decide as Flink 2.3's back-off strategies do (fast: no Spark), and bounded
sources admit at most ``kindling.source.max-records-per-batch`` records per micro-batch.

The sequences asserted here were read from Flink 2.3's own strategies (created with
``RestartBackoffTimeStrategyFactoryLoader`` from the same keys and fed failures)."""
from __future__ import annotations

import pytest

from kindling.common import Configuration
from kindling.common.restart_strategy import RestartBackoff
from kindling.spark.sources import _admitted


def _backoff(checkpointing: bool = False, **conf) -> RestartBackoff:
    return RestartBackoff(Configuration.from_dict(conf), checkpointing)


def _delays(backoff: RestartBackoff, times: list) -> list:
    return [backoff.on_failure(t) for t in times]


def test_without_a_strategy_none_unless_checkpointing_then_exponential_delay():
    assert _backoff().type == "none" and _delays(_backoff(), [0]) == [None]
    backoff = _backoff(True, **{"restart-strategy.exponential-delay.jitter-factor": "0"})
    assert backoff.type == "exponential-delay"
    # 1 s, then x1.5 up to 1 min, for ever (attempts-before-reset-backoff: Integer.MAX_VALUE)
    assert _delays(backoff, [0, 10_000, 20_000, 30_000]) == [1000, 1500, 2250, 3375]
    assert _backoff(True, **{"restart-strategy.type": "off"}).type == "none"


def test_fixed_delay_restarts_the_configured_number_of_times():
    assert _delays(_backoff(**{"restart-strategy.type": "fixed-delay"}), [0, 1]) == [1000, None]  # 1 attempt, 1 s
    backoff = _backoff(**{"restart-strategy.type": "fixeddelay", "restart-strategy.fixed-delay.attempts": "2",
                          "restart-strategy.fixed-delay.delay": "10ms"})
    assert _delays(backoff, [0, 1, 2]) == [10, 10, None]


def test_failure_rate_counts_the_failures_within_the_interval():
    assert _delays(_backoff(**{"restart-strategy.type": "failure-rate"}), [0, 1]) == [1000, None]
    backoff = _backoff(**{"restart-strategy.type": "failure-rate",
                          "restart-strategy.failure-rate.max-failures-per-interval": "2",
                          "restart-strategy.failure-rate.failure-rate-interval": "1s",
                          "restart-strategy.failure-rate.delay": "0"})
    assert _delays(backoff, [0, 10, 20]) == [0, 0, None]
    backoff = _backoff(**{"restart-strategy.type": "failure-rate",
                          "restart-strategy.failure-rate.max-failures-per-interval": "2",
                          "restart-strategy.failure-rate.failure-rate-interval": "1s"})
    assert _delays(backoff, [0, 10, 1500, 1600]) == [1000, 1000, 1000, 1000]  # never 3 within 1 s


def test_exponential_delay_gives_up_after_its_attempts_and_resets_after_a_quiet_run():
    conf = {"restart-strategy.type": "exponential-delay", "restart-strategy.exponential-delay.jitter-factor": "0",
            "restart-strategy.exponential-delay.initial-backoff": "100 ms",
            "restart-strategy.exponential-delay.max-backoff": "300 ms",
            "restart-strategy.exponential-delay.backoff-multiplier": "2",
            "restart-strategy.exponential-delay.attempts-before-reset-backoff": "3",
            "restart-strategy.exponential-delay.reset-backoff-threshold": "1 min"}
    assert _delays(_backoff(**conf), [0, 1000, 2000, 3000]) == [100, 200, 300, None]
    backoff = _backoff(**conf)
    # ran a minute after its second restart: back to the initial delay and a full set of attempts
    assert _delays(backoff, [0, 1000, 70_000, 71_000, 72_000, 73_000]) == [100, 200, 100, 200, 300, None]
    jittered = _backoff(**{**conf, "restart-strategy.exponential-delay.jitter-factor": "0.1"})
    assert 90 <= jittered.on_failure(0) <= 110


def test_an_unknown_strategy_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="restart-strategy.type must be one of none, fixed-delay, failure-rate, "
                                         "exponential-delay; got 'sometimes'"):
        _backoff(**{"restart-strategy.type": "sometimes"})


def test_a_records_budget_moves_an_offset_back():
    start, latest = {"pos": 100, "end": False}, {"pos": 1000, "end": True}
    assert _admitted(start, latest, 300) == {"pos": 400, "end": False}
    assert _admitted({"pos": 800, "end": False}, latest, 300) == latest  # the rest, and the end
    assert _admitted(start, latest, None) == latest


def test_a_restart_strategy_keeps_a_bounded_job_on_the_restartable_micro_batch_path():
    from kindling.common import RestartStrategies
    from kindling.datastream import StreamExecutionEnvironment
    from kindling.graph.specs import SequenceSourceSpec
    from kindling.spark.compiler import TimeSettings
    from kindling.spark.runner import runs_in_one_step

    env = StreamExecutionEnvironment.get_execution_environment()
    small = [SequenceSourceSpec(start=1, end=10)]
    assert runs_in_one_step(env, TimeSettings.of(env), small)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 0))
    assert not runs_in_one_step(env, TimeSettings.of(env), small)
    env.set_restart_strategy(RestartStrategies.no_restart())
    assert runs_in_one_step(env, TimeSettings.of(env), small)
