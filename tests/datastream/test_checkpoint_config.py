"""Checkpoint configuration as PyFlink 2.3 has it: CheckpointConfig, CheckpointingMode, storages,
state backends, retention and the ``execution.checkpointing.*`` keys (fast: no Spark).

The defaults and errors asserted here were read from PyFlink 2.3 itself (a
``StreamExecutionEnvironment`` and its ``get_checkpoint_config()``)."""
from __future__ import annotations

import pytest

from kindling.common import Configuration, Duration, RestartStrategies
from kindling.datastream import (CheckpointConfig, CheckpointingMode, EmbeddedRocksDBStateBackend,
                                 ExternalizedCheckpointRetention, FileSystemCheckpointStorage, HashMapStateBackend,
                                 JobManagerCheckpointStorage, PredefinedOptions, StreamExecutionEnvironment)
from kindling.datastream.checkpoint_storage import CustomCheckpointStorage
from kindling.datastream.state_backend import CustomStateBackend
from kindling.common.unsupported import UnsupportedError


def _env(**conf) -> StreamExecutionEnvironment:
    return StreamExecutionEnvironment.get_execution_environment(Configuration.from_dict(conf))


def test_defaults_are_pyflinks():
    env = _env()
    config = env.get_checkpoint_config()
    assert env.get_checkpoint_interval() == -1 and config.get_checkpoint_interval() == -1
    assert not config.is_checkpointing_enabled()
    assert env.get_checkpointing_mode() == CheckpointingMode.AT_LEAST_ONCE  # while disabled, as PyFlink
    assert (config.get_checkpoint_timeout(), config.get_min_pause_between_checkpoints(),
            config.get_max_concurrent_checkpoints(),
            config.get_tolerable_checkpoint_failure_number()) == (600000, 0, 1, 0)
    assert config.is_fail_on_checkpointing_errors()
    assert config.get_externalized_checkpoint_retention() == ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS
    assert not config.is_externalized_checkpoints_enabled()
    assert not config.is_unaligned_checkpoints_enabled() and not config.is_force_unaligned_checkpoints()
    assert config.get_aligned_checkpoint_timeout() == Duration.of_millis(0) == config.get_alignment_timeout()
    assert env.is_changelog_state_backend_enabled() is None
    assert config.get_checkpoint_storage() is None


def test_enable_checkpointing_sets_interval_and_mode():
    env = _env()
    assert env.enable_checkpointing(1000) is env
    assert env.get_checkpoint_interval() == 1000 and env.get_checkpoint_config().is_checkpointing_enabled()
    assert env.get_checkpointing_mode() == CheckpointingMode.EXACTLY_ONCE
    env.enable_checkpointing(2000, CheckpointingMode.AT_LEAST_ONCE)
    assert (env.get_checkpoint_interval(), env.get_checkpointing_consistency_mode()) == (
        2000, CheckpointingMode.AT_LEAST_ONCE)
    assert env.get_configuration().get_string("execution.checkpointing.interval", "") == "2000 ms"
    for interval in (-1, 0, 5):
        with pytest.raises(ValueError, match="Checkpoint interval must be larger than or equal to 10 ms"):
            env.enable_checkpointing(interval)
    with pytest.raises(TypeError, match="CheckpointingMode"):
        env.enable_checkpointing(1000, "EXACTLY_ONCE")


