"""Savepoints: a consistent copy of a running job's Spark checkpoint, its keyed state addressed by
the operators' ``uid()``, and the restore of such a copy into a new job.

Spark numbers the stateful operators of a query by their position in its plan and keeps their
state under ``state/<operatorId>/``; a Kindling job's stateful operators are its keyed operators
(one ``transformWithState`` each). A savepoint is the checkpoint as of its last committed
micro-batch (offsets and state of batches not yet committed left out), plus a manifest
``_kindling_savepoint.json`` naming each operator's state by its uid (``uid()``, or an id
generated from the operator's name and what is upstream of it). A job started with
``execution.savepoint.path`` gets a fresh checkpoint made from the savepoint: every operator's
state is moved to the number Spark gives that operator in the new job, so an operator added to
the job or moved in it keeps the savepoint usable, as long as its upstream sources are the same.
State of an operator the new job does not have fails the restore with an error naming it,
unless ``execution.savepoint.ignore-unclaimed-state`` (Flink's ``allow_non_restored_state``)
is true. A keyed operator the savepoint has no state of starts empty, as in Flink: Spark needs
its operator metadata and state schema (written when Spark first runs an operator), which are
copied from a saved operator with the same kind of state (time mode, broadcast state: Kindling's
keyed operators differ in nothing else), and an empty state store snapshot per partition.

Keyed state is kept under keys laid out as ``STATE_LAYOUT`` says, and each key's place depends on
its operator's parallelism and max parallelism. The savepoint's manifest and a checkpoint's
``_kindling_checkpoint.json`` record both; a savepoint or checkpoint of another layout (but layout
2 without state of a Table operator, whose keys alone moved in layout 3), or of an operator at
another parallelism or max parallelism, is refused by name (its state would be misread: Kindling
cannot rescale keyed state).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import threading
import time
import uuid
import zipfile
from contextlib import closing
from typing import Any, Callable

SAVEPOINT_PATH = "execution.savepoint.path"
IGNORE_UNCLAIMED_STATE = "execution.savepoint.ignore-unclaimed-state"
SAVEPOINT_DIRECTORY_KEYS = ("execution.checkpointing.savepoint-dir", "state.savepoints.dir")
MANIFEST = "_kindling_savepoint.json"
CHECKPOINT_RECORD = "_kindling_checkpoint.json"
# The layout of keyed state keys: 1, a pickled key; 2, a pickled key placed in its subtask's Spark
# partition (kindling/spark/key_placement.py, placed_key), so its bytes depend on the operator's parallelism;
# 3, as 2, a Table operator's key in the subtask Flink's Table runtime gives it (kindling/runtime/table/key_groups.py):
# layout 2 state of DataStream operators reads the same.
STATE_LAYOUT = 3
_LAYOUTS_OF_DATASTREAM_KEYS = (2, 3)  # layout 3 moved only Table operators' keys
FIRST_COMMIT_WAIT_S = 120  # a savepoint requested before the first commit waits this long for it
_STATEFUL_PLAN_NODE = "TransformWithStateInPySpark"
_SCHEMA_FILE = re.compile(r"/state/\d+/(_stateSchema/.*)$")
_DATABASE_LOGS = ("-journal", "-wal", "-shm")  # SQLite's files of a transaction in progress
_VERSIONED = re.compile(r"^\.?(\d+)(?:_[^.]*)?\.(zip|delta|snapshot|changelog)(\.crc)?$")


class SavepointError(RuntimeError):
    """A savepoint cannot be taken, or does not fit the job that restores it."""


class StoppedWithSavepoint(Exception):
    """Raised at the start of a micro-batch once ``stop_with_savepoint`` has copied the checkpoint:
    the batch writes nothing and commits nothing, and the runner ends the job as finished."""


def operator_uids(nodes: list) -> dict[int, tuple[str, str]]:
    """Keyed operator node id -> (uid, name) for the keyed operators among ``nodes`` (a lowered
    job graph): :func:`stateful_uids` of them."""
    from kindling.graph.transformation import KeyedTransformation

    return stateful_uids(nodes, lambda node: isinstance(node, KeyedTransformation))


def stateful_uids(nodes: list, stateful: Callable[[Any], bool]) -> dict[int, tuple[str, str]]:
    """Node id -> (uid, name) for the nodes among ``nodes`` for which ``stateful`` holds: the name
    their state is kept under. Without ``uid()`` the id is generated from the node's name and the
    names and kinds of everything upstream of it, so a node added elsewhere leaves it unchanged
    (twins with the same name and upstream get ``-2``, ``-3``, ... in graph order)."""
    found, owners = {}, {}
    for node in nodes:
        if stateful(node):
            uid = node.uid or _generated_uid(node)
            if not node.uid:  # twins (same name, same upstream) are told apart by their order in the graph
                base, n = uid, 1
                while uid in owners:
                    n += 1
                    uid = f"{base}-{n}"
            if uid in owners:
                raise SavepointError(f"operators '{owners[uid]}' and '{node.name}' have the same uid '{uid}': "
                                     "a uid names one operator's state; give each its own")
            owners[uid] = node.name
            found[node.id] = (uid, node.name)
    return found


def table_keyed_uids(nodes: list) -> frozenset[str]:
    """The uids of the keyed operators among ``nodes`` whose keys are Table keys (placed as Flink's
    Table runtime places them since layout 3)."""
    from kindling.runtime.table.key_groups import TableKeyType

    by_id = {node.id: node for node in nodes}
    return frozenset(uid for n, (uid, _) in operator_uids(nodes).items()
                     if any(isinstance(getattr(i, "key_type", None), TableKeyType) for i in by_id[n].inputs))


def _generated_uid(node) -> str:
    parts, stack, seen = [], [node], set()
    while stack:
        current = stack.pop()
        parts.append(f"{current.kind}:{current.name}:{getattr(current, 'operation', '')}")
        for parent in current.inputs:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return f"{node.name}-{hashlib.sha1('|'.join(parts).encode()).hexdigest()[:12]}"


def spark_operator_ids(df, job_id: str, node_ids) -> dict[int, int]:
    """Keyed operator node id -> the operator id Spark gives its ``transformWithState`` in the
    query of ``df``: Spark numbers stateful operators in pre-order from the sink side of the plan."""
    return {node_id: position for node_id, position, _ in _stateful_plan_nodes(df, job_id, node_ids)}


def spark_operator_kinds(df, job_id: str, node_ids) -> dict[int, str]:
    """Keyed operator node id -> the kind of state Spark keeps for it (:func:`_kind`)."""
    kinds = {}
    for node_id, _, node in _stateful_plan_nodes(df, job_id, node_ids):
        time_mode = "EventTime" if ", EventTime," in node.toString() else "ProcessingTime"
        kinds[node_id] = _kind(time_mode, b"BroadcastHandOff" in _command(node))
    return kinds


def _kind(time_mode: str, broadcast: bool) -> str:
    """Kindling's keyed operators differ in their Spark state only by time mode and broadcast state."""
    return f"{time_mode}{'+broadcast' if broadcast else ''}"


