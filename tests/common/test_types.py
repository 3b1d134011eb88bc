import copy
import pickle

import cloudpickle
import pytest

from kindling.common import Row, RowKind


def test_positional_row():
    row = Row(1, 'a')
    assert row[0] == 1 and row[1] == 'a'
    assert row[-1] == 'a'
    assert row[0:2] == [1, 'a']
    assert len(row) == 2
    assert list(row) == [1, 'a']
    assert repr(row) == "<Row(1, 'a')>"
    assert str(row) == "<Row(1, 'a')>"


def test_named_row_sorts_keyword_fields_like_pyflink():
    row = Row(name='Alice', age=11)
    assert repr(row) == "Row(age=11, name='Alice')"
    assert list(row) == [11, 'Alice']
    assert row.name == 'Alice' and row['age'] == 11 and row[1] == 'Alice'
    assert Row(id=1, name='a') == Row(name='a', id=1)
    assert repr(Row(id=1, name='a')) == "Row(id=1, name='a')"


def test_contains_searches_values():
    row = Row(name='Alice', age=11)
    assert 'Alice' in row
    assert 'name' not in row


def test_unknown_names():
    row = Row(a=1)
    with pytest.raises(AttributeError):
        row.b
    with pytest.raises(ValueError):
        row['b']
    with pytest.raises(AttributeError):
        Row(1)._private
    with pytest.raises(AttributeError):
        row.a = 3


def test_setitem():
    row = Row(a=1, b=2)
    row['b'] = 5
    row[0] = 4
    assert row == Row(a=4, b=5)


def test_row_class():
    Person = Row('name', 'age')
    assert repr(Person) == "<Row('name', 'age')>"
    alice = Person('Alice', 11)
    assert repr(alice) == "Row(name='Alice', age=11)"
    assert alice.name == 'Alice' and alice.age == 11
    assert alice.as_dict() == {'name': 'Alice', 'age': 11}
    with pytest.raises(ValueError):
        Person('a', 1, 2)


def test_args_and_kwargs_together_rejected():
    with pytest.raises(ValueError):
        Row(1, a=2)


def test_as_dict():
    row = Row(key=1, value=Row(name='a', age=2), items=[Row(x=1)], m={'k': Row(y=2)})
    assert row.as_dict() == {'key': 1, 'value': Row(age=2, name='a'), 'items': [Row(x=1)],
                             'm': {'k': Row(y=2)}}
    assert row.as_dict(recursive=True) == {'key': 1, 'value': {'name': 'a', 'age': 2},
                                           'items': [{'x': 1}], 'm': {'k': {'y': 2}}}
    with pytest.raises(TypeError):
        Row(1, 2).as_dict()


def test_field_names():
    row = Row(1, 'a')
    row.set_field_names(['id', 'name'])
    assert row.id == 1 and row['name'] == 'a'
    assert repr(row) == "Row(id=1, name='a')"
    assert row.get_fields_by_names(['name', 'id']) == ['a', 1]
    with pytest.raises(KeyError):
        row.get_fields_by_names(['nope'])


def test_equality_and_hash():
    assert Row(1, 'a') == Row(1, 'a')
    assert Row(1, 'a') != Row(1, 'b')
    assert Row(a=1) != Row(b=1)
    assert Row(1) != Row(a=1)
    assert Row(1, 2) != (1, 2)
    assert hash(Row(1, 'a')) == hash(Row(1, 'a')) == hash((1, 'a'))
    assert len({Row(a=1), Row(a=1)}) == 1


def test_row_kind():
    row = Row(1)
    assert row.get_row_kind() == RowKind.INSERT
    deleted = Row.of_kind(RowKind.DELETE, 1)
    assert deleted.get_row_kind() == RowKind.DELETE
    assert deleted != row
    row.set_row_kind(RowKind.DELETE)
    assert row == deleted
    assert Row.of_kind(RowKind.UPDATE_AFTER, a=1).a == 1
    assert [k.value for k in RowKind] == [0, 1, 2, 3]
    assert RowKind.UPDATE_BEFORE.short_string() == '-U'


@pytest.mark.parametrize('dumps', [pickle.dumps, cloudpickle.dumps])
def test_pickling(dumps):
    for row in [Row(1, 'a'), Row(id=1, name=Row(x=[1, 2])), Row.of_kind(RowKind.DELETE, a=1),
                Row('name', 'age')]:
        back = pickle.loads(dumps(row))
        assert back == row
        assert repr(back) == repr(row)
        assert back.get_row_kind() == row.get_row_kind()
    assert copy.deepcopy(Row(a=[1])) == Row(a=[1])
