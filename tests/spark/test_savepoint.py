"""Savepoints end to end on Spark (parallelism 2): stop_with_savepoint / trigger_savepoint, restore
with ``execution.savepoint.path`` into a changed job whose keyed state is found by ``uid()``, and
the clear errors for state that does not fit; plus the pure logic of the copy and the mapping."""
from __future__ import annotations

import json
import os
import sys
import time

import pytest

from kindling.common import Configuration, Duration, Types, WatermarkStrategy
from kindling.common.serialization import Encoder
from kindling.datastream import StreamExecutionEnvironment
from kindling.datastream.connectors.file_system import FileSink, FileSource, StreamFormat
from kindling.spark.savepoints import (CHECKPOINT_RECORD, MANIFEST, STATE_LAYOUT, SavepointError, check_layout,
                                       copy_committed, operator_uids, record_checkpoint, restore_savepoint,
                                       table_keyed_uids)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from benchmarks.chaos import output_lines  # noqa: E402


def _parse(line: str) -> tuple:
    key, value = line.split(",")
    return key, int(value)


def _start(tmp_path, name: str, order: tuple[str, ...], savepoint: str = "", allow: bool = False,
           extra_map: bool = False, checkpoints: str = ""):
    """A job over the monitored directory ``in``: per key a running sum (uid ``sums``) and a running
    max (uid ``maxes``), in branches declared in ``order``; lines ``sum:k:v`` / ``max:k:v`` to ``out``;
    its checkpoints under ``checkpoints`` if given."""
    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    if checkpoints:
        conf.set_string("execution.checkpointing.dir", checkpoints)
    if savepoint:
        conf.set_string("execution.savepoint.path", savepoint)
    if allow:
        conf.set_boolean("execution.savepoint.ignore-unclaimed-state", True)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    assert env.get_default_savepoint_directory() is None
    env.set_default_savepoint_directory(str(tmp_path / "savepoints"))  # for savepoints taken without a path
    assert env.get_default_savepoint_directory() == str(tmp_path / "savepoints")
    env.set_parallelism(2)
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path / "in"))
              .monitor_continuously(Duration.of_millis(100)).build())
    pairs = env.from_source(source, WatermarkStrategy.no_watermarks(), "lines").map(
        _parse, Types.TUPLE([Types.STRING(), Types.INT()]))
    if extra_map:  # an unrelated stateless operator
        pairs = pairs.filter(lambda p: p[1] >= 0)
    branches = {
        "sums": lambda: pairs.key_by(lambda p: p[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).uid("sums")
        .map(lambda p: f"sum:{p[0]}:{p[1]}", Types.STRING()),
        "maxes": lambda: pairs.key_by(lambda p: p[0]).reduce(lambda a, b: (a[0], max(a[1], b[1]))).uid("maxes")
        .map(lambda p: f"max:{p[0]}:{p[1]}", Types.STRING()),
        "counts": lambda: pairs.map(lambda p: (p[0], 1), Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda p: p[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).uid("counts")
        .map(lambda p: f"count:{p[0]}:{p[1]}", Types.STRING()),
    }
    streams = [branches[b]() for b in order]
    lines = streams[0].union(*streams[1:]) if len(streams) > 1 else streams[0]
    lines.sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    return env.execute_async(name)


def _put(tmp_path, name: str, pairs: list) -> None:
    staged = tmp_path / "in" / f".{name}"
    staged.write_text("".join(f"{k},{v}\n" for k, v in pairs))
    os.replace(staged, tmp_path / "in" / name)


def _lines(tmp_path) -> list[str]:
    return output_lines(str(tmp_path / "out"))


def _wait_for(tmp_path, wanted: set[str], client) -> None:
    deadline = time.time() + 240
    while not wanted <= set(_lines(tmp_path)):
        if client.get_job_execution_result()._future.done():
            client.get_job_execution_result().result()  # raises the job's error
            raise AssertionError("the job ended early")
        assert time.time() < deadline, f"missing {sorted(wanted - set(_lines(tmp_path)))}"
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_stop_with_savepoint_and_restore_by_uid_into_a_changed_job(spark, tmp_path):
    (tmp_path / "in").mkdir()
    _put(tmp_path, "a.txt", [("x", 5), ("y", 1), ("x", 2)])
    client = _start(tmp_path, "savepoint a", ("sums", "maxes"))
    _wait_for(tmp_path, {"sum:x:7", "sum:y:1", "max:x:5"}, client)
    path = client.stop_with_savepoint(False).result(120)
    client.get_job_execution_result().result(120)  # the job finished (no error)
    first = json.loads(open(os.path.join(path, MANIFEST)).read())
    assert {o["uid"] for o in first["operators"]} == {"sums", "maxes"}

    # The branches in the other order (Spark numbers their state the other way round) and one
    # stateless operator more: the state is found by uid.
    _put(tmp_path, "b.txt", [("x", 1), ("y", 10)])
    client = _start(tmp_path, "savepoint b", ("maxes", "sums"), savepoint=path, extra_map=True)
    try:
        _wait_for(tmp_path, {"sum:x:8", "sum:y:11", "max:x:5", "max:y:10"}, client)
        second = json.loads(open(os.path.join(client.trigger_savepoint().result(120), MANIFEST)).read())
    finally:
        client.cancel().result(120)
    ids = lambda m: {o["uid"]: o["spark_id"] for o in m["operators"]}  # noqa: E731
    assert ids(first) != ids(second)  # the restore moved the state to other operator numbers

    # A job without the "maxes" operator: the savepoint's state of it is refused, by name ...
    client = _start(tmp_path, "savepoint c", ("sums",), savepoint=path)
    with pytest.raises(SavepointError, match="'maxes'.*ignore-unclaimed-state"):
        client.get_job_execution_result().result(240)
    # ... unless unclaimed state may be dropped.
    _put(tmp_path, "c.txt", [("y", 100)])
    client = _start(tmp_path, "savepoint d", ("sums",), savepoint=path, allow=True)
    try:
        _wait_for(tmp_path, {"sum:y:111"}, client)  # 1 (the savepoint) + 10 (b.txt, read again) + 100
    finally:
        client.cancel().result(120)

    # A keyed operator added to the job starts with empty state, as in Flink; the others keep theirs.
    client = _start(tmp_path, "savepoint e", ("sums", "maxes", "counts"), savepoint=path)
    try:  # b.txt and c.txt, read again after the savepoint
        _wait_for(tmp_path, {"count:x:1", "count:y:2", "sum:x:8", "sum:y:111", "max:y:100"}, client)
    finally:
        client.cancel().result(120)


def test_savepoint_copy_leaves_out_what_is_not_committed(tmp_path):
    cp = tmp_path / "cp"
    for d in ("commits", "offsets", "state/0/0", "state/0/_metadata/v2"):
        (cp / d).mkdir(parents=True)
    for b in (0, 1):
        (cp / "commits" / str(b)).write_text("v1")
    for b in (0, 1, 2):
        (cp / "offsets" / str(b)).write_text("v1")
        (cp / "offsets" / f".{b}.crc").write_text("")
    for v in (1, 2, 3):
        (cp / "state/0/0" / f"{v}.zip").write_text("z")
    (cp / "state/0/0/SSTs").mkdir()
    (cp / "state/0/0/SSTs/000009-abc.sst").write_text("s")
    (cp / "state/0/_metadata/v2/0").write_text("v2")
    (cp / "state/0/_metadata/v2/2").write_text("v2")
    (cp / "metadata").write_text('{"id":"q"}')
    assert copy_committed(str(cp), str(tmp_path / "copy")) == 1
    kept = sorted(os.path.relpath(os.path.join(r, f), tmp_path / "copy")
                  for r, _, fs in os.walk(tmp_path / "copy") for f in fs)
    assert kept == ["commits/0", "commits/1", "metadata", "offsets/.0.crc", "offsets/.1.crc", "offsets/0", "offsets/1",
                    "state/0/0/1.zip", "state/0/0/2.zip", "state/0/0/SSTs/000009-abc.sst", "state/0/_metadata/v2/0"]
    with pytest.raises(SavepointError, match="not committed a micro-batch"):
        copy_committed(str(tmp_path / "copy" / "state"), str(tmp_path / "none"))


def test_savepoint_copy_takes_a_group_aggregations_database_as_of_its_last_transaction(tmp_path):
    import sqlite3
    from contextlib import closing

    shard = tmp_path / "cp" / "kindling-aggregations" / "counts" / "shard-0.sqlite"
    shard.parent.mkdir(parents=True)
    (tmp_path / "cp" / "commits").mkdir()
    (tmp_path / "cp" / "commits" / "0").write_text("v1")
    with closing(sqlite3.connect(shard)) as database:
        database.execute("CREATE TABLE state (id TEXT, version INTEGER, value TEXT)")
        database.execute("INSERT INTO state VALUES ('a', 0, '1')")
        database.commit()
        database.execute("INSERT INTO state VALUES ('a', 1, '2')")  # a micro-batch still writing
        database.execute("UPDATE state SET value = '0' WHERE version = 0")
        copy_committed(str(tmp_path / "cp"), str(tmp_path / "copy"))
    copied = tmp_path / "copy" / "kindling-aggregations" / "counts"
    assert os.listdir(copied) == ["shard-0.sqlite"]  # no journal of the write in progress
    with closing(sqlite3.connect(copied / "shard-0.sqlite")) as database:
        assert database.execute("SELECT id, version, value FROM state").fetchall() == [("a", 0, "1")]


def test_restore_rewrites_operator_ids_and_schema_paths(tmp_path):
    saved = tmp_path / "sp" / "checkpoint"
    (saved / "state/0/_metadata/v2").mkdir(parents=True)
    (saved / "commits").mkdir()
    (saved / "commits/0").write_text("v1")
    meta = {"operatorInfo": {"operatorId": 0, "operatorName": "transformWithStateInPySparkExec"},
            "stateStoreInfo": [{"storeName": "default", "stateSchemaFilePaths":
                                ["file:/old/place/state/0/_stateSchema/default/0_u"]}]}
    (saved / "state/0/_metadata/v2/0").write_text("v2\n" + json.dumps(meta))
    (saved / "state/0/_metadata/v2/.0.crc").write_text("")
    (saved / "metadata").write_text('{"id":"q"}')
    manifest = {"version": 1, "state_layout": STATE_LAYOUT, "last_batch": 0, "parallelisms": {"sums": [2, 128]},
                "operators": [{"uid": "sums", "name": "Reduce", "spark_id": 0}]}
    (tmp_path / "sp" / MANIFEST).write_text(json.dumps(manifest))
    target = tmp_path / "new"
    restore_savepoint(str(tmp_path / "sp"), str(target), {7: ("sums", "Reduce")}, {7: 3}, False,
                      parallelisms={"sums": [2, 128]})
    text = (target / "state/3/_metadata/v2/0").read_text().split("\n")
    assert text[0] == "v2"
    moved = json.loads(text[1])
    assert moved["operatorInfo"]["operatorId"] == 3
    assert moved["stateStoreInfo"][0]["stateSchemaFilePaths"] == [f"file:{target}/state/3/_stateSchema/default/0_u"]
    assert not (target / "state/3/_metadata/v2/.0.crc").exists()
    assert json.loads((target / "metadata").read_text())["id"] != "q"
    with pytest.raises(SavepointError, match="'Reduce' \\(uid 'sums'\\).*ignore-unclaimed-state"):
        restore_savepoint(str(tmp_path / "sp"), str(tmp_path / "other"), {7: ("counts", "Count")}, {7: 0}, False)
    # an added operator starts empty only from an operator of its kind of state in the savepoint
    with pytest.raises(SavepointError, match="'Count' \\(uid 'counts'\\) has no state.*EventTime"):
        restore_savepoint(str(tmp_path / "sp"), str(tmp_path / "third"), {7: ("sums", "Reduce"), 8: ("counts", "Count")},
                          {7: 0, 8: 1}, False, {8: "EventTime"})


def test_a_savepoint_of_another_state_layout_or_parallelism_is_refused(tmp_path):
    saved = tmp_path / "sp" / "checkpoint"
    (saved / "commits").mkdir(parents=True)
    (saved / "commits/0").write_text("v1")
    manifest = {"version": 1, "last_batch": 0, "parallelisms": {"sums": [2, 128]},
                "operators": [{"uid": "sums", "name": "Reduce", "spark_id": 0}]}  # no state_layout: layout 1
    (tmp_path / "sp" / MANIFEST).write_text(json.dumps(manifest))
    restore = lambda target, parallelisms: restore_savepoint(  # noqa: E731
        str(tmp_path / "sp"), str(tmp_path / target), {7: ("sums", "Reduce")}, {7: 0}, False, parallelisms=parallelisms)
    with pytest.raises(SavepointError, match=f"another keyed state layout \\(version 1\\); this version reads layout "
                                             f"{STATE_LAYOUT}.*run the job from its sources"):
        restore("a", {"sums": [2, 128]})
    manifest["state_layout"] = STATE_LAYOUT
    (tmp_path / "sp" / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(SavepointError, match="uid 'sums' at parallelism 2 and max parallelism 128; the job runs it at "
                                             "parallelism 3 and max parallelism 128.*cannot rescale keyed state"):
        restore("b", {"sums": [3, 128]})


def test_layout_2_state_is_read_unless_it_holds_a_table_operators_keys():
    from kindling.graph.transformation import KeyByTransformation, KeyedTransformation
    from kindling.runtime.table.key_groups import TableKeyType
    from kindling.table.types import DataTypes

    recorded = {"state_layout": 2, "parallelisms": {"sums": [2, 128], "counts": [2, 128]}}
    now = {"sums": [2, 128], "counts": [2, 128]}
    check_layout(recorded, "the savepoint s", now)  # DataStream operators' keys did not move
    with pytest.raises(SavepointError, match="another keyed state layout \\(version 2\\)"):
        check_layout(recorded, "the savepoint s", now, frozenset({"counts"}))
    check_layout({**recorded, "state_layout": 3}, "the savepoint s", now, frozenset({"counts"}))

    plain = KeyByTransformation(name="KeyBy", inputs=[], id=1)
    table = KeyByTransformation(name="KeyBy", inputs=[], id=2, key_type=TableKeyType.of([DataTypes.INT()]))
    nodes = [plain, table, KeyedTransformation(name="Sums", inputs=[plain], id=3, uid="sums"),
             KeyedTransformation(name="GroupAggregate", inputs=[table], id=4, uid="counts")]
    assert table_keyed_uids(nodes) == {"counts"}


def test_a_checkpoint_records_its_state_layout_and_one_of_another_is_refused(tmp_path):
    checkpoint = tmp_path / "cp"
    record_checkpoint(str(checkpoint), {"sums": [2, 128]})  # a new checkpoint: recorded
    record = json.loads((checkpoint / CHECKPOINT_RECORD).read_text())
    assert record == {"state_layout": STATE_LAYOUT, "parallelisms": {"sums": [2, 128]}}
    (checkpoint / "state" / "0").mkdir(parents=True)  # keyed state written under that record
    record_checkpoint(str(checkpoint), {"sums": [2, 128]})
    (checkpoint / CHECKPOINT_RECORD).write_text(json.dumps({**record, "state_layout": 1}))
    with pytest.raises(SavepointError, match="checkpoint .* another keyed state layout \\(version 1\\)"):
        record_checkpoint(str(checkpoint), {"sums": [2, 128]})
    (checkpoint / CHECKPOINT_RECORD).unlink()  # written before layouts were recorded
    with pytest.raises(SavepointError, match="another keyed state layout \\(version 1\\)"):
        record_checkpoint(str(checkpoint), {"sums": [2, 128]})
    (checkpoint / CHECKPOINT_RECORD).write_text(json.dumps(record))
    with pytest.raises(SavepointError, match="uid 'sums' at parallelism 2 and max parallelism 128; the job runs it "
                                             "at parallelism 2 and max parallelism 256"):
        record_checkpoint(str(checkpoint), {"sums": [2, 256]})


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_job_resumes_its_checkpoint_of_this_state_layout_and_refuses_another(spark, tmp_path):
    (tmp_path / "in").mkdir()
    checkpoints = str(tmp_path / "checkpoints")
    _put(tmp_path, "a.txt", [("x", 5), ("y", 1)])
    client = _start(tmp_path, "layout", ("sums",), checkpoints=checkpoints)
    try:
        _wait_for(tmp_path, {"sum:x:5", "sum:y:1"}, client)
    finally:
        client.cancel().result(120)
    record_path = os.path.join(checkpoints, "layout", CHECKPOINT_RECORD)
    record = json.loads(open(record_path).read())
    assert record["state_layout"] == STATE_LAYOUT and list(record["parallelisms"].values()) == [[2, 128]]

    with open(record_path, "w") as f:  # as an older Kindling would have left it
        json.dump({**record, "state_layout": 1}, f)
    client = _start(tmp_path, "layout", ("sums",), checkpoints=checkpoints)
    with pytest.raises(SavepointError, match="another keyed state layout \\(version 1\\)"):
        client.get_job_execution_result().result(240)

    with open(record_path, "w") as f:  # layout 2 moved no DataStream key: resumed
        json.dump({**record, "state_layout": 2}, f)
    _put(tmp_path, "b.txt", [("x", 1)])
    client = _start(tmp_path, "layout", ("sums",), checkpoints=checkpoints)
    try:
        _wait_for(tmp_path, {"sum:x:6"}, client)  # the sum of x resumed from the checkpoint
    finally:
        client.cancel().result(120)


def test_generated_uids_do_not_depend_on_unrelated_operators(env):
    def keyed_uid(extra: bool) -> str:
        from kindling.graph.transformation import upstream_graph

        numbers = env.from_collection([1, 2], Types.INT())
        if extra:
            numbers.map(lambda x: x + 1, Types.INT()).print()  # another branch
        sink = numbers.key_by(lambda x: x % 2).reduce(lambda a, b: a + b).print()
        (uid, name), = operator_uids(upstream_graph([sink._transformation])).values()
        return uid

    assert keyed_uid(False) == keyed_uid(True)


def test_two_keyed_operators_with_one_uid_are_refused(env):
    from kindling.graph.transformation import upstream_graph

    numbers = env.from_collection([1, 2], Types.INT())
    a = numbers.key_by(lambda x: x % 2).reduce(lambda x, y: x + y).uid("same").name("first")
    sink = a.key_by(lambda x: x % 3).reduce(lambda x, y: x + y).uid("same").name("second").print()
    with pytest.raises(SavepointError, match="'first' and 'second' have the same uid 'same'"):
        operator_uids(upstream_graph([sink._transformation]))


def test_twin_operators_without_uids_get_distinct_generated_ids(env):
    from kindling.graph.transformation import upstream_graph

    numbers = env.from_collection([1, 2], Types.INT())
    first = numbers.key_by(lambda x: x % 2).reduce(lambda a, b: a + b)
    second = numbers.key_by(lambda x: x % 2).reduce(lambda a, b: a + b)
    sink = first.union(second).print()
    uids = [uid for uid, _ in operator_uids(upstream_graph([sink._transformation])).values()]
    assert len(uids) == 2 and uids[1] == f"{uids[0]}-2"