def _command(node) -> bytes:
    return bytes(node.functionExpr().func().command().unsafeArray())


def _stateful_plan_nodes(df, job_id: str, node_ids):
    """``(node id, Spark operator id, plan node)`` of each keyed operator's ``transformWithState``,
    recognised by the ``<job id>/<node id>`` its pickled processor carries."""
    pattern = re.compile(re.escape(job_id).encode() + rb"/(\d+)")
    wanted = set(node_ids)
    stack, position = [df._jdf.queryExecution().analyzed()], 0
    while stack:
        node = stack.pop()
        if node.getClass().getSimpleName() == _STATEFUL_PLAN_NODE:
            ids = {int(m) for m in pattern.findall(_command(node))} & wanted
            if len(ids) != 1:
                raise SavepointError(f"cannot tell which keyed operator Spark's stateful operator {position} is")
            yield ids.pop(), position, node
            position += 1
        children = node.children()
        stack.extend(children.apply(i) for i in reversed(range(children.size())))


def _manifest(path: str) -> dict:
    try:
        with open(os.path.join(path, MANIFEST)) as f:
            return json.load(f)
    except FileNotFoundError:
        raise SavepointError(f"{path} is not a Kindling savepoint (it has no {MANIFEST}); "
                             f"{SAVEPOINT_PATH} takes the path trigger_savepoint/stop_with_savepoint returned") from None


def _batches(directory: str) -> list[int]:
    return sorted(int(n) for n in os.listdir(directory) if n.isdigit()) if os.path.isdir(directory) else []


