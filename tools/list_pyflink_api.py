"""Lists a PyFlink package's public API (names and signatures) by introspection, in the line format
of ../shared/pyflink-2.3-api.txt, for tests/test_api_completeness.py.

    PATH=/opt/pyflink-venv/bin:$PATH python tools/list_pyflink_api.py pyflink.table > tests/pyflink-2.3-table-api.txt

Modules: the package and its submodules, but for private ones (``_name``). Names of a module: its
``__all__`` and the functions it defines, else the classes and functions it defines. A class a module re-exports from another
listed module is listed without members (they are under the defining module). Classes list their public methods (inherited
ones too; ``static``/``classmethod`` prefixed), nested classes, and properties (``property name``);
modules their functions (``def``) and other values (``NAME = type``).
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys


def signature(function) -> str:
    try:
        return str(inspect.signature(function))
    except (TypeError, ValueError):
        return "(...)"


def class_lines(cls: type) -> list[str]:
    lines = []
    for name in sorted(set(dir(cls)).union(*(vars(base) for base in cls.__mro__))):
        if name.startswith("_") and name != "__init__":
            continue
        if name == "__init__" and "__init__" not in vars(cls):
            continue
        raw = inspect.getattr_static(cls, name)
        owner = next((base for base in cls.__mro__ if name in vars(base)), object)
        if owner is object or not owner.__module__.startswith("pyflink"):
            continue
        if isinstance(raw, staticmethod):
            lines.append(f"    static {name}{signature(raw.__func__)}")
        elif isinstance(raw, classmethod):
            lines.append(f"    classmethod {name}{signature(raw.__func__)}")
        elif isinstance(raw, property):
            lines.append(f"    property {name}")
        elif inspect.isclass(raw) or inspect.isfunction(raw):
            lines.append(f"    {name}{signature(raw)}")
    return lines


def module_lines(name: str, listed: set[str]) -> list[str]:
    module = importlib.import_module(name)
    defined = [n for n, v in vars(module).items() if not n.startswith("_")
               and (inspect.isclass(v) or inspect.isfunction(v)) and v.__module__ == name]
    public = getattr(module, "__all__", None)
    if public is None:
        public = defined
    else:  # and the functions it defines beside __all__ (expressions' coalesce, lag, lead)
        public = list(public) + [n for n in defined if inspect.isfunction(getattr(module, n))]
    lines = [f"## {name}"]
    for attr in sorted(set(public)):
        value = getattr(module, attr)
        if inspect.isclass(value) and value.__module__ != name and value.__module__ in listed:
            lines.append(f"class {attr}  # members under {value.__module__}")
        elif inspect.isclass(value):
            lines.append(f"class {attr}")
            lines.extend(class_lines(value))
        elif callable(value):
            lines.append(f"def {attr}{signature(value)}")
        else:
            lines.append(f"{attr} = {type(value).__name__}")
    return lines


def main(package: str) -> None:
    root = importlib.import_module(package)
    names = [package] + sorted(m.name for m in pkgutil.walk_packages(root.__path__, package + ".")
                               if not any(part.startswith("_") for part in m.name.split(".")))
    print(f"# {package} {getattr(importlib.import_module('pyflink.version'), '__version__', '')}: public names and "
          "signatures, listed by")
    print(f"# PATH=/opt/pyflink-venv/bin:$PATH python tools/list_pyflink_api.py {package} (see that file for the rules)")
    for name in names:
        print("\n".join(module_lines(name, set(names))))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "pyflink.table")
