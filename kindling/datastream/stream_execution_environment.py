"""StreamExecutionEnvironment, as in ``pyflink.datastream.stream_execution_environment``."""
from __future__ import annotations

import os
from typing import Any, Iterable

from kindling.common.configuration import Configuration
from kindling.common.execution_config import ExecutionConfig
from kindling.common.restart_strategy import RestartStrategyConfiguration, restart_strategy_of
from kindling.common.submission import submitted_configuration
from kindling.common.unsupported import CACHED_FILES, JVM_ONLY, unsupported
from kindling.common.typeinfo import TypeInformation, Types
from kindling.datastream.checkpoint_config import CheckpointConfig
from kindling.datastream.checkpointing_mode import CheckpointingMode
from kindling.datastream.data_stream import DataStream
from kindling.datastream.picklable import check_picklable
from kindling.datastream.state_backend import EmbeddedRocksDBStateBackend, HashMapStateBackend, StateBackend
from kindling.datastream.execution_mode import RuntimeExecutionMode
from kindling.datastream.slot_sharing_group import SlotSharingGroup
from kindling.datastream.time_characteristic import TimeCharacteristic
from kindling.graph.specs import CollectionSourceSpec, FileSourceSpec, SequenceSourceSpec
from kindling.graph.transformation import (
    ChainedTransformation,
    SinkTransformation,
    SourceTransformation,
)