def copy_committed(checkpoint: str, target: str) -> int:
    """Copies Spark checkpoint ``checkpoint`` to ``target`` as of its last committed micro-batch and
    returns that batch's id. The commit log is read first: whatever a later batch writes meanwhile
    (offsets, state versions above the committed one) is left out, so the copy is consistent even
    while the query runs."""
    committed = _batches(os.path.join(checkpoint, "commits"))
    if not committed:
        raise SavepointError("the job has not committed a micro-batch yet: try again once it has made progress")
    last = committed[-1]

    def keep(directory: str, names: list[str]) -> list[str]:
        ignored = []
        relative = os.path.relpath(directory, checkpoint).split(os.sep)
        for name in names:
            base = name[1:].rsplit(".", 1)[0] if name.startswith(".") and name.endswith(".crc") else name
            if name.endswith(_DATABASE_LOGS):
                ignored.append(name)  # a database's uncommitted writes: the copy is as of its last transaction
            elif relative[0] in ("commits", "offsets") and base.isdigit() and int(base) > last:
                ignored.append(name)
            elif relative[0] == "state" and "_metadata" in relative and base.isdigit() and int(base) > last:
                ignored.append(name)  # operator metadata written by an uncommitted batch
            else:
                match = _VERSIONED.match(name)
                if relative[0] == "state" and match and int(match.group(1)) > last + 1:
                    ignored.append(name)  # state version N+1 is the state after batch N
        return ignored

    shutil.copytree(checkpoint, target, ignore=keep, copy_function=_copy_if_present)
    return last


def _copy_if_present(source: str, target: str) -> None:
    """Spark's maintenance may delete an old state file between listing and copying: skip it. A
    SQLite database (a group aggregation's state: kindling/spark/table/aggregation.py), which a
    micro-batch may be writing, is copied as of its last transaction."""
    if source.endswith(".sqlite"):
        with closing(sqlite3.connect(source, timeout=600)) as database, closing(sqlite3.connect(target)) as copy:
            database.backup(copy)
        return
    try:
        shutil.copy2(source, target)
    except FileNotFoundError:
        pass


def check_layout(recorded: dict, where: str, parallelisms: dict[str, list[int]],
                 table_keyed: frozenset[str] = frozenset()) -> None:
    """Refuses keyed state recorded (a manifest, a checkpoint's record) in another layout than this
    version's, or of an operator (by uid) now at another parallelism or max parallelism: Kindling
    would misread it. Layout 2 differs only in where a Table operator's key goes: its state is read
    unless it holds state of one of ``table_keyed`` (the uids of the job's Table keyed operators).
    ``where`` names the savepoint or checkpoint in the error."""
    layout = recorded.get("state_layout", 1)  # written before layouts were recorded
    readable = layout == STATE_LAYOUT or (
        layout in _LAYOUTS_OF_DATASTREAM_KEYS and not table_keyed & set(recorded.get("parallelisms", {})))
    if not readable:
        raise SavepointError(
            f"{where} was written by a Kindling of another keyed state layout (version {layout}); this version "
            f"reads layout {STATE_LAYOUT} and would misread its state: run the job from its sources without it "
            f"(a new checkpoint directory, no {SAVEPOINT_PATH}), or finish it with the Kindling that wrote it")
    for uid, (parallelism, max_parallelism) in recorded.get("parallelisms", {}).items():
        now = parallelisms.get(uid)
        if now is not None and list(now) != [parallelism, max_parallelism]:
            raise SavepointError(
                f"{where} holds the state of operator uid '{uid}' at parallelism {parallelism} and max parallelism "
                f"{max_parallelism}; the job runs it at parallelism {now[0]} and max parallelism {now[1]}, and "
                f"Kindling cannot rescale keyed state: set them back (set_parallelism, set_max_parallelism), or run "
                f"the job from its sources without it")


def record_checkpoint(checkpoint: str, parallelisms: dict[str, list[int]],
                      table_keyed: frozenset[str] = frozenset()) -> None:
    """Checks the record of a checkpoint holding keyed state (:func:`check_layout`; a checkpoint
    without a record is of layout 1), then records this job's layout and parallelisms in it."""
    path = os.path.join(checkpoint, CHECKPOINT_RECORD)
    if os.path.isdir(os.path.join(checkpoint, "state")) and os.listdir(os.path.join(checkpoint, "state")):
        try:
            with open(path) as f:
                recorded = json.load(f)
        except FileNotFoundError:
            recorded = {}
        check_layout(recorded, f"the checkpoint {checkpoint}", parallelisms, table_keyed)
    os.makedirs(checkpoint, exist_ok=True)
    with open(path, "w") as f:
        json.dump({"state_layout": STATE_LAYOUT, "parallelisms": parallelisms}, f, indent=1)


