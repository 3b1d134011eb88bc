import concurrent.futures

import pytest

import kindling.common as common
from kindling.common import (ByteArraySchema, CompletableFuture, Duration, Encoder, ExecutionConfig,
                             JobClient, JobExecutionResult, JobID, JobStatus, RestartStrategies,
                             SimpleStringSchema, TimestampAssigner, WatermarkStrategy)


def test_exports():
    for name in ['Types', 'TypeInformation', 'Row', 'RowKind', 'Configuration', 'Duration', 'Time',
                 'Instant', 'ExecutionConfig', 'JobExecutionResult', 'JobClient', 'JobID', 'JobStatus',
                 'Encoder', 'SimpleStringSchema', 'ByteArraySchema', 'SerializationSchema',
                 'DeserializationSchema', 'RestartStrategies', 'CompletableFuture', 'WatermarkStrategy',
                 'TimestampAssigner']:
        assert hasattr(common, name), name


def test_execution_config():
    config = ExecutionConfig()
    assert config.get_parallelism() == ExecutionConfig.PARALLELISM_DEFAULT
    assert config.set_parallelism(4) is config
    assert config.get_parallelism() == 4
    config.set_max_parallelism(128).set_auto_watermark_interval(50)
    assert config.get_max_parallelism() == 128
    assert config.get_auto_watermark_interval() == 50
    assert not config.is_object_reuse_enabled()
    assert config.enable_object_reuse().is_object_reuse_enabled()
    config.set_global_job_parameters({'a': 1})
    assert config.get_global_job_parameters() == {'a': '1'}
    with pytest.raises(ValueError):
        config.set_parallelism(0)


def test_job_id_status_result():
    job_id = JobID()
    assert len(job_id.to_hex_string()) == 32
    assert JobID.from_hex_string(job_id.to_hex_string()) == job_id
    assert JobID() != job_id
    result = JobExecutionResult(job_id, 1234, {'count': 5})
    assert result.get_job_id() == job_id
    assert result.get_net_runtime() == 1234
    assert result.get_accumulator_result('count') == 5
    assert result.get_accumulator_result('none') is None
    assert result.get_all_accumulator_results() == {'count': 5}
    assert result.is_job_execution_result() and result.get_job_execution_result() is result
    assert job_id.to_hex_string() in repr(result)
    assert JobStatus.FINISHED.is_globally_terminal_state()
    assert JobStatus.SUSPENDED.is_terminal_state()
    assert not JobStatus.SUSPENDED.is_globally_terminal_state()
    assert not JobStatus.RUNNING.is_terminal_state()
    assert len(JobStatus) == 11


def test_completable_future_and_job_client():
    f = concurrent.futures.Future()
    cf = CompletableFuture(f, py_class=str)
    assert not cf.done()
    f.set_result(3)
    assert cf.done() and cf.result() == '3' and cf.exception() is None
    failed = CompletableFuture()
    failed.complete_exceptionally(RuntimeError('x'))
    assert isinstance(failed.exception(), RuntimeError)
    assert CompletableFuture().cancel()
    with pytest.raises(TypeError):
        JobClient()


def test_serialization():
    assert Encoder.simple_string_encoder().encode(42) == b'42'
    assert Encoder.simple_string_encoder('UTF-16').encode('a') == 'a'.encode('UTF-16')
    schema = SimpleStringSchema()
    assert schema.serialize('hé') == 'hé'.encode('utf-8')
    assert schema.deserialize(b'abc') == 'abc'
    assert ByteArraySchema().serialize(b'x') == b'x'
    assert ByteArraySchema().deserialize(b'x') == b'x'


def test_restart_strategies():
    assert RestartStrategies.no_restart() == RestartStrategies.no_restart()
    fixed = RestartStrategies.fixed_delay_restart(3, 1000)
    assert fixed.restart_attempts == 3 and fixed.delay_between_attempts_ms == 1000
    assert 'fixed delay' in fixed.get_description()
    rate = RestartStrategies.failure_rate_restart(2, 60_000, Duration.of_seconds(1))
    assert (rate.max_failure_rate, rate.failure_interval_ms, rate.delay_between_attempts_ms) == (2, 60_000, 1000)
    assert RestartStrategies.fall_back_restart().get_description()


def test_watermark_strategy_placeholder():
    s = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5))
    assert (s.kind, s.max_out_of_orderness_ms) == ('bounded', 5000)
    s.with_timestamp_assigner(lambda value, ts: value[0]).with_idleness(Duration.of_seconds(1))
    assert isinstance(s.timestamp_assigner, TimestampAssigner)
    assert s.timestamp_assigner.extract_timestamp((7,), 0) == 7
    assert s.idleness_ms == 1000
    assert WatermarkStrategy.for_monotonous_timestamps().kind == 'monotonous'
    assert WatermarkStrategy.no_watermarks().kind == 'none'