def test_configuration_keys_and_setters_are_one_setting():
    env = _env(**{"execution.checkpointing.interval": "3s", "execution.checkpointing.mode": "at_least_once",
                  "execution.checkpointing.timeout": "1min", "execution.checkpointing.min-pause": "500ms",
                  "execution.checkpointing.max-concurrent-checkpoints": "2",
                  "execution.checkpointing.tolerable-failed-checkpoints": "3",
                  "execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION"})
    config = env.get_checkpoint_config()
    assert (env.get_checkpoint_interval(), env.get_checkpointing_mode(), config.get_checkpoint_timeout(),
            config.get_min_pause_between_checkpoints(), config.get_max_concurrent_checkpoints(),
            config.get_tolerable_checkpoint_failure_number(), config.is_fail_on_checkpointing_errors(),
            config.is_externalized_checkpoints_enabled()) == (
        3000, CheckpointingMode.AT_LEAST_ONCE, 60000, 500, 2, 3, False, True)
    env.configure(Configuration.from_dict({"execution.checkpointing.interval": "4 s"}))
    assert env.get_checkpoint_interval() == 4000
    config.set_checkpoint_interval(500).set_min_pause_between_checkpoints(100).set_checkpoint_timeout(10)
    assert (env.get_checkpoint_interval(), config.get_min_pause_between_checkpoints(),
            config.get_checkpoint_timeout()) == (500, 100, 10)
    config.set_fail_on_checkpointing_errors(False)
    assert config.get_tolerable_checkpoint_failure_number() == 2147483647
    with pytest.raises(ValueError, match="execution.checkpointing.mode must be one of EXACTLY_ONCE, AT_LEAST_ONCE"):
        _env(**{"execution.checkpointing.interval": "1s", "execution.checkpointing.mode": "twice"}) \
            .get_checkpointing_mode()
    with pytest.raises(ValueError, match="execution.checkpointing.interval must be a duration"):
        _env(**{"execution.checkpointing.interval": "often"}).get_checkpoint_interval()


@pytest.mark.parametrize("setter, value, message", [
    ("set_checkpoint_timeout", 0, "Checkpoint timeout must be larger than or equal to 10 ms"),
    ("set_min_pause_between_checkpoints", -1, "Pause value must be zero or positive"),
    ("set_max_concurrent_checkpoints", 0, "The maximum number of concurrent attempts must be at least one"),
    ("set_tolerable_checkpoint_failure_number", -1, "The tolerable failure checkpoint number must be non-negative"),
])
def test_invalid_settings_are_refused_as_in_pyflink(setter, value, message):
    with pytest.raises(ValueError, match=message):
        getattr(CheckpointConfig(), setter)(value)


def test_unaligned_checkpoints_count_only_with_exactly_once_checkpointing():
    env = _env()
    config = env.get_checkpoint_config()
    config.enable_unaligned_checkpoints()
    assert not env.is_unaligned_checkpoints_enabled()  # checkpointing disabled
    env.enable_checkpointing(1000)
    assert env.is_unaligned_checkpoints_enabled()
    config.set_checkpointing_mode(CheckpointingMode.AT_LEAST_ONCE)
    assert not config.is_unaligned_checkpoints_enabled()
    config.set_force_unaligned_checkpoints()
    config.set_alignment_timeout(Duration.of_seconds(3))
    assert env.is_force_unaligned_checkpoints() and config.get_aligned_checkpoint_timeout() == Duration.of_seconds(3)
    config.disable_unaligned_checkpoints()
    assert not config.is_unaligned_checkpoints_enabled()


def test_checkpoint_storage_sets_the_checkpoint_directory():
    env = _env()
    config = env.get_checkpoint_config()
    config.set_checkpoint_storage(FileSystemCheckpointStorage("file:///data/ckp/"))
    assert config._directory() == "file:///data/ckp"
    storage = config.get_checkpoint_storage()
    assert isinstance(storage, FileSystemCheckpointStorage) and storage.get_checkpoint_path() == "file:///data/ckp"
    assert (storage.get_min_file_size_threshold(), storage.get_write_buffer_size(), storage.get_savepoint_path()) == (
        20480, 4096, None)
    config.set_checkpoint_storage(JobManagerCheckpointStorage())  # checkpoints for the job's lifetime only
    assert config._directory() == "" and isinstance(config.get_checkpoint_storage(), JobManagerCheckpointStorage)
    config.set_checkpoint_storage_dir("/data/other")
    assert config._directory() == "/data/other"
    assert _env(**{"state.checkpoints.dir": "/old/name"}).get_checkpoint_config()._directory() == "/old/name"
    jobmanager = JobManagerCheckpointStorage("file:///tmp/jm", 100)
    assert (jobmanager.get_checkpoint_path(), jobmanager.get_max_state_size()) == ("file:///tmp/jm", 100)
    assert JobManagerCheckpointStorage().get_max_state_size() == JobManagerCheckpointStorage.DEFAULT_MAX_STATE_SIZE
    with pytest.raises(ValueError, match="checkpoint_path must not be None"):
        FileSystemCheckpointStorage()
    with pytest.raises(ValueError, match="must be absolute"):
        FileSystemCheckpointStorage("relative/path")
    with pytest.raises(ValueError, match=r"threshold for file state size must be in \[-1, 1048576\]"):
        FileSystemCheckpointStorage("/ckp", 10 ** 8)
    with pytest.raises(TypeError, match="FileSystemCheckpointStorage"):
        config.set_checkpoint_storage("/ckp")
    with pytest.raises(UnsupportedError, match="JVM"):
        CustomCheckpointStorage(None)


