"""How Kindling says "PyFlink has this, Kindling does not (yet)".

One message style everywhere: ``<what> is not supported by Kindling yet: <why>``, where *why*
names the open work that will bring it (or what to use instead).

* ``@unsupported("reason")`` on a method PyFlink has: calling it raises
  :class:`UnsupportedError` (a ``NotImplementedError``); ``tests/test_api_completeness.py``
  counts the name as a gap, to be listed in ``docs/api-gaps.txt``.
* :func:`missing_names` gives a package a module ``__getattr__``: ``from
  kindling.datastream.connectors import KafkaSource`` fails with :class:`NotSupportedYetError`
  (an ``ImportError``) instead of Python's bare "cannot import name", while ``hasattr`` stays
  false for the name.
* :func:`missing_module` makes a stub module standing for a whole PyFlink module Kindling lacks
  (``...connectors.kafka``, ``pyflink.table``) fail at import the same way.
"""
from __future__ import annotations

import dis
import functools
import importlib
import sys
from typing import Callable, Mapping, NoReturn, TypeVar

F = TypeVar("F", bound=Callable)

#: Attribute set on functions wrapped by :func:`unsupported`; holds the reason.
UNSUPPORTED_MARK = "__kindling_unsupported__"


class UnsupportedError(NotImplementedError):
    """A PyFlink method Kindling does not support (yet) was called."""


class NotSupportedYetError(ModuleNotFoundError):
    """A PyFlink module or name Kindling does not have (yet) was imported.

    A ``ModuleNotFoundError`` (so an ``ImportError``) whose ``name`` is the missing module or
    the module the missing name was imported from, with a message saying what is missing and
    why.
    """


class UnsupportedAttributeError(AttributeError):
    """A PyFlink name Kindling does not have (yet) was read from a module (``hasattr`` is
    false for it, as for any missing attribute)."""


def unsupported(reason: str) -> Callable[[F], F]:
    """Marks a PyFlink method Kindling does not support: calling it raises
    :class:`UnsupportedError` naming the method and ``reason`` (what is missing, and what to
    use instead)."""

    def mark(function: F) -> F:
        what = function.__qualname__.rpartition("<locals>.")[2]
        if what.endswith(".__init__"):
            what = what[:-len(".__init__")]

        @functools.wraps(function)
        def refuse(*args, **kwargs) -> NoReturn:
            raise UnsupportedError(f"{what} is not supported by Kindling yet: {reason}")

        setattr(refuse, UNSUPPORTED_MARK, reason)
        return refuse  # type: ignore[return-value]

    return mark


def unsupported_reason(obj: object) -> str | None:
    """The reason given to :func:`unsupported` for ``obj``, or None if it is not marked."""
    for candidate in (obj, getattr(obj, "__func__", None), getattr(obj, "fget", None)):
        reason = getattr(candidate, UNSUPPORTED_MARK, None)
        if isinstance(reason, str):
            return reason
    return None


def _message(module: str, name: str | None, reason: str) -> str:
    what = module if name is None else f"{module}.{name}"
    return f"{what} is not supported by Kindling yet: {reason}"


def _imported_by_from(frame) -> bool:
    """Whether ``frame`` is executing ``from <module> import <name>`` (IMPORT_FROM)."""
    try:
        return frame.f_code.co_code[frame.f_lasti] == _IMPORT_FROM
    except (AttributeError, IndexError):
        return False


_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


def missing_names(module: str, reasons: Mapping[str, str],
                  lazy: Mapping[str, str] | None = None) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``module``. A PyFlink name listed in ``reasons`` fails
    ``from module import name`` with :class:`NotSupportedYetError` carrying its reason; read
    any other way (``module.name``, ``getattr``, ``hasattr``) it is an
    :class:`UnsupportedAttributeError` with the same message. A name in ``lazy`` is the
    attribute of the same name of the module it maps to, imported on first use (and kept in
    ``module``). Other names are ordinary ``AttributeError``s."""

    def __getattr__(name: str) -> object:
        if lazy is not None and name in lazy:
            value = getattr(importlib.import_module(lazy[name]), name)
            setattr(sys.modules[module], name, value)
            return value
        if name not in reasons:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        message = _message(module, name, reasons[name])
        if _imported_by_from(sys._getframe(1)):
            raise NotSupportedYetError(message, name=module)
        raise UnsupportedAttributeError(message, name=name)

    return __getattr__


def missing_module(module: str, reason: str) -> NoReturn:
    """Raised from the body of a stub module standing for a PyFlink module Kindling lacks."""
    raise NotSupportedYetError(_message(module, None, reason), name=module)


# Why PyFlink's names are missing (docs/api-gaps.txt lists them all).
CACHED_FILES = ("PyFlink's Python functions have no API that reads Flink's distributed cache (it serves Java "
                "functions); ship files with add_python_file or add_python_archive(path, dir) and read them at "
                "pyspark.SparkFiles.get(dir)")
JVM_ONLY = "it belongs to PyFlink's bridge to Flink's JVM, which Kindling does not run"


def connector(name: str) -> str:
    """The reason for a missing connector, e.g. ``connector("Pulsar")``."""
    return (f"Kindling has no {name} connector; its connectors are Kafka, files (FileSource, FileSink), JDBC, "
            "DataGen, NumberSequenceSource and sockets (docs/connectors.md)")
