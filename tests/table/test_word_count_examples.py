"""PyFlink's own Table API word counts (``examples/table/word_count.py`` and
``streaming_word_count.py``), unchanged but for the imports (and, for the endless datagen one, a
bounded ``number-of-rows``), where apache-flink is installed to read them from: their printed
changelog, applied, gives the right counts. tests/conformance/programs/table_word_count.py keeps
the line-for-line comparison with PyFlink's output."""
from __future__ import annotations

import os
import re
import sys
import types
from collections import Counter

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "datastream"))
from remote_model_inference_driver import example_path  # noqa: E402

CHANGE = re.compile(r"^(?:\d+> )?([+-][IUD])\[(.*), (\d+)\]$")  # a print sink's line, at any parallelism


def _run(relative: str, edit=lambda source: source):
    path = example_path(os.path.join("examples", "table", relative))
    if path is None:
        pytest.skip("the example is part of apache-flink, which is not installed here")
    with open(path) as f:
        source = f.read()
    module = types.ModuleType(relative[:-3])
    module.__file__ = path
    exec(compile(re.sub(r"\bpyflink\b", "kindling", edit(source)), path, "exec"), module.__dict__)
    return module


def _applied(lines) -> Counter:
    """The counts a printed changelog of (word, count) rows leaves."""
    counts: Counter = Counter()
    for line in lines:
        kind, word, count = CHANGE.match(line).groups()
        if kind in ("+I", "+U"):
            assert word not in counts, f"{line}: {word} was not retracted first"
            counts[word] = int(count)
        else:
            assert counts.pop(word) == int(count), f"{line} retracts another count"
    return counts


@pytest.mark.slow
def test_word_count_prints_the_changelog_of_the_counts(spark, capsys):
    module = _run("word_count.py")
    module.word_count(None, None)
    out = capsys.readouterr().out.splitlines()
    changes = [line for line in out if CHANGE.match(line)]
    assert changes[:3] == ["+I[To, 1]", "+I[be,, 1]", "+I[or, 1]"]
    assert "-U[the, 1]" in changes and "+U[the, 2]" in changes
    assert _applied(changes) == Counter(w for line in module.word_count_data for w in line.split())


@pytest.mark.slow
def test_streaming_word_count_counts_datagen_words(spark, capsys):
    rows = 40

    def bounded(source):
        edited = source.replace(".option('rows-per-second', '5')",
                                f".option('rows-per-second', '100').option('number-of-rows', '{rows}')")
        assert edited != source, "the example's datagen options changed: update this test"
        return edited

    module = _run("streaming_word_count.py", bounded)
    module.streaming_word_count(None)
    out = capsys.readouterr().out.splitlines()
    counts = _applied([line for line in out if CHANGE.match(line)])
    assert sum(counts.values()) == rows and set(counts) <= set(module.words)