class StreamExecutionEnvironment:
    """Where a streaming job is defined and from which it is executed on Spark.

    Runs on an embedded local Spark (``local[*]``) unless ``spark.master`` is configured
    (or ``KINDLING_SPARK_MASTER`` set), and uses an already active SparkSession as it is.

    Example::

        env = StreamExecutionEnvironment.get_execution_environment()
        env.from_collection(["a b", "b"]).flat_map(str.split).print()
        env.execute("split")
    """

    def __init__(self, configuration: Configuration | None = None):
        self._configuration = Configuration.from_dict(submitted_configuration())  # kindling run's options
        if configuration is not None:
            self._configuration.add_all(configuration)
        self._config = ExecutionConfig()
        self._sinks: list[SinkTransformation] = []
        self._runtime_mode = RuntimeExecutionMode.STREAMING
        mode = self._configuration.get_string("execution.runtime-mode", "STREAMING").upper()
        self._runtime_mode = RuntimeExecutionMode[mode]
        parallelism = self._configuration.get_integer("parallelism.default", -1)
        self._parallelism = parallelism if parallelism > 0 else None
        self._max_parallelism = self._configuration.get_integer("pipeline.max-parallelism", -1)
        self._checkpoint_config = CheckpointConfig(self._configuration)
        self._slot_sharing_groups: dict[str, SlotSharingGroup] = {}

    @staticmethod
    def get_execution_environment(configuration: Configuration | None = None) -> "StreamExecutionEnvironment":
        """A new environment; ``configuration`` may carry ``spark.*`` and ``kindling.*`` keys."""
        return StreamExecutionEnvironment(configuration)

    # -- configuration ------------------------------------------------------------------
    def configure(self, configuration: Configuration) -> None:
        self._configuration.add_all(configuration)

    def get_configuration(self) -> Configuration:
        return self._configuration

    def get_config(self) -> ExecutionConfig:
        return self._config

    def set_parallelism(self, parallelism: int) -> "StreamExecutionEnvironment":
        """Number of partitions sources are read in and keyed state is spread over."""
        if not isinstance(parallelism, int) or parallelism < 1:
            raise ValueError(f"parallelism must be a positive int, got {parallelism!r}")
        self._parallelism = parallelism
        return self

    def get_parallelism(self) -> int:
        """The job's parallelism: ``set_parallelism`` or ``parallelism.default`` if set, else the
        number of CPU cores, as PyFlink's local environment (``print()`` then writes ``n> ``)."""
        if self._parallelism is not None:
            return self._parallelism
        return self._config.get_parallelism() if self._config.get_parallelism() > 0 else (os.cpu_count() or 1)

    def set_max_parallelism(self, max_parallelism: int) -> "StreamExecutionEnvironment":
        if not isinstance(max_parallelism, int) or not 0 < max_parallelism <= 32768:
            raise ValueError(f"max parallelism must be an int in 1..32768, got {max_parallelism!r}")
        self._max_parallelism = max_parallelism
        return self

    def get_max_parallelism(self) -> int:
        """The keyed operators' number of key groups unless set on the operator; -1 (the default):
        Flink's default for each operator's parallelism (128 up to parallelism 85)."""
        return self._max_parallelism

    def set_runtime_mode(self, execution_mode: RuntimeExecutionMode) -> "StreamExecutionEnvironment":
        if not isinstance(execution_mode, RuntimeExecutionMode):
            raise TypeError(f"set_runtime_mode expects a RuntimeExecutionMode, got {execution_mode!r}")
        self._runtime_mode = execution_mode
        return self

    def get_runtime_mode(self) -> RuntimeExecutionMode:
        return self._runtime_mode

    def enable_checkpointing(self, interval: int, mode: CheckpointingMode = None) -> "StreamExecutionEnvironment":
        """Commits the job's progress (source offsets, keyed state, sink output) about every
        ``interval`` ms: Spark's micro-batches are the checkpoints (see CheckpointConfig). On a
        failure the job restarts from the last commit (``exponential-delay`` unless a restart
        strategy is configured). ``mode`` is accepted: Spark's state is exactly-once either way."""
        self._checkpoint_config.set_checkpoint_interval(interval)
        if mode is not None:
            self._checkpoint_config.set_checkpointing_mode(mode)
        return self

    def get_checkpoint_interval(self) -> int:
        """The checkpoint interval (ms), or -1 when checkpointing is disabled."""
        return self._checkpoint_config.get_checkpoint_interval()

    def get_checkpoint_config(self) -> CheckpointConfig:
        """The job's checkpoint settings (backed by its configuration's ``execution.checkpointing.*`` keys)."""
        return self._checkpoint_config

    def get_checkpointing_mode(self) -> CheckpointingMode:
        return self._checkpoint_config.get_checkpointing_mode()

    def get_checkpointing_consistency_mode(self) -> CheckpointingMode:
        return self._checkpoint_config.get_checkpointing_mode()

    def is_unaligned_checkpoints_enabled(self) -> bool:
        return self._checkpoint_config.is_unaligned_checkpoints_enabled()

    def is_force_unaligned_checkpoints(self) -> bool:
        return self._checkpoint_config.is_force_unaligned_checkpoints()

    def set_state_backend(self, state_backend: StateBackend) -> "StreamExecutionEnvironment":
        """Accepted as in PyFlink 1.x (``state.backend.type`` in 2.x): ``HashMapStateBackend`` and
        ``EmbeddedRocksDBStateBackend``: keyed state runs on Spark's RocksDB state store under both (the
        type decides only where a Table join Spark's stream-stream join computes keeps its rows)."""
        if not isinstance(state_backend, StateBackend):
            raise TypeError(f"set_state_backend expects a HashMapStateBackend or EmbeddedRocksDBStateBackend, "
                            f"got {state_backend!r}")
        state_backend._apply(self._configuration)
        self._state_backend = state_backend
        return self

    def get_state_backend(self) -> StateBackend | None:
        """The state backend set (``set_state_backend`` or ``state.backend.type``), or None (PyFlink 1.x)."""
        backend_type = self._configuration.get_string("state.backend.type", "").lower()
        backend = getattr(self, "_state_backend", None)
        if backend is not None and backend._type == backend_type:
            return backend
        classes = {"hashmap": HashMapStateBackend, "rocksdb": EmbeddedRocksDBStateBackend}
        return classes[backend_type]() if backend_type in classes else None

    def enable_changelog_state_backend(self, enabled: bool) -> "StreamExecutionEnvironment":
        """Recorded (``state.changelog.enabled``); it changes nothing: Spark's RocksDB state store
        writes its own changes to the checkpoint."""
        self._configuration.set_boolean("state.changelog.enabled", bool(enabled))
        return self

    def is_changelog_state_backend_enabled(self) -> bool | None:
        """What ``enable_changelog_state_backend`` recorded, or None when it was never called."""
        if not self._configuration.contains_key("state.changelog.enabled"):
            return None
        return self._configuration.get_boolean("state.changelog.enabled", False)

    def get_restart_strategy(self) -> RestartStrategyConfiguration:
        """The restart strategy the ``restart-strategy.*`` keys say (PyFlink 1.x); ``fall_back_restart()``
        when none is set: then Flink's default applies (see ``set_restart_strategy``)."""
        return restart_strategy_of(self._configuration)

    def set_restart_strategy(self, restart_strategy_configuration: RestartStrategyConfiguration
                             ) -> "StreamExecutionEnvironment":
        """How the job restarts after a failure, as in PyFlink 1.x: writes the ``restart-strategy.*``
        keys of PyFlink 2.x (``fall_back_restart()`` removes them: the default applies again)."""
        if not isinstance(restart_strategy_configuration, RestartStrategyConfiguration):
            raise TypeError(f"set_restart_strategy expects a RestartStrategies.* configuration, "
                            f"got {restart_strategy_configuration!r}")
        for key in list(self._configuration.key_set()):
            if key == "restart-strategy" or key.startswith("restart-strategy."):
                self._configuration.remove_config(key)
        for key, value in restart_strategy_configuration._options().items():
            self._configuration.set_string(key, value)
        return self

    def set_buffer_timeout(self, timeout_millis: int) -> "StreamExecutionEnvironment":
        """Accepted for compatibility: Spark moves data per micro-batch."""
        self._buffer_timeout = timeout_millis
        return self

    def get_buffer_timeout(self) -> int:
        return getattr(self, "_buffer_timeout", 100)

    def set_default_local_parallelism(self, parallelism: int) -> None:
        """The parallelism of the embedded local Spark (``local[n]``), when Kindling creates it."""
        self._configuration.set_string("spark.master", f"local[{int(parallelism)}]")

    def get_default_local_parallelism(self) -> int:
        master = self._configuration.get_string("spark.master", "")
        if master.startswith("local[") and master[6:-1].isdigit():
            return int(master[6:-1])
        return os.cpu_count() or 1

    def is_chaining_of_operators_with_different_max_parallelism_enabled(self) -> bool:
        return True

    def disable_operator_chaining(self) -> "StreamExecutionEnvironment":
        """Records that chaining is disabled (``pipeline.operator-chaining``). It changes no
        result and, in Kindling, no execution either: consecutive stateless operators always
        run fused in one Python pass per element."""
        self._configuration.set_boolean("pipeline.operator-chaining", False)
        return self

    def is_chaining_enabled(self) -> bool:
        return self._configuration.get_boolean("pipeline.operator-chaining", True)

    def set_stream_time_characteristic(self, characteristic: TimeCharacteristic) -> "StreamExecutionEnvironment":
        """Records the job's time characteristic (``pipeline.time-characteristic``), as PyFlink
        1.x did. As in Flink since 1.12 it has no effect: window assigners, timers and
        watermark strategies say which time they use."""
        if not isinstance(characteristic, TimeCharacteristic):
            raise TypeError(f"set_stream_time_characteristic expects a TimeCharacteristic, got {characteristic!r}")
        self._configuration.set_string("pipeline.time-characteristic", characteristic.name)
        return self

    def get_stream_time_characteristic(self) -> TimeCharacteristic:
        name = self._configuration.get_string("pipeline.time-characteristic", TimeCharacteristic.EventTime.name)
        try:
            return TimeCharacteristic[name]
        except KeyError:
            raise ValueError(f"pipeline.time-characteristic must be one of "
                             f"{[c.name for c in TimeCharacteristic]}, got {name!r}") from None

    def register_slot_sharing_group(self, slot_sharing_group: SlotSharingGroup) -> "StreamExecutionEnvironment":
        """Records a slot sharing group and its resources. Spark schedules tasks itself and has
        no slots, so the group does not change where operators run."""
        if not isinstance(slot_sharing_group, SlotSharingGroup):
            raise TypeError(f"register_slot_sharing_group expects a SlotSharingGroup, got {slot_sharing_group!r}")
        self._slot_sharing_groups[slot_sharing_group.get_name()] = slot_sharing_group
        return self

    # -- Python dependencies and jars: PyFlink's keys, shipped to Spark (kindling.spark.session) --
    def _append(self, key: str, *values: str) -> None:
        listed = [v for v in self._configuration.get_string(key, "").split(",") if v]
        self._configuration.set_string(key, ",".join(listed + [v for v in values if v not in listed]))

    def add_python_file(self, file_path: str) -> None:
        """Puts a Python file, zip/egg/whl or directory on the path of Spark's Python workers
        (``python.files``; a directory's modules and packages, as in PyFlink)."""
        self._append("python.files", os.path.abspath(file_path))

    def add_python_archive(self, archive_path: str, target_dir: str = None) -> None:
        """Ships an archive (zip, tar.gz, ...) that Spark extracts on every executor into
        ``target_dir`` (default: the archive's name) of the executors' working directory,
        where on a cluster a relative path such as ``venv/bin/python`` finds it; in any mode
        ``pyspark.SparkFiles.get(target_dir)`` names it (``python.archives``, Spark's
        ``spark.archives``)."""
        entry = archive_path if "://" in archive_path else os.path.abspath(archive_path)
        self._append("python.archives", f"{entry}#{target_dir}" if target_dir else entry)

    def set_python_requirements(self, requirements_file_path: str, requirements_cache_dir: str = None) -> None:
        """Third-party packages for the job: pip installs the requirements file (offline from
        ``requirements_cache_dir`` when given) when the job starts, and ships them to Spark's
        workers (``python.requirements``). Packages with compiled extensions are refused with
        the alternative: a packed environment (``add_python_archive`` + ``set_python_executable``)."""
        entry = os.path.abspath(requirements_file_path)
        if requirements_cache_dir:
            entry += "#" + os.path.abspath(requirements_cache_dir)
        self._configuration.set_string("python.requirements", entry)

    def set_python_executable(self, python_exec: str) -> None:
        """The Python interpreter of Spark's workers (``python.executable``, Spark's
        ``spark.pyspark.python``), e.g. ``venv/bin/python`` of an archive added with
        ``add_python_archive(..., "venv")``."""
        self._configuration.set_string("python.executable", python_exec)

    @unsupported(CACHED_FILES)
    def register_cached_file(self, file_path: str, name: str, executable: bool = False) -> None: ...

    def add_jars(self, *jars_path: str) -> None:
        """Jars for Spark's JVMs (``pipeline.jars``, Spark's ``spark.jars``), e.g. a Spark
        connector's; paths or ``file://`` URLs."""
        self._append("pipeline.jars", *jars_path)

    def add_classpaths(self, *classpaths: str) -> None:
        """As ``add_jars`` (``pipeline.classpaths``): Spark has one list of jars, ``spark.jars``."""
        self._append("pipeline.classpaths", *classpaths)

    def create_input(self, input_format, type_info=None) -> DataStream:
        """A bounded stream of the records an input format reads: ``AvroInputFormat(path, schema)``
        (Avro files as dicts), the one PyFlink offers in Python."""
        if getattr(input_format, "kind", None) != "avro" or not hasattr(input_format, "path"):
            raise TypeError(f"create_input reads an AvroInputFormat(path, schema); for other files use "
                            f"from_source(FileSource...), got {input_format!r}")
        return self._source(FileSourceSpec(paths=[input_format.path], format=input_format), "Avro Input Format",
                            type_info or input_format.get_produced_type())

    def set_default_savepoint_directory(self, directory: str) -> "StreamExecutionEnvironment":
        """Where ``JobClient.trigger_savepoint()`` and ``stop_with_savepoint()`` write savepoints
        when given no directory (``execution.checkpointing.savepoint-dir``)."""
        self._configuration.set_string("execution.checkpointing.savepoint-dir", str(directory))
        return self

    def get_default_savepoint_directory(self) -> str | None:
        """The directory :meth:`set_default_savepoint_directory` set, or None."""
        return self._configuration.get_string("execution.checkpointing.savepoint-dir", "") or None

    # -- sources ------------------------------------------------------------------------
    def _source(self, spec: Any, name: str, type_info: TypeInformation | None) -> DataStream:
        spec.check()
        node = SourceTransformation(name=name, type_info=type_info, source=spec)
        return DataStream(self, node)

    def from_collection(self, collection: Iterable[Any], type_info: TypeInformation = None) -> DataStream:
        """A bounded stream of the collection's elements, in order."""
        if isinstance(collection, (str, bytes)) or not hasattr(collection, "__iter__"):
            raise TypeError(f"from_collection expects a list or other collection, got {type(collection).__name__}")
        if type_info is not None and not isinstance(type_info, TypeInformation):
            raise TypeError(f"type_info must be a TypeInformation such as Types.INT(), got {type_info!r}")
        values = list(collection)
        check_picklable(values, "collection", "Collection Source")
        return self._source(CollectionSourceSpec(values=values), "Collection Source", type_info)

    def from_elements(self, *elements: Any) -> DataStream:
        """A bounded stream of the given elements."""
        return self.from_collection(list(elements))

    def generate_sequence(self, frm: int, to: int) -> DataStream:
        """A bounded stream of the longs from ``frm`` to ``to``, both inclusive."""
        if not isinstance(frm, int) or not isinstance(to, int) or frm > to:
            raise ValueError(f"generate_sequence needs ints frm <= to, got {frm!r}, {to!r}")
        return self._source(SequenceSourceSpec(start=frm, end=to), "Sequence Source", Types.LONG())

    def read_text_file(self, file_path: str, charset_name: str = "UTF-8") -> DataStream:
        """A bounded stream of the lines of a text file (or the files of a directory)."""
        from kindling.datastream.connectors.file_system import StreamFormat

        return self._source(FileSourceSpec(paths=[file_path], format=StreamFormat.text_line_format(charset_name)),
                            "Read Text File", Types.STRING())

    def socket_text_stream(self, hostname: str, port: int, delimiter: str = "\n", max_retry: int = 0) -> DataStream:
        """An unbounded stream of the lines (split at ``delimiter``) a TCP server at ``hostname:port``
        sends, for demos (Flink's ``socketTextStream``; PyFlink 2.3 lacks it): ``nc -lk 9999`` and type.
        When the connection closes the source reconnects up to ``max_retry`` times (negative: for
        ever), then ends. Not replayable: lines not yet processed when the job stops are lost."""
        from kindling.graph.specs import SocketTextSourceSpec

        if not isinstance(hostname, str) or not hostname or isinstance(port, bool) or not isinstance(port, int) \
                or not 0 < port < 65536:
            raise ValueError(f"socket_text_stream needs a host name and a port (1-65535), got {hostname!r}, {port!r}")
        if not isinstance(delimiter, str) or not delimiter:
            raise ValueError(f"socket_text_stream needs a non-empty delimiter, got {delimiter!r}")
        if isinstance(max_retry, bool) or not isinstance(max_retry, int):
            raise ValueError(f"max_retry must be an int (negative: retry for ever), got {max_retry!r}")
        return self._source(SocketTextSourceSpec(hostname=hostname, port=port, delimiter=delimiter,
                                                 max_retry=max_retry), "Socket Stream", Types.STRING())

    def from_source(self, source: Any, watermark_strategy: Any, source_name: str,
                    type_info: TypeInformation = None) -> DataStream:
        """A stream read from a ``Source`` (NumberSequenceSource, FileSource, ...), with event
        timestamps and watermarks from ``watermark_strategy``."""
        from kindling.common.watermark_strategy import WatermarkStrategy

        spec = getattr(source, "_spec", None)
        if spec is None:
            raise TypeError(f"from_source expects a Source such as NumberSequenceSource or FileSource, got {source!r}")
        if not isinstance(watermark_strategy, WatermarkStrategy):
            raise TypeError(f"from_source expects a WatermarkStrategy, got {watermark_strategy!r}; "
                            "use WatermarkStrategy.no_watermarks() when there is no event time")
        stream = self._source(spec, source_name, type_info or getattr(source, "_type_info", None))
        if watermark_strategy.kind == "none" and watermark_strategy.timestamp_assigner is None:
            return stream
        check_picklable(watermark_strategy, "watermark strategy", source_name)
        node = ChainedTransformation(name=f"{source_name}: Timestamps/Watermarks", inputs=[stream._transformation],
                                     type_info=stream._transformation.type_info, operation="timestamps",
                                     function=watermark_strategy)
        return DataStream(self, node)

    def add_source(self, source_func: Any, source_name: str = "Custom Source", type_info=None) -> DataStream:
        """A stream from a legacy source function: Kindling has those PyFlink ships in Python
        (``FlinkKafkaConsumer``); any other SourceFunction wraps a Java one."""
        source = getattr(source_func, "_source", None)  # the legacy connectors' Source (kafka.py)
        if not callable(source):
            from kindling.common.unsupported import UnsupportedError

            raise UnsupportedError("StreamExecutionEnvironment.add_source is not supported by Kindling yet: a "
                                   f"SourceFunction wraps a Java source function: {JVM_ONLY}; use from_source(...) "
                                   "with a Source, FlinkKafkaConsumer, or from_collection(...)")
        from kindling.common.watermark_strategy import WatermarkStrategy

        return self.from_source(source(), WatermarkStrategy.no_watermarks(), source_name, type_info)

    # -- execution ----------------------------------------------------------------------
    def _add_sink(self, sink: SinkTransformation) -> None:
        self._sinks.append(sink)

    def _take_sinks(self) -> list[SinkTransformation]:
        if not self._sinks:
            raise RuntimeError("No operators defined in streaming topology. Cannot execute: add a sink "
                               "such as print(), sink_to(...) or add_sink(...) before execute()")
        sinks, self._sinks = self._sinks, []
        return sinks

    def get_execution_plan(self) -> str:
        """The job graph as Flink's JSON execution plan (``kindling.graph.plan``)."""
        from kindling.graph.plan import execution_plan_json

        return execution_plan_json(self._sinks, self.get_parallelism())

    def execute(self, job_name: str = None):
        """Runs the job on Spark and waits until it finishes (bounded jobs finish by themselves)."""
        return self.execute_async(job_name).get_job_execution_result().result()

    def execute_async(self, job_name: str = None):
        """Starts the job on Spark and returns a JobClient to watch or cancel it."""
        from kindling.spark.runner import start_job

        return start_job(self, self._take_sinks(), job_name or "Flink Streaming Job")

    def _run_mode(self, sources: list, eager_watermarks: bool) -> str:
        """How a job reading ``sources`` (source specs) runs: the runner's rule (kindling/spark/runner.py
        ``run_mode``), which the Table planner follows so that explain tells what runs."""
        from kindling.spark.runner import run_mode

        return run_mode(self, sources, eager_watermarks)

    def _rows_may_be_late(self, checks: list) -> bool:
        """Whether a row of a bounded table may be late for a window (kindling/spark/runner.py
        ``rows_may_be_late``; the Table planner asks it before it lets Spark compute windows)."""
        from kindling.spark.runner import rows_may_be_late

        return rows_may_be_late(self, checks)

    def close(self) -> None:
        self._sinks = []
