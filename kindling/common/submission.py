"""Configuration handed to a job from outside its program: ``kindling run``'s options
(``-D key=value``, ``--master``, ``-pyfs`` ...) travel in the ``KINDLING_CONF`` environment
variable as JSON, so that the job's own ``get_execution_environment()`` sees them, as a
PyFlink job sees ``flink run``'s options. The job's own settings win over them."""
from __future__ import annotations

import json
import os

ENVIRONMENT_VARIABLE = "KINDLING_CONF"


def submitted_configuration() -> dict[str, str]:
    """The keys ``kindling run`` passed to this process (empty outside it)."""
    text = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if not text:
        return {}
    try:
        values = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{ENVIRONMENT_VARIABLE} must be a JSON object of configuration keys "
                         f"(kindling run sets it): {exc}") from None
    if not isinstance(values, dict):
        raise ValueError(f"{ENVIRONMENT_VARIABLE} must be a JSON object of configuration keys, got {text!r}")
    return {str(k): str(v) for k, v in values.items()}