def test_state_backends_are_recorded_and_both_run_on_sparks_store():
    env = _env()
    assert env.get_state_backend() is None
    rocks = EmbeddedRocksDBStateBackend(True)
    assert env.set_state_backend(rocks) is env and env.get_state_backend() is rocks
    assert env.get_configuration().get_string("state.backend.type", "") == "rocksdb"
    env.set_state_backend(HashMapStateBackend())
    assert env.get_configuration().get_string("state.backend.type", "") == "hashmap"
    assert isinstance(_env(**{"state.backend.type": "rocksdb"}).get_state_backend(), EmbeddedRocksDBStateBackend)
    rocks = EmbeddedRocksDBStateBackend()
    assert (rocks.is_incremental_checkpoints_enabled(), rocks.get_db_storage_paths(), rocks.get_predefined_options(),
            rocks.get_options(), rocks.get_number_of_transfer_threads()) == (
        False, [], PredefinedOptions.DEFAULT, None, 4)
    rocks.set_db_storage_paths("/tmp/a", "/tmp/b")
    rocks.set_predefined_options(PredefinedOptions.FLASH_SSD_OPTIMIZED)
    rocks.set_number_of_transfer_threads(7)
    rocks.set_options("org.example.Options")
    assert (rocks.get_db_storage_paths(), rocks.get_predefined_options(), rocks.get_number_of_transfer_threads(),
            rocks.get_options()) == (
        ["/tmp/a", "/tmp/b"], PredefinedOptions.FLASH_SSD_OPTIMIZED, 7, "org.example.Options")
    assert EmbeddedRocksDBStateBackend(True).is_incremental_checkpoints_enabled()
    with pytest.raises(TypeError, match="HashMapStateBackend"):
        env.set_state_backend("rocksdb")
    with pytest.raises(UnsupportedError, match="JVM"):
        CustomStateBackend(None)
    env.enable_changelog_state_backend(True)
    assert env.is_changelog_state_backend_enabled() is True


def test_pyflink_1_state_backends_say_what_replaces_them():
    with pytest.raises(ImportError, match="HashMapStateBackend or EmbeddedRocksDBStateBackend"):
        exec("from kindling.datastream import MemoryStateBackend", {})


def test_set_restart_strategy_writes_the_restart_strategy_keys():
    env = _env(**{"restart-strategy.type": "none", "restart-strategy.fixed-delay.attempts": "9"})
    assert env.get_restart_strategy() == RestartStrategies.no_restart()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 250))
    assert env.get_restart_strategy() == RestartStrategies.fixed_delay_restart(3, 250)
    conf = env.get_configuration()
    assert {k: conf.get_string(k, "") for k in conf.key_set() if k.startswith("restart-strategy")} == {
        "restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.attempts": "3",
        "restart-strategy.fixed-delay.delay": "250 ms"}
    env.set_restart_strategy(RestartStrategies.failure_rate_restart(2, 60_000, Duration.of_seconds(1)))
    assert conf.get_string("restart-strategy.failure-rate.delay", "") == "1000 ms"
    assert env.get_restart_strategy() == RestartStrategies.failure_rate_restart(2, 60_000, 1000)
    env.set_restart_strategy(RestartStrategies.fall_back_restart())
    assert env.get_restart_strategy() == RestartStrategies.fall_back_restart()
    assert not [k for k in conf.key_set() if k.startswith("restart-strategy")]
    with pytest.raises(TypeError, match="RestartStrategies"):
        env.set_restart_strategy("fixed-delay")
