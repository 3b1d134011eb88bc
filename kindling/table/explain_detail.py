"""``pyflink.table.explain_detail``: the details ``Table.explain`` and ``TableEnvironment.explain_sql`` may add.

Kindling's plan always shows each operator's changelog mode (``CHANGELOG_MODE``); with ``PLAN_ADVICE`` it
ends as Flink's does when it has no advice. Optimizer costs (``ESTIMATED_COST``) and Flink's JSON
execution plan (``JSON_EXECUTION_PLAN``) belong to Flink's planner: asking for them fails.

Example::

    print(table.explain(ExplainDetail.CHANGELOG_MODE, ExplainDetail.PLAN_ADVICE))
"""
from __future__ import annotations

__all__ = ["ExplainDetail"]


class ExplainDetail:
    """The kinds of detail of an explained plan, as PyFlink numbers them."""

    ESTIMATED_COST = 0
    CHANGELOG_MODE = 1
    JSON_EXECUTION_PLAN = 2
    PLAN_ADVICE = 3


def plan_details(details: tuple) -> str:
    """What the plan's text ends with for ``details`` (ExplainDetail values); unsupported ones fail."""
    unknown = [d for d in details if d not in (ExplainDetail.ESTIMATED_COST, ExplainDetail.CHANGELOG_MODE,
                                               ExplainDetail.JSON_EXECUTION_PLAN, ExplainDetail.PLAN_ADVICE)]
    if unknown:
        raise ValueError(f"explain takes ExplainDetail values, got {unknown}")
    refused = [name for name in ("ESTIMATED_COST", "JSON_EXECUTION_PLAN") if getattr(ExplainDetail, name) in details]
    if refused:
        raise ValueError(f"explain(ExplainDetail.{refused[0]}) is not supported by Kindling: it is Flink's planner's "
                         "(Kindling's plan shows each operator's changelog mode and where it runs, docs/table.md)")
    return "\nNo available advice...\n" if ExplainDetail.PLAN_ADVICE in details else ""
