"""``import pyflink...`` served by Kindling, active only inside ``kindling run`` (never on
import of Kindling), so that an unchanged PyFlink job runs on Spark: ``pyflink.X`` is the
module ``kindling.X`` itself. The same alias reaches Spark's Python workers as a shipped
``pyflink`` shim package, for job modules they import by reference."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys
import zipfile

_SHIM = '''"""Kindling's stand-in for PyFlink in Spark's Python workers of a `kindling run` job."""
import sys

import kindling
from kindling.pyflink_alias import install

install()
sys.modules[__name__] = kindling
'''


class _PyFlinkAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``pyflink`` and ``pyflink.*`` as the Kindling modules of the same path."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "pyflink" and not fullname.startswith("pyflink."):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def __init__(self) -> None:
        self._own_specs: dict[int, object] = {}

    def create_module(self, spec):
        module = importlib.import_module("kindling" + spec.name[len("pyflink"):])
        self._own_specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module) -> None:
        """The Kindling module ran already; only its own spec, which the import system
        replaced with the alias's, is put back."""
        module.__spec__ = self._own_specs.pop(id(module), module.__spec__)


def install() -> None:
    """Makes ``import pyflink...`` import Kindling in this process, ahead of any installed PyFlink."""
    if not any(isinstance(finder, _PyFlinkAlias) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PyFlinkAlias())


def shim_zip(directory: str) -> str:
    """A zip holding the ``pyflink`` shim package for Spark's workers, written in ``directory``."""
    path = os.path.join(directory, "pyflink-alias.zip")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pyflink/__init__.py", _SHIM)
    return path
