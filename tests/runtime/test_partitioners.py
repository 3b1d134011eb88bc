"""The driver's shares of a lone producer's elements (``first_task_shares``) are the instances its
task's ``InstanceChooser`` would pick."""
from __future__ import annotations

import pytest

from kindling.runtime.partitioners import Distribution, InstanceChooser, first_task_shares


@pytest.mark.parametrize("strategy", ["REBALANCE", "RESCALE", "BROADCAST"])
@pytest.mark.parametrize("consumers", [1, 2, 3])
def test_the_driver_splits_a_lone_producers_elements_as_its_task_would(strategy, consumers):
    distribution = Distribution(strategy, consumers)
    targets, rows = InstanceChooser(distribution, 0, f"job-{strategy}-{consumers}/1#0").spread(10, list(range(10)))
    shares = first_task_shares(distribution, 10)
    assert [list(share) for share in shares] == [[r for t, r in zip(targets, rows) if t == c] for c in range(consumers)]


def test_shuffle_gives_each_element_to_one_instance():
    shares = first_task_shares(Distribution("SHUFFLE", 3), 100)
    assert sorted(i for share in shares for i in share) == list(range(100))
    assert all(list(share) == sorted(share) for share in shares)


@pytest.mark.parametrize("distribution", [Distribution("CUSTOM", 2, partitioner=lambda k, n: 0, key_selector=id),
                                          Distribution("REBALANCE", 2, producers=2)])
def test_no_shares_where_the_tasks_must_pick(distribution):
    assert first_task_shares(distribution, 10) is None
