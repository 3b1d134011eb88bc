"""The job runner: compiles a job, runs it on Spark in a background thread, reports
progress, translates failures, and hands back a JobClient.

STREAMING mode runs one Structured Streaming query whose ``foreachBatch`` feeds every sink
(bounded jobs use the ``availableNow`` trigger and finish by themselves); BATCH mode runs
the same plan as Spark batch jobs.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import traceback
from typing import Any

from kindling.common.completable_future import CompletableFuture
from kindling.common.configuration import map_value
from kindling.common.job_client import JobClient
from kindling.common.job_execution_result import JobExecutionResult
from kindling.common.job_id import JobID
from kindling.common.job_status import JobStatus
from kindling.common.read_limits import ReadLimits
from kindling.common.restart_strategy import RestartBackoff
from kindling.datastream.execution_mode import RuntimeExecutionMode
from kindling.runtime import lifecycle
from kindling.runtime.errors import UserFunctionError, user_error_of
from kindling.spark.compiler import CompiledJob, Compiler, TimeSettings
from kindling.spark.connectors import writer_for
from kindling.spark.metrics import metric_results
from kindling.spark.run_mode import RunMode
from kindling.spark.table.aggregation import split_aggregations
from kindling.spark.table.join import split_joins
from kindling.spark.savepoints import SAVEPOINT_PATH, JobSavepoints, SavepointError
from kindling.spark.session import (HEAP_STATE_STORE, STATE_STORE_PROVIDER, get_spark, job_failed, on_exit,
                                    scratch_dir, timing, timing_enabled)


class JobExecutionError(RuntimeError):
    """The job failed in Spark for a reason other than a user function."""


class JobCancelledError(RuntimeError):
    """The job was cancelled before it finished."""


# the message of a raise_error() in a column Kindling built, without Spark's SQLSTATE suffix
_KINDLING_RAISED = re.compile(r"\[USER_RAISED_EXCEPTION\] (.*?)(?: SQLSTATE: \w+)?$", re.MULTILINE)
# the exception line that ends a Python traceback (after its indented frames)
_PYTHON_RAISED = re.compile(r"Traceback \(most recent call last\):\n(?:[ \t].*\n)+(\S.*)")


def translate_failure(exc: BaseException, first: BaseException | None, secret: bytes) -> BaseException:
    """The exception a user should see for a Spark failure: their own function's error
    naming the operator when it is one, else a short description without the JVM stack.
    ``first`` is the failure a micro-batch raised before the query ended (the original, where
    the query's may only say that it stopped); a user function's error wins wherever it shows:
    raised in this process, or sent by a task under the job's ``secret`` (kindling.runtime.errors)."""
    for failure in (first, exc):
        if failure is not None:
            user_error = _user_error(failure, secret)
            if user_error is not None:
                return user_error
    if first is not None and not isinstance(exc, (JobCancelledError, UserFunctionError, JobExecutionError)):
        exc = first
    if isinstance(exc, (JobCancelledError, UserFunctionError, JobExecutionError, SavepointError)):
        return exc
    text = str(exc)
    checked = _KINDLING_RAISED.search(text)
    if checked:  # a check of Kindling's own Spark columns (F.raise_error): its message is the whole story
        return JobExecutionError(f"job failed in Spark: {checked.group(1)}")
    raised = _PYTHON_RAISED.findall(text)  # what a Python worker raised (Spark's class only says that it raised)
    causes = re.findall(r"^Caused by: [\w.$]+: (\[[A-Z_.]+\].*)$", text, re.MULTILINE)  # Spark's error classes
    line = raised[-1] if raised else causes[-1] if causes else \
        text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return JobExecutionError(f"job failed in Spark: {line}\n{text[:4000]}")


def _user_error(exc: BaseException, secret: bytes) -> UserFunctionError | None:
    """The user function's error in ``exc`` or its causes: one raised in this process, else one a
    task encoded under ``secret`` in the text of ``exc``, its Python causes or its JVM causes (a
    task's Python traceback may sit in a cause only)."""
    parts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if (raised_here := user_error_of(exc)) is not None:
            return raised_here
        parts.append(str(exc))
        java = getattr(exc, "_origin", None) or getattr(exc, "java_exception", None)
        for _ in range(20):
            if java is None:
                break
            try:
                parts.append(str(java.toString()))
                java = java.getCause()
            except Exception:  # the JVM is gone, or not a Java object
                break
        exc = exc.__cause__ or exc.__context__
    return UserFunctionError.decode("\n".join(parts), secret)


class SparkJobClient(JobClient):
    """Watches and controls one running job."""

    def __init__(self, job_id: JobID, job_name: str):
        self._job_id = job_id
        self.job_name = job_name
        self._status = JobStatus.CREATED
        self._result = CompletableFuture()
        self._cancel_requested = threading.Event()
        self._query = None
        self._spark = None
        self._run: _JobRun | None = None  # for savepoints
        self.restarts: list[str] = []  # the cause of each restart of the job, in order

    def get_job_id(self) -> JobID:
        return self._job_id

    def get_job_status(self) -> CompletableFuture:
        return CompletableFuture.completed(self._status)

    def cancel(self) -> CompletableFuture:
        """Stops the job: the streaming query is stopped, batch jobs are cancelled."""
        self._cancel_requested.set()
        if self._status in (JobStatus.CREATED, JobStatus.RUNNING):
            self._status = JobStatus.CANCELLING
        query = self._query
        if query is not None:
            try:
                query.stop()
            except Exception:
                pass
        elif self._spark is not None:
            self._spark.sparkContext.cancelJobGroup(self._job_id.to_hex_string())
        done = CompletableFuture()
        threading.Thread(target=self._await_end, args=(done,), daemon=True).start()
        return done

    def _await_end(self, done: CompletableFuture) -> None:
        try:
            self._result._future.exception()
        finally:
            done.complete(None)

    def get_accumulators(self) -> CompletableFuture:
        """While the job runs: ``numRestarts``, how often it has restarted so far (the causes
        are in ``restarts``)."""
        return CompletableFuture.completed({"numRestarts": len(self.restarts)})

    def get_job_execution_result(self) -> CompletableFuture:
        return self._result

    # -- savepoints (kindling/spark/savepoints.py) ------------------------------------------------
    def trigger_savepoint(self, savepoint_directory: str | None = None) -> CompletableFuture:
        """Copies the job's checkpoint as of its last committed micro-batch into a new directory
        under ``savepoint_directory`` (else ``execution.checkpointing.savepoint-dir``)."""
        return self._savepoint(savepoint_directory, stop=False)

    def stop_with_savepoint(self, advance_to_end_of_event_time: bool = False,
                            savepoint_directory: str | None = None) -> CompletableFuture:
        """Takes a savepoint and stops the job before its next micro-batch; the job finishes.
        ``advance_to_end_of_event_time`` (Flink's drain, firing every timer first) is not supported."""
        if advance_to_end_of_event_time:
            raise NotImplementedError("stop_with_savepoint(advance_to_end_of_event_time=True) is not supported: "
                                      "Kindling stops after the last committed micro-batch without draining; "
                                      "pass False")
        return self._savepoint(savepoint_directory, stop=True)

    def _savepoint(self, directory: str | None, stop: bool) -> CompletableFuture:
        run = self._run
        future = CompletableFuture()
        if run is None or self._status != JobStatus.RUNNING:
            future.complete_exceptionally(RuntimeError(f"job '{self.job_name}' is not running ({self._status.name})"))
            return future

        def take() -> None:
            try:
                path = run.savepoints.take(run.checkpoint_dir, directory, stop)
                if stop and not run.savepoints.running and self._query is not None:
                    self._query.stop()  # idle between micro-batches: no batch would notice the stop
                future.complete(path)
            except BaseException as exc:
                future.complete_exceptionally(exc)

        threading.Thread(target=take, name=f"kindling-savepoint-{self.job_name}", daemon=True).start()
        return future


_running: set["_JobRun"] = set()
_SLOW_WORKER_RESTARTS = 2  # restarts after a Python worker's slow start that no restart strategy counts


def _stop_running_jobs() -> None:
    """At interpreter exit: jobs still running (``execute_async``, an unfinished collect) are
    cancelled, so that their temporary checkpoints are removed and Spark stops cleanly."""
    runs = list(_running)
    for run in runs:
        with contextlib.suppress(Exception):  # Spark may be gone already (Ctrl-C reaches the JVM too)
            run.client.cancel()
    deadline = time.time() + 30
    for run in runs:
        run.thread.join(max(deadline - time.time(), 0))


on_exit(_stop_running_jobs)


class _JobRun:
    """The body of one job, run in its own thread. A job without a configured checkpoint
    location gets a temporary one in this run's directory, removed when the job ends however it
    ends (finished, failed, cancelled, or still running at interpreter exit)."""

    def __init__(self, env, compiled: CompiledJob, client: SparkJobClient, spark, progress: bool,
                 checkpoint_dir: str, temporary_checkpoint: bool, trigger_interval_ms: int,
                 restart_backoff: RestartBackoff | None = None):
        self.env = env
        self.compiled = compiled
        self.client = client
        self.spark = spark
        self.progress = progress
        self.checkpoint_dir = checkpoint_dir
        self.temporary_checkpoint = temporary_checkpoint
        self.trigger_interval_ms = trigger_interval_ms
        checkpoint_config = env.get_checkpoint_config()
        self.restart_backoff = restart_backoff or RestartBackoff(env.get_configuration(), False)
        self.min_pause_s = checkpoint_config.get_min_pause_between_checkpoints() / 1000
        retention = checkpoint_config.get_externalized_checkpoint_retention()
        self.delete_on_cancel = retention.name == "DELETE_ON_CANCELLATION"  # a cancelled job's configured directory
        self.batch_ended: float | None = None  # when the last micro-batch finished (for the minimum pause)
        self.writers = [(s, writer_for(s.node.sink, Compiler)) for s in compiled.sinks]
        self.counts = {s.node.name: 0 for s in compiled.sinks}
        self.started = time.time()
        self.progress_after_s = env.get_configuration().get_integer("kindling.progress.after-ms", 3000) / 1000
        self.late_rows_dropped = 0
        self.batch_failure: BaseException | None = None  # the first exception a micro-batch raised
        self.error_secret = os.urandom(32)  # authenticates the errors the job's tasks send (kindling.runtime.errors)
        self.thread = threading.Thread(target=self.run, name=f"kindling-job-{client.job_name}", daemon=True)

    def start(self) -> None:
        _running.add(self)
        self.thread.start()

    def write_batch(self, df, batch_id: int) -> None:
        timing(f"batch {batch_id}: planned")
        self.savepoints.at_batch_start()  # waits while a savepoint is copied; raises once stopped with one
        if self.batch_ended is not None and self.min_pause_s:  # execution.checkpointing.min-pause
            time.sleep(max(0.0, self.batch_ended + self.min_pause_s - time.time()))
        # read by several sinks, or on the driver a partition at a time: computed once, every partition at once
        # (a micro-batch of one partition read by one sink on the driver is computed by its one reading job)
        kept = len(self.writers) > 1 or (any(writer.on_driver for _, writer in self.writers)
                                         and not (self.compiled.streaming and _partitions(df) == 1))
        if kept:
            df = df.persist()
        try:
            if kept and any(writer.on_driver for _, writer in self.writers):
                df.count()
            for sink, writer in self.writers:
                self.counts[sink.node.name] = self.counts.get(sink.node.name, 0) + writer.write(sink.select(df), batch_id)
        except BaseException as exc:
            # Spark reports this micro-batch's failure as the query's only after stopping it, and
            # may then report the stop instead: the job's error is taken from here first.
            if self.batch_failure is None:
                self.batch_failure = exc
            raise
        finally:
            if kept:
                df.unpersist()
        self.compiled.after_batch(batch_id)  # event time: hands the watermark back to the sources
        self.savepoints.running = False
        self.batch_ended = time.time()
        timing(f"batch {batch_id}: written")

    def run(self) -> None:
        client = self.client
        client._status = JobStatus.RUNNING
        job = client._job_id.to_hex_string()
        result = error = None
        try:
            # tells the job's tasks its error secret and which earlier jobs' functions to close
            lifecycle.start_job(self.spark, self.error_secret, scratch_dir())
            if self.compiled.streaming:
                if self.temporary_checkpoint:
                    self.checkpoint_dir = tempfile.mkdtemp(prefix="checkpoint-", dir=scratch_dir())
                self.run_streaming()
            else:
                self.spark.sparkContext.setJobGroup(client._job_id.to_hex_string(), client.job_name, True)
                self.write_batch(self.compiled.df, 0)
            if client._cancel_requested.is_set():
                raise JobCancelledError(f"job '{client.job_name}' was cancelled")
            if self.compiled.bounded and not self.savepoints.stopped:
                for _, writer in self.writers:
                    writer.end_of_input()
            lifecycle.finish_job(job)  # close() of every user function; an error fails the job, as in Flink
            client._status = JobStatus.FINISHED
            runtime = int((time.time() - self.started) * 1000)
            accumulators = {f"records-written:{k}": v for k, v in self.counts.items()}
            accumulators["late-rows-dropped-by-spark"] = self.late_rows_dropped
            accumulators["numRestarts"] = len(client.restarts)
            accumulators.update(metric_results(self.compiled.metrics))
            for name, counter in self.compiled.late_records.items():
                accumulators[f"numLateRecordsDropped:{name}"] = counter.value
                if counter.value:
                    print(f"[kindling] {client.job_name}: operator '{name}' dropped {counter.value} late elements "
                          "(side_output_late_data(tag) keeps them)", file=sys.stderr, flush=True)
            if self.late_rows_dropped:
                print(f"[kindling] {client.job_name}: Spark dropped {self.late_rows_dropped} rows as later than "
                      "the watermark", file=sys.stderr, flush=True)
            result = JobExecutionResult(client._job_id, runtime, accumulators)
        except BaseException as exc:
            cancelled = client._cancel_requested.is_set()
            client._status = JobStatus.CANCELED if cancelled else JobStatus.FAILED
            error = (JobCancelledError(f"job '{client.job_name}' was cancelled") if cancelled
                     else translate_failure(exc, self.batch_failure, self.error_secret))
            lifecycle.abort_job(job)  # close() of every user function; errors on stderr
            if not cancelled:
                log = job_failed()
                if log and self.progress:
                    print(f"[kindling] {client.job_name} failed; Spark's log: {log}", file=sys.stderr, flush=True)
        finally:
            try:
                self.release()
            finally:  # last, so that whoever waits for the job finds its temporary state gone
                if error is None:
                    client._result.complete(result)
                else:
                    client._result.complete_exceptionally(error)

    def release(self) -> None:
        """Finishes the sinks and removes what the job created for itself."""
        for _, writer in self.writers:
            try:
                writer.finish()
            except Exception:
                traceback.print_exc()
        if self.checkpoint_dir and (self.temporary_checkpoint or (
                self.delete_on_cancel and self.client._cancel_requested.is_set())):
            shutil.rmtree(self.checkpoint_dir, ignore_errors=True)
        self.compiled.close()  # event time: removes the watermark hand-off file
        # The query's foreachBatch holds this run (write_batch) through py4j's callback proxy, which the
        # JVM frees with the query, which py4j keeps while Python holds it here: neither side's collector
        # can free that cycle, and every streaming job's query and plans stayed in the driver's heap.
        self.client._query = None
        _running.discard(self)
        timing(f"job '{self.client.job_name}' ended")

    def run_streaming(self) -> None:
        compiled = self.compiled
        writer = compiled.df.writeStream.foreachBatch(self.write_batch).queryName(
            f"kindling-{self.client._job_id.to_hex_string()[:12]}")
        writer = writer.option("checkpointLocation", self.checkpoint_dir)
        if compiled.bounded:
            writer = writer.trigger(availableNow=True)
        else:
            writer = writer.trigger(processingTime=f"{max(self.trigger_interval_ms, 0)} milliseconds")
        slow_worker_restarts = 0
        self.savepoints.restore_into(self.checkpoint_dir)  # execution.savepoint.path, once, before the first query
        for _, sink_writer in self.writers:
            if hasattr(sink_writer, "bind"):
                sink_writer.bind(self.checkpoint_dir)  # state kept beside the query's (kindling/spark/table/aggregation.py)
        while True:
            if self.client._cancel_requested.is_set():
                return
            self.batch_failure = None  # an earlier attempt's is not this one's
            query = _started(writer, self.spark, _state_store(self.env, compiled))
            timing("query started")
            self.client._query = query
            if self.client._cancel_requested.is_set():  # cancel() came before the query was known
                query.stop()
            reported = -1
            while not _terminated(query):
                reported = self.report(query, reported)
            self.progress_after_s = 0 if time.time() - self.started >= self.progress_after_s else float("inf")
            self.report(query, reported)
            timing("query ended")
            _print_batch_timings(query)
            failure = query.exception()
            if failure is None or self.client._cancel_requested.is_set() or self.savepoints.stopped:
                return
            if self.worker_start_timed_out(query, failure) and slow_worker_restarts < _SLOW_WORKER_RESTARTS:
                slow_worker_restarts += 1  # Spark's fixed 10 s for a worker to start: not the job's failure
                delay_ms = 0
                cause = "a Python worker of Spark's did not connect back within Spark's 10 s (busy machine)"
            else:
                delay_ms = self.restart_backoff.on_failure(int(time.time() * 1000))
                if delay_ms is None:
                    if self.client.restarts:
                        print(f"[kindling] {self.client.job_name}: restart strategy exhausted after "
                              f"{len(self.client.restarts)} restarts ({self.restart_backoff.description()})",
                              file=sys.stderr, flush=True)
                    raise failure
                cause = _first_line(translate_failure(failure, self.batch_failure, self.error_secret))
            self.client.restarts.append(cause)
            print(f"[kindling] {self.client.job_name}: restart {len(self.client.restarts)} from the last checkpoint "
                  f"in {delay_ms} ms; cause: {cause}", file=sys.stderr, flush=True)
            if self.client._cancel_requested.wait(delay_ms / 1000):
                return

    def worker_start_timed_out(self, query, failure: BaseException) -> bool:
        """Whether the query failed only because a Python worker started too slowly for Spark's
        fixed 10 s time-out, before any batch finished or any sink wrote: then running it
        again from its checkpoint repeats nothing."""
        return ("connect back" in str(failure) and not query.recentProgress
                and not any(self.counts.values()))

    def report(self, query, reported: int) -> int:
        """Prints a line per finished micro-batch (once the job has run a few seconds) and
        counts the rows Spark dropped as late; returns the last batch id seen."""
        show = self.progress and time.time() - self.started >= self.progress_after_s
        for progress in query.recentProgress:
            if progress.batchId <= reported:
                continue
            self.late_rows_dropped += sum(op.numRowsDroppedByWatermark for op in progress.stateOperators)
            if show:
                rate = progress.processedRowsPerSecond or 0.0
                print(f"[kindling] {self.client.job_name}: batch {progress.batchId}, {progress.numInputRows} input rows, "
                      f"{rate:.0f} rows/s", file=sys.stderr, flush=True)
            reported = progress.batchId
        return reported


_starting = threading.Lock()  # a query's state store is the session's setting while it starts


def _state_store(env, compiled: CompiledJob) -> str | None:
    """The state store of a query whose only stateful operators are Spark's stream-stream joins, when
    the job's state backend is Flink's default ``hashmap``: the JVM heap's, as Flink keeps such a
    backend's state (and faster than RocksDB for the join's rows); None: the session's RocksDB store
    (keyed operators' transformWithState needs it; ``state.backend.type: rocksdb`` asks for it)."""
    if not compiled.joins_in_query or compiled.keyed_in_query:
        return None
    rocksdb = env.get_configuration().get_string("state.backend.type", "hashmap").strip().lower() == "rocksdb"
    return None if rocksdb else HEAP_STATE_STORE


def _started(writer, spark, state_store: str | None):
    """``writer``'s query, started with ``state_store`` as its state store provider (None: the session's).
    The query keeps the setting it started with (Spark copies the session's configuration into the
    query at its start, and into its checkpoint at its first batch), so it is the session's only then."""
    with _starting:
        if state_store is None:
            return writer.start()
        before = spark.conf.get(STATE_STORE_PROVIDER)
        spark.conf.set(STATE_STORE_PROVIDER, state_store)
        try:
            return writer.start()
        finally:
            spark.conf.set(STATE_STORE_PROVIDER, before)


def _partitions(df) -> int:
    """How many partitions a micro-batch's frame has. foreachBatch hands over the query's planned
    RDD of the batch as a LogicalRDD: its partitions are read there, without planning the frame
    again (which took 20-150 ms a micro-batch)."""
    execution = df._jdf.queryExecution()
    plan = execution.logical()
    if plan.getClass().getSimpleName() == "LogicalRDD":
        return plan.rdd().getNumPartitions()
    return execution.toRdd().getNumPartitions()


def _first_line(error: BaseException) -> str:
    """The first line of an error's message that says something (a user function's error names
    its operator and then the exception raised)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    if lines[0].startswith("operator '") and len(lines) > 1:
        return f"{lines[0]} {lines[-1]}"
    return lines[0]


def _terminated(query) -> bool:
    """Waits half a second for ``query`` to end; its failure, if any, is read with ``exception()``."""
    from pyspark.errors import StreamingQueryException

    try:
        return query.awaitTermination(0.5)
    except StreamingQueryException:
        return True


def _print_batch_timings(query) -> None:
    """With KINDLING_TIMING set: where each micro-batch's time went, as Spark measured it."""
    if not timing_enabled():
        return
    for progress in query.recentProgress:
        parts = ", ".join(f"{k} {v}" for k, v in sorted(progress.durationMs.items()) if k != "triggerExecution")
        timing(f"batch {progress.batchId}: {progress.numInputRows} rows, "
               f"{progress.durationMs.get('triggerExecution', 0)} ms ({parts})")


def start_job(env, sinks: list, job_name: str) -> SparkJobClient:
    """Compiles and starts a job; the returned client's result completes when it ends."""
    configuration = env.get_configuration()
    spark = get_spark(configuration, env._parallelism)
    mode = run_mode(env, _sources(sinks), _eager_watermarks(sinks))
    job_id = JobID()
    job_parameters = {**map_value(configuration, "pipeline.global-job-parameters"),
                      **(env.get_config().get_global_job_parameters() or {})}
    if mode is RunMode.BATCH:
        job_parameters["inBatchExecutionMode"] = "true"  # keyed reduce/aggregations emit final values only
    time_settings = TimeSettings.of(env)
    sinks = split_aggregations(sinks, mode, env.get_parallelism(), job_parameters, job_id.to_hex_string(),
                               env.get_max_parallelism())
    sinks = split_joins(sinks, mode, env.get_parallelism(), job_parameters, job_id.to_hex_string(),
                        env.get_max_parallelism())
    compiler = Compiler(spark, sinks, mode, env.get_parallelism(), job_parameters, job_id.to_hex_string(),
                        time_settings, max_parallelism=env.get_max_parallelism())
    limits = ReadLimits.of(configuration, env.get_checkpoint_interval())
    compiler.source_batch_records, compiler.source_batch_files = limits.records, limits.files
    compiled = compiler.compile()
    timing("job compiled")
    client = SparkJobClient(job_id, job_name)
    client._spark = spark
    # A configured checkpoint directory survives the job, so that a restarted job resumes from it.
    checkpoint_config = env.get_checkpoint_config()
    checkpoint_root = checkpoint_config._directory()
    restart_backoff = RestartBackoff(configuration, checkpoint_config.is_checkpointing_enabled())
    checkpoint_dir = ""
    if checkpoint_root:
        checkpoint_dir = os.path.join(checkpoint_root, "".join(c if c.isalnum() or c in "-_" else "_" for c in job_name))
    run = _JobRun(env, compiled, client, spark, configuration.get_boolean("kindling.progress", True),
                  checkpoint_dir, not checkpoint_root, max(env.get_checkpoint_interval(), 0), restart_backoff)
    run.savepoints = JobSavepoints(configuration, compiler, compiled, job_id.to_hex_string())
    client._run = run
    run.start()
    return client


ONE_STEP_MAX_ELEMENTS = "kindling.bounded.one-step.max-elements"


def run_mode(env, sources: list, eager_watermarks: bool) -> RunMode:
    """How a job reading ``sources`` (source specs) runs: ``BATCH`` in BATCH mode (or AUTOMATIC
    with bounded sources only), else ``ONE_STEP`` when its sources are bounded,
    :func:`runs_in_one_step` allows it and no Flink SQL watermark (``eager_watermarks``) is in the
    job (its input does not all precede the first watermark, as one step assumes), else
    ``MICRO_BATCH``. The Table planner asks this too (kindling/table/planner/physical.py), so
    that what it plans for is what runs."""
    mode = env.get_runtime_mode()
    all_bounded = all(getattr(s, "bounded", True) for s in sources)
    streaming = mode == RuntimeExecutionMode.STREAMING or (mode == RuntimeExecutionMode.AUTOMATIC and not all_bounded)
    if not streaming and not all_bounded:
        raise ValueError("BATCH runtime mode needs bounded sources; an unbounded source (e.g. a FileSource with "
                         "monitor_continuously) needs RuntimeExecutionMode.STREAMING")
    if not streaming:
        return RunMode.BATCH
    # broadcast state needs the micro-batch path's control keys (kindling/spark/broadcast.py)
    one_step = all_bounded and runs_in_one_step(env, TimeSettings.of(env), sources) and not eager_watermarks
    return RunMode.ONE_STEP if one_step else RunMode.MICRO_BATCH


def rows_may_be_late(env, checks: list) -> bool:
    """Whether, for one of ``checks`` (the arguments of kindling/spark/table/scans.py ``rows_may_be_late``
    after the session), a row of the files may be late for its window."""
    from concurrent.futures import ThreadPoolExecutor

    from kindling.spark.session import existing_spark, is_local, spark_master, with_submitted_keys
    from kindling.spark.table.scans import driver_file_times
    from kindling.spark.table.scans import rows_may_be_late as may_be_late

    configuration = env.get_configuration()
    if existing_spark() is not None or \
            not is_local(spark_master(with_submitted_keys(configuration.to_dict()))):
        spark = get_spark(configuration, env._parallelism)
        return any(may_be_late(spark, *check) for check in checks)
    def read_files() -> list:
        figures = [driver_file_times(*check) for check in checks]
        timing("lateness check: files read")
        return figures

    with ThreadPoolExecutor(1, thread_name_prefix="kindling-lateness") as pool:  # read while the session starts
        read = pool.submit(read_files)
        spark = get_spark(configuration, env._parallelism)
        fast = read.result()
    late = any(may_be_late(spark, *check, fast=figures) for check, figures in zip(checks, fast))
    timing("lateness check done")
    return late


def runs_in_one_step(env, time_settings: TimeSettings, sources: list) -> bool:
    """Whether a bounded STREAMING job runs as one Spark batch job (``kindling/spark/one_step.py``):
    unless checkpointing, a restart strategy or a savepoint to start from is configured (the job
    must be resumable from Spark's checkpoint), watermarks follow every element (``kindling.watermark.per-element``), the input is known to
    be larger than ``kindling.bounded.one-step.max-elements`` (default 2,000,000; a parallel
    instance holds its whole input in memory; a bounded Kafka read cannot tell its size and
    runs in one step), or ``kindling.bounded.one-step`` is false (the micro-batch path, for
    comparison)."""
    configuration = env.get_configuration()
    checkpointing = env.get_checkpoint_interval() > 0 or env.get_checkpoint_config()._directory()
    checkpointing = checkpointing or configuration.get_string(SAVEPOINT_PATH, "")  # restored into a checkpoint
    restarts = RestartBackoff(configuration, False).type != "none"  # a restart resumes a query's checkpoint
    size = _estimated_elements(sources)
    return (configuration.get_boolean("kindling.bounded.one-step", True) and not checkpointing and not restarts
            and not time_settings.per_element
            and (size is None or size <= configuration.get_integer(ONE_STEP_MAX_ELEMENTS, 2_000_000)))


def _estimated_elements(sources: list) -> int | None:
    """About how many elements the bounded ``sources`` hold (text files: a line per 32 bytes);
    None when a source cannot tell (Kafka)."""
    from kindling.graph.specs import CollectionSourceSpec, FileSourceSpec, RelationalSourceSpec, SequenceSourceSpec
    from kindling.spark.files import estimated_elements

    total = 0
    for spec in sources:
        if isinstance(spec, RelationalSourceSpec):  # a table's plan: the sources its scans read
            bases = _estimated_elements(spec.bases)
            if bases is None:
                return None
            total += bases
        elif isinstance(spec, CollectionSourceSpec):
            total += len(spec.values)
        elif isinstance(spec, SequenceSourceSpec):
            total += max(0, spec.end - spec.start + 1)
        elif isinstance(spec, FileSourceSpec):
            total += estimated_elements(spec)
        else:
            return None
    return total


def _eager_watermarks(sinks: list) -> bool:
    """Whether a Flink SQL watermark (``eager``: emitted as elements move it, kindling/runtime/watermarks.py)
    is in the job: then its input does not all precede the first watermark, as one step assumes."""
    from kindling.graph.transformation import upstream_graph

    return any(getattr(n, "operation", None) == "timestamps" and getattr(n.function, "eager", False)
               for n in upstream_graph(sinks))


def _sources(sinks: list) -> list[Any]:
    from kindling.graph.transformation import SourceTransformation, upstream_graph

    return [n.source for n in upstream_graph(sinks) if isinstance(n, SourceTransformation)]
