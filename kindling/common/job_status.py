"""``JobStatus``: the states of a job's life cycle."""
from enum import Enum

__all__ = ['JobStatus']

_GLOBALLY_TERMINAL = frozenset(['FAILED', 'CANCELED', 'FINISHED'])
_LOCALLY_TERMINAL = frozenset(['SUSPENDED'])


class JobStatus(Enum):
    """The status of a job; FINISHED, CANCELED and FAILED are globally terminal, SUSPENDED is
    terminal only locally."""

    INITIALIZING = 0
    CREATED = 1
    RUNNING = 2
    FAILING = 3
    FAILED = 4
    CANCELLING = 5
    CANCELED = 6
    FINISHED = 7
    RESTARTING = 8
    SUSPENDED = 9
    RECONCILING = 10

    def is_globally_terminal_state(self) -> bool:
        return self.name in _GLOBALLY_TERMINAL

    def is_terminal_state(self) -> bool:
        return self.name in _GLOBALLY_TERMINAL or self.name in _LOCALLY_TERMINAL
