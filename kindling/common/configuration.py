"""A plain-dict ``Configuration`` and typed ``ConfigOption`` keys."""
from typing import Any, Dict, Generic, List, Optional, Set, TypeVar

__all__ = ['Configuration', 'ConfigOption', 'ConfigOptions', 'positive_integer']

T = TypeVar('T')


def _to_str(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode('latin-1')
    return str(value)


class ConfigOption(Generic[T]):
    """A configuration key with a value type and an optional default value."""

    def __init__(self, key: str, value_type: type = str, default_value: Optional[T] = None,
                 description: str = '', fallback_keys: Optional[List[str]] = None) -> None:
        self._key = key
        self._type = value_type
        self._default_value = default_value
        self._description = description
        self._fallback_keys = list(fallback_keys or [])

    def key(self) -> str:
        return self._key

    def default_value(self) -> Optional[T]:
        return self._default_value

    def has_default_value(self) -> bool:
        return self._default_value is not None

    def description(self) -> str:
        return self._description

    def value_type(self) -> type:
        return self._type

    def with_description(self, description: str) -> 'ConfigOption[T]':
        return ConfigOption(self._key, self._type, self._default_value, description, self._fallback_keys)

    def with_fallback_keys(self, *fallback_keys: str) -> 'ConfigOption[T]':
        return ConfigOption(self._key, self._type, self._default_value, self._description,
                            self._fallback_keys + list(fallback_keys))

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, ConfigOption) and self._key == other._key
                and self._default_value == other._default_value)

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return 'Key: %r, default: %r' % (self._key, self._default_value)


class ConfigOptions(object):
    """Builds :class:`ConfigOption` objects.

    Example: ``ConfigOptions.key('my.size').int_type().default_value(3)``.
    """

    class TypedConfigOptionBuilder(Generic[T]):
        def __init__(self, key: str, value_type: type) -> None:
            self._key = key
            self._type = value_type

        def default_value(self, value: T) -> ConfigOption[T]:
            return ConfigOption(self._key, self._type, value)

        def no_default_value(self) -> ConfigOption[T]:
            return ConfigOption(self._key, self._type, None)

    class OptionBuilder(object):
        def __init__(self, key: str) -> None:
            self._key = key

        def boolean_type(self) -> 'ConfigOptions.TypedConfigOptionBuilder[bool]':
            return ConfigOptions.TypedConfigOptionBuilder(self._key, bool)

        def int_type(self) -> 'ConfigOptions.TypedConfigOptionBuilder[int]':
            return ConfigOptions.TypedConfigOptionBuilder(self._key, int)

        def long_type(self) -> 'ConfigOptions.TypedConfigOptionBuilder[int]':
            return ConfigOptions.TypedConfigOptionBuilder(self._key, int)

        def float_type(self) -> 'ConfigOptions.TypedConfigOptionBuilder[float]':
            return ConfigOptions.TypedConfigOptionBuilder(self._key, float)

        def double_type(self) -> 'ConfigOptions.TypedConfigOptionBuilder[float]':
            return ConfigOptions.TypedConfigOptionBuilder(self._key, float)

        def string_type(self) -> 'ConfigOptions.TypedConfigOptionBuilder[str]':
            return ConfigOptions.TypedConfigOptionBuilder(self._key, str)

    @staticmethod
    def key(key: str) -> 'ConfigOptions.OptionBuilder':
        if not key:
            raise ValueError("key must not be empty")
        return ConfigOptions.OptionBuilder(key)