def take_savepoint(checkpoint: str, directory: str, job_id: str, operators: dict[int, tuple[str, str]],
                   spark_ids: dict[int, int], parallelisms: dict[str, list[int]] | None = None) -> str:
    """Writes a savepoint of ``checkpoint`` into a new directory under ``directory`` and returns its
    path; ``parallelisms``: each keyed operator's (by uid) parallelism and max parallelism."""
    path = os.path.join(os.path.abspath(directory), f"savepoint-{job_id[:6]}-{uuid.uuid4().hex[:12]}")
    last = copy_committed(checkpoint, os.path.join(path, "checkpoint"))
    manifest = {"version": 1, "state_layout": STATE_LAYOUT, "last_batch": last, "job_id": job_id,
                "parallelisms": parallelisms or {},
                "operators": [{"uid": operators[n][0], "name": operators[n][1], "spark_id": spark_ids[n]}
                              for n in sorted(spark_ids, key=spark_ids.get)]}
    with open(os.path.join(path, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1)
    return path


def restore_savepoint(path: str, checkpoint: str, operators: dict[int, tuple[str, str]],
                      spark_ids: dict[int, int], allow_non_restored_state: bool,
                      kinds: dict[int, str] | None = None, parallelisms: dict[str, list[int]] | None = None,
                      table_keyed: frozenset[str] = frozenset()) -> None:
    """Makes ``checkpoint`` (which must hold no progress) the savepoint at ``path`` with each
    operator's state moved to its Spark operator id in the new job, and operators the savepoint
    has no state of (``kinds``: their kind of state) starting empty (see the module docstring).
    ``parallelisms``, ``table_keyed``: the new job's (see :func:`check_layout`)."""
    manifest = _manifest(path)
    if manifest["operators"]:
        check_layout(manifest, f"the savepoint {path}", parallelisms or {}, table_keyed)
    new_ids = {operators[n][0]: spark_ids[n] for n in spark_ids}
    new_kinds = {operators[n][0]: (kinds or {}).get(n) for n in spark_ids}
    new_names = {operators[n][0]: operators[n][1] for n in spark_ids}
    mapping: dict[int, int] = {}
    for saved in manifest["operators"]:
        if saved["uid"] in new_ids:
            mapping[saved["spark_id"]] = new_ids.pop(saved["uid"])
        elif not allow_non_restored_state:
            raise SavepointError(
                f"the savepoint {path} holds state of operator '{saved['name']}' (uid '{saved['uid']}') that this "
                f"job does not have: give the operator that should take it the same uid(), or set "
                f"{IGNORE_UNCLAIMED_STATE}: true to drop that state")
    source = os.path.join(path, "checkpoint")
    os.makedirs(checkpoint, exist_ok=True)
    for name in os.listdir(source):
        if name == "state":
            continue
        target = os.path.join(checkpoint, name)
        if os.path.isdir(os.path.join(source, name)):
            shutil.copytree(os.path.join(source, name), target)
        else:
            shutil.copy2(os.path.join(source, name), target)
    # A new query id: the restored job's output (FileSink part files are named by it) never
    # overwrites what the job that took the savepoint wrote after it.
    with open(os.path.join(checkpoint, "metadata"), "w") as f:
        json.dump({"id": str(uuid.uuid4())}, f)
    _remove(os.path.join(checkpoint, ".metadata.crc"))
    for old, new in mapping.items():
        _move_state(os.path.join(source, "state", str(old)), os.path.join(checkpoint, "state", str(new)), new)
    if new_ids:  # operators the savepoint has no state of start empty, as in Flink
        last = _batches(os.path.join(source, "commits"))[-1]
        templates = {_saved_kind(os.path.join(source, "state", str(o["spark_id"]))): o["spark_id"]
                     for o in manifest["operators"]}
        for uid, spark_id in new_ids.items():
            template = templates.get(new_kinds[uid])
            if template is None:
                raise SavepointError(
                    f"operator '{new_names[uid]}' (uid '{uid}') has no state in the savepoint {path}, and the "
                    f"savepoint has no operator with its kind of state ({new_kinds[uid]}) to give it an empty one "
                    f"from (Spark writes a stateful operator's metadata and state schema when it first runs it); "
                    f"give it the uid() of the operator whose state it should take, or start the job without "
                    f"{SAVEPOINT_PATH}")
            target = os.path.join(checkpoint, "state", str(spark_id))
            _move_state(os.path.join(source, "state", str(template)), target, spark_id, data=False)
            _empty_state(target, last + 1, _shuffle_partitions(source, last))


def _saved_kind(state: str) -> str | None:
    """The kind of state (:func:`_kind`) of a saved operator, from Spark's newest operator metadata."""
    metadata = os.path.join(state, "_metadata", "v2")
    batches = _batches(metadata)
    if not batches:
        return None
    with open(os.path.join(metadata, str(batches[-1]))) as f:
        line = next((line for line in f if line.startswith("{")), "{}")
    properties = json.loads(json.loads(line).get("operatorPropertiesJson", "{}"))
    names = {v.get("stateName") for v in properties.get("stateVariables", [])}
    return _kind(properties.get("timeMode", ""), "kindling_broadcast" in names)


def _shuffle_partitions(checkpoint: str, batch: int) -> int:
    """The number of state store partitions of the query whose checkpoint this is (its offset log
    records ``spark.sql.shuffle.partitions``)."""
    with open(os.path.join(checkpoint, "offsets", str(batch))) as f:
        for line in f:
            if line.startswith("{") and '"conf"' in line:
                return int(json.loads(line)["conf"]["spark.sql.shuffle.partitions"])
    raise SavepointError(f"the savepoint's offset log of batch {batch} names no shuffle partitions")


def _empty_state(directory: str, version: int, partitions: int) -> None:
    """An operator's state store as Spark's RocksDB provider reads it, empty, at ``version``: per
    partition a snapshot whose metadata lists no files (RocksDB then opens an empty database)."""
    metadata = "v1\n" + json.dumps({"sstFiles": [], "numKeys": 0})
    for partition in range(partitions):
        os.makedirs(os.path.join(directory, str(partition)), exist_ok=True)
        with zipfile.ZipFile(os.path.join(directory, str(partition), f"{version}.zip"), "w") as snapshot:
            snapshot.writestr("metadata", metadata)


def _move_state(source: str, target: str, operator_id: int, data: bool = True) -> None:
    """Copies one operator's state directory, rewriting Spark's operator metadata (its id, and the
    absolute paths of its state schema files) for its new place; without ``data``, only its
    metadata and state schema (the partitions' state is left out)."""
    shutil.copytree(source, target, ignore=None if data else lambda d, names: [
        n for n in names if d == source and n.isdigit()])
    metadata = os.path.join(target, "_metadata")
    for root, _, files in os.walk(metadata):
        for name in files:
            if name.startswith("."):
                continue
            file = os.path.join(root, name)
            with open(file) as f:
                lines = f.read().split("\n")
            for i, line in enumerate(lines):
                if line.startswith("{"):
                    lines[i] = _rewrite_metadata(line, target, operator_id)
            with open(file, "w") as f:
                f.write("\n".join(lines))
            _remove(os.path.join(root, f".{name}.crc"))  # Hadoop would find the checksum wrong


def _rewrite_metadata(line: str, target: str, operator_id: int) -> str:
    data = json.loads(line)
    info = data.get("operatorInfo")
    if info is not None:
        info["operatorId"] = operator_id
    for store in data.get("stateStoreInfo", []):
        paths = []
        for old in store.get("stateSchemaFilePaths", []):
            match = _SCHEMA_FILE.search(old)
            paths.append("file:" + os.path.join(target, match.group(1)) if match else old)
        store["stateSchemaFilePaths"] = paths
    return json.dumps(data, separators=(",", ":"))


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


class JobSavepoints:
    """A running job's savepoints: taken between micro-batches (a batch waits at its start while
    the checkpoint is copied), restored once before the job's query first starts."""

    def __init__(self, configuration: Any, compiler: Any, compiled: Any, job_id: str):
        self.configuration = configuration
        self.job_id = job_id
        self.streaming = compiled.streaming
        self.df = compiled.df
        self.joins_in_query = compiled.joins_in_query
        self.operators = operator_uids(compiler.nodes)
        self.parallelisms = {uid: [compiler.parallelism_of(compiler.by_id[n]), compiler.max_parallelism_of(compiler.by_id[n])]
                             for n, (uid, _) in self.operators.items()}  # see check_layout
        self.table_keyed = table_keyed_uids(compiler.nodes)
        self._spark_ids: dict[int, int] | None = None
        self.gate = threading.Lock()
        self.stopping = False  # stop_with_savepoint copied the checkpoint: no batch may start
        self.stopped = False  # the job ends because of it (the runner then neither restarts nor fails)
        self.running = False  # a micro-batch is being written (the runner clears it at the batch's end)

    def spark_ids(self) -> dict[int, int]:
        if self._spark_ids is None:
            self._spark_ids = spark_operator_ids(self.df, self.job_id, self.operators)
        return self._spark_ids

    def directory(self, given: str | None) -> str:
        for value in [given] + [self.configuration.get_string(k, "") for k in SAVEPOINT_DIRECTORY_KEYS]:
            if value:
                return value[len("file://"):] if value.startswith("file://") else value
        raise SavepointError("no savepoint directory: pass one, or set execution.checkpointing.savepoint-dir")

    def take(self, checkpoint: str, directory: str | None, stop: bool = False) -> str:
        """Copies the checkpoint as of its last committed micro-batch; with ``stop`` no micro-batch
        starts after the copy (the next one raises StoppedWithSavepoint)."""
        if not self.streaming:
            raise SavepointError("savepoints need a STREAMING job on the micro-batch path (a BATCH or "
                                 "one-step job has no checkpoint): configure execution.checkpointing.dir")
        self._check_joins("a savepoint of it would not carry their rows")
        target = self.directory(directory)
        commits, deadline = os.path.join(checkpoint, "commits"), time.time() + FIRST_COMMIT_WAIT_S
        while not _batches(commits) and time.time() < deadline:
            time.sleep(0.1)  # a job whose first micro-batch has not committed yet (its sinks may have written)
        with self.gate:
            if self.stopping:
                raise SavepointError("the job is stopping with a savepoint already")
            path = take_savepoint(checkpoint, target, self.job_id, self.operators, self.spark_ids(), self.parallelisms)
            self.stopping = self.stopped = stop
        return path

    def at_batch_start(self) -> None:
        """Called by the runner as each micro-batch starts: waits for a savepoint being copied."""
        with self.gate:
            if self.stopping:
                raise StoppedWithSavepoint("stopped with a savepoint")
            self.running = True

    def restore_into(self, checkpoint: str) -> None:
        """With ``execution.savepoint.path`` set: makes a checkpoint without progress the savepoint
        (a checkpoint with progress, a restarted job's, wins: it is newer). Then checks and records
        the checkpoint's keyed state layout (:func:`record_checkpoint`)."""
        path = self.configuration.get_string(SAVEPOINT_PATH, "")
        if path and not _batches(os.path.join(checkpoint, "commits")):
            self._restore(path, checkpoint)
        record_checkpoint(checkpoint, self.parallelisms, self.table_keyed)

    def _check_joins(self, why: str) -> None:
        """Refuses a savepoint of a job with joins Spark's stream-stream join computes (their rows live
        in its state store under an operator id savepoints do not map), saying ``why``."""
        if self.joins_in_query:
            raise SavepointError(
                f"the job's join {', '.join(map(repr, self.joins_in_query))} runs as Spark's stream-stream join "
                f"inside its streaming query: {why}; set kindling.table.spark-stream-join: false (the join then "
                f"keeps its rows beside the checkpoint, in a savepoint too)")

    def _restore(self, path: str, checkpoint: str) -> None:
        if not self.streaming:
            raise SavepointError(f"{SAVEPOINT_PATH} needs a STREAMING job on the micro-batch path")
        self._check_joins(f"{SAVEPOINT_PATH} would start it without the rows the savepoint holds")
        if os.path.isdir(checkpoint):
            shutil.rmtree(checkpoint)
        restore_savepoint(path[len("file://"):] if path.startswith("file://") else path, checkpoint,
                          self.operators, self.spark_ids(),
                          self.configuration.get_boolean(IGNORE_UNCLAIMED_STATE, False),
                          spark_operator_kinds(self.df, self.job_id, self.operators), self.parallelisms,
                          self.table_keyed)
