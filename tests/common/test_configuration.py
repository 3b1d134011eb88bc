import pytest

from kindling.common import ConfigOptions, Configuration


def test_typed_getters_and_setters():
    conf = Configuration()
    assert conf.set_string('s', 'v') is conf
    conf.set_integer('i', 3).set_float('f', 1.5).set_boolean('b', True).set_bytearray('y', bytearray(b'xy'))
    assert conf.get_string('s', 'd') == 'v'
    assert conf.get_integer('i', 0) == 3
    assert conf.get_float('f', 0.0) == 1.5
    assert conf.get_boolean('b', False) is True
    assert conf.get_bytearray('y', bytearray()) == bytearray(b'xy')
    assert conf.get_string('missing', 'd') == 'd'
    assert conf.get_integer('missing', 7) == 7
    assert conf.get_boolean('missing', False) is False


def test_values_parsed_from_strings():
    conf = Configuration.from_dict({'i': '42', 'f': '2.5', 'b': 'TRUE', 'x': 'nope'})
    assert conf.get_integer('i', 0) == 42
    assert conf.get_float('f', 0.0) == 2.5
    assert conf.get_boolean('b', False) is True
    assert conf.get_string('i', '') == '42'
    with pytest.raises(ValueError):
        conf.get_boolean('x', False)
    with pytest.raises(ValueError):
        conf.get_integer('x', 0)


def test_to_dict_key_set_contains_remove():
    conf = Configuration().set_integer('a', 1).set_boolean('b', False)
    assert conf.to_dict() == {'a': '1', 'b': 'false'}
    assert conf.key_set() == {'a', 'b'}
    assert conf.contains_key('a') and not conf.contains_key('c')
    assert conf.remove_config('a') is True
    assert conf.remove_config('a') is False
    assert conf.key_set() == {'b'}
    target = {'z': '0'}
    conf.add_all_to_dict(target)
    assert target == {'z': '0', 'b': 'false'}


def test_copy_and_add_all():
    base = Configuration().set_string('k', 'v')
    copy = Configuration(base)
    copy.set_string('k', 'w')
    assert base.get_string('k', '') == 'v'
    merged = Configuration().add_all(base).add_all(base, prefix='p.')
    assert merged.to_dict() == {'k': 'v', 'p.k': 'v'}
    assert Configuration(base) == base


def test_parse_list_value():
    assert Configuration.parse_list_value('a;b;c') == ['a', 'b', 'c']
    assert Configuration.parse_list_value('') == []
    assert Configuration.parse_list_value("'a;b';c") == ['a;b', 'c']
    assert Configuration.parse_list_value('"x""y";z') == ['x"y', 'z']


def test_config_options():
    opt = ConfigOptions.key('my.size').int_type().default_value(3)
    assert opt.key() == 'my.size' and opt.default_value() == 3
    conf = Configuration()
    assert conf.get(opt) == 3
    conf.set(opt, 5)
    assert conf.get(opt) == 5
    conf.set_string('my.size', '7')
    assert conf.get(opt) == 7
    flag = ConfigOptions.key('flag').boolean_type().no_default_value()
    assert conf.get(flag) is None
    conf.set_string('flag', 'true')
    assert conf.get(flag) is True
    assert ConfigOptions.key('s').string_type().default_value('x').default_value() == 'x'