class Configuration(object):
    """A string-keyed set of configuration values, backed by a plain dict.

    Example::

        >>> conf = Configuration().set_integer('parallelism.default', 4)
        >>> conf.get_integer('parallelism.default', 1)
        4
    """

    def __init__(self, other: Optional['Configuration'] = None, j_configuration: Any = None) -> None:
        self._data: Dict[str, Any] = dict(other._data) if other is not None else {}

    def get_string(self, key: str, default_value: str) -> str:
        value = self._data.get(key)
        return default_value if value is None else _to_str(value)

    def set_string(self, key: str, value: str) -> 'Configuration':
        self._data[key] = value
        return self

    def get_integer(self, key: str, default_value: int) -> int:
        value = self._data.get(key)
        if value is None:
            return default_value
        if isinstance(value, bool):
            raise ValueError("value of %r is a boolean, not an integer" % key)
        return int(value)

    def set_integer(self, key: str, value: int) -> 'Configuration':
        self._data[key] = int(value)
        return self

    def get_float(self, key: str, default_value: float) -> float:
        value = self._data.get(key)
        return default_value if value is None else float(value)

    def set_float(self, key: str, value: float) -> 'Configuration':
        self._data[key] = float(value)
        return self

    def get_boolean(self, key: str, default_value: bool) -> bool:
        value = self._data.get(key)
        if value is None:
            return default_value
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text == 'true':
            return True
        if text == 'false':
            return False
        raise ValueError("value %r of %r is not a boolean" % (value, key))

    def set_boolean(self, key: str, value: bool) -> 'Configuration':
        self._data[key] = bool(value)
        return self

    def get_bytearray(self, key: str, default_value: bytearray) -> bytearray:
        value = self._data.get(key)
        if value is None:
            return default_value
        if isinstance(value, str):
            return bytearray(value.encode('latin-1'))
        return bytearray(value)

    def set_bytearray(self, key: str, value: bytearray) -> 'Configuration':
        self._data[key] = bytes(value)
        return self

    def get(self, option: ConfigOption, default_value: Any = None) -> Any:
        """The value of a :class:`ConfigOption` (or key), converted to the option's type."""
        if isinstance(option, str):
            value = self._data.get(option)
            return default_value if value is None else value
        for key in [option.key()] + option._fallback_keys:
            value = self._data.get(key)
            if value is not None:
                if option.value_type() is bool:
                    return self.get_boolean(key, False)
                return option.value_type()(value)
        return option.default_value() if default_value is None else default_value

    def set(self, option: Any, value: Any) -> 'Configuration':
        key = option if isinstance(option, str) else option.key()
        self._data[key] = value
        return self

    def key_set(self) -> Set[str]:
        return set(self._data)

    def add_all_to_dict(self, target_dict: Dict) -> None:
        target_dict.update(self.to_dict())

    def add_all(self, other: 'Configuration', prefix: Optional[str] = None) -> 'Configuration':
        if prefix is None:
            self._data.update(other._data)
        else:
            for k, v in other._data.items():
                self._data[prefix + k] = v
        return self

    def contains_key(self, key: str) -> bool:
        return key in self._data

    def to_dict(self) -> Dict[str, str]:
        return {k: _to_str(v) for k, v in self._data.items()}

    @classmethod
    def from_dict(cls, map: Dict[str, str]) -> 'Configuration':
        conf = cls()
        conf._data.update({str(k): v for k, v in map.items()})
        return conf

    def remove_config(self, key: str) -> bool:
        return self._data.pop(key, None) is not None

    def remove_key(self, key: str) -> bool:
        return self.remove_config(key)

    @staticmethod
    def parse_list_value(value: str) -> List[str]:
        """Splits a ``;``-separated list; items may be quoted with ``'`` or ``"`` (a doubled quote
        inside stands for one), as Flink's list options are."""
        items: List[str] = []
        i, n = 0, len(value)
        while i <= n:
            while i < n and value[i].isspace():
                i += 1
            if i < n and value[i] in '\'"':
                quote = value[i]
                i += 1
                buf = []
                while i < n:
                    if value[i] == quote:
                        if i + 1 < n and value[i + 1] == quote:
                            buf.append(quote)
                            i += 2
                            continue
                        i += 1
                        break
                    buf.append(value[i])
                    i += 1
                else:
                    raise ValueError("unterminated quote in %r" % value)
                while i < n and value[i].isspace():
                    i += 1
                if i < n and value[i] != ';':
                    raise ValueError("unexpected %r after a quoted item in %r" % (value[i], value))
                items.append(''.join(buf))
            else:
                j = value.find(';', i)
                if j < 0:
                    j = n
                items.append(value[i:j].strip())
                i = j
            i += 1
        if items == ['']:
            return []
        return items

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Configuration) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(frozenset(self.to_dict().items()))

    def __repr__(self) -> str:
        return 'Configuration(%r)' % self.to_dict()


def positive_integer(configuration: Any, key: str, default: int) -> int:
    """The integer at ``key``; as PyFlink, the default where it is not positive."""
    text = configuration.get_string(key, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{key} must be a whole number, got {text!r}: set it to e.g. '{default}'") from None
    return value if value > 0 else default


def map_value(configuration: Any, key: str) -> Dict[str, str]:
    """The map at ``key`` in Flink's notation (``"k1:v1,k2:v2"``, such as ``pipeline.global-job-parameters``)."""
    text = configuration.get_string(key, "").strip()
    entries = {}
    for entry in filter(None, (e.strip() for e in text.split(","))):
        name, colon, value = entry.partition(":")
        if not colon or not name.strip():
            raise ValueError(f"{key} must be entries 'key:value' separated by commas, got {text!r}")
        entries[name.strip()] = value.strip()
    return entries
