"""Timer service interface, as in ``pyflink.datastream.timerservice``."""
from kindling.datastream.functions import TimerService

__all__ = ["TimerService"]
