"""How Kindling refuses what PyFlink has and Kindling does not: marked methods, missing
package names, missing modules."""
from __future__ import annotations

import types

import pytest

from kindling.common.unsupported import (NotSupportedYetError, UnsupportedAttributeError, UnsupportedError,
                                         missing_module, missing_names, unsupported, unsupported_reason)


def test_marked_method_keeps_its_signature_docs_and_refuses_with_the_reason():
    class Env:
        @unsupported("use add_python_file")
        def add_python_archive(self, archive_path: str, target_dir: str = None) -> None:
            """Adds an archive."""

    with pytest.raises(UnsupportedError) as info:
        Env().add_python_archive("a.zip")
    assert str(info.value) == "Env.add_python_archive is not supported by Kindling yet: use add_python_file"
    assert Env.add_python_archive.__doc__ == "Adds an archive."
    assert unsupported_reason(Env.add_python_archive) == "use add_python_file"
    assert unsupported_reason(Env) is None


def test_marked_constructor_names_the_class():
    class JavaThing:
        @unsupported("Java only")
        def __init__(self, j_object=None):
            pass

    with pytest.raises(UnsupportedError, match=r"^JavaThing is not supported by Kindling yet: Java only$"):
        JavaThing()


def _module_with_missing_names():
    module = types.ModuleType("fake.pkg")
    module.__getattr__ = missing_names("fake.pkg", {"KafkaSource": "the Kafka connector is still to come"})
    import sys
    sys.modules["fake.pkg"] = module
    return module


def test_missing_name_fails_from_import_with_its_reason_and_reads_as_a_missing_attribute():
    module = _module_with_missing_names()
    try:
        with pytest.raises(NotSupportedYetError, match=r"^fake.pkg.KafkaSource is not supported by Kindling yet: "
                                                       r"the Kafka connector is still to come$"):
            exec("from fake.pkg import KafkaSource", {})
        assert not hasattr(module, "KafkaSource")
        assert getattr(module, "KafkaSource", None) is None
        with pytest.raises(UnsupportedAttributeError, match="the Kafka connector is still to come"):
            module.KafkaSource
        with pytest.raises(AttributeError, match="has no attribute 'Other'"):
            module.Other
    finally:
        import sys
        del sys.modules["fake.pkg"]


def test_missing_module_is_a_module_not_found_error_naming_the_module():
    with pytest.raises(NotSupportedYetError) as info:
        missing_module("kindling.table", "the Table API is still to come")
    assert isinstance(info.value, ModuleNotFoundError)
    assert info.value.name == "kindling.table"
    assert str(info.value) == "kindling.table is not supported by Kindling yet: the Table API is still to come"
