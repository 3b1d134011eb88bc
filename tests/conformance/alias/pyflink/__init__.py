"""``pyflink`` for the conformance programs: ``import pyflink.X.Y`` loads ``kindling.X.Y``.

Put this directory's parent on ``sys.path`` (never installed): a program written for PyFlink
then runs on Kindling unchanged, as a user who changed only the imports would run it. A module
or name Kindling lacks fails the import, as it would for that user.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys


class _ModuleLoader(importlib.abc.Loader):
    """Hands back Kindling's module itself, so classes and functions are Kindling's own objects."""

    def __init__(self, module):
        self._module = module
        self._spec = module.__dict__.get("__spec__")

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        module.__spec__ = self._spec  # the import system overwrote it with the alias's spec


class _KindlingFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("pyflink."):
            return None
        try:
            module = importlib.import_module("kindling" + fullname[len("pyflink"):])
        except ModuleNotFoundError as exc:
            if exc.name is not None and ("kindling" + fullname[len("pyflink"):]).startswith(exc.name):
                return None  # Kindling has no such module: "No module named 'pyflink.X'"
            raise
        search = getattr(module, "__path__", None)
        spec = importlib.machinery.ModuleSpec(fullname, _ModuleLoader(module), is_package=search is not None)
        if search is not None:
            spec.submodule_search_locations = list(search)
        return spec


if not any(isinstance(f, _KindlingFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _KindlingFinder())
