"""Built-in array, map and row constructors and functions, and the JSON functions of the Table API and SQL
(json_value with types and ON EMPTY/ON ERROR, json_query, json_exists, is_json, json_string;
PyFlink's json_object, json_array, array_distinct, array_reverse and array_join fail before running), with their column types."""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expression import JsonType, JsonValueOnEmptyOrError
from pyflink.table.expressions import array, col, json_string, map_, row

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
docs = t_env.from_elements(
    [(1, '{"name": "Flink", "tel": 123, "tags": ["a", "b"], "addr": {"city": "Berlin"}, "ok": true, "x": null}', 'a,b,c'),
     (2, '{"name": "hello", "tel": 15, "tags": [], "addr": {"city": "Shanghai"}}', 'x'),
     (3, 'not json', '')],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.BIGINT()), DataTypes.FIELD('j', DataTypes.STRING()),
                   DataTypes.FIELD('s', DataTypes.STRING())]))
j, s = col('j'), col('s')
json = docs.select(
    col('id'), j.json_value('$.name'), j.json_value('$.tel'), j.json_value('$.tel', DataTypes.INT()),
    j.json_value('$.addr'), j.json_value('$.addr.city'),
    j.json_value('$.tags[1]'), j.json_value('$.ok', DataTypes.BOOLEAN()), j.json_value('$.x'),
    j.json_value('$.missing', DataTypes.STRING(), JsonValueOnEmptyOrError.DEFAULT, 'none'),
    j.json_value('strict $.name'), j.json_query('$.addr'), j.json_query('$.tags'), j.json_query('$.name'),
    j.json_exists('$.addr.city'), j.json_exists('$.x'), j.json_exists('$.nope'), j.is_json(),
    j.is_json(JsonType.OBJECT), s.is_json(JsonType.SCALAR), json_string(s))
json.print_schema()
json.execute().print()
collections = docs.select(
    col('id'), array(col('id'), 2, 3), array(col('id'), 2, 3).at(1), s.split(','), s.split(',').at(2),
    s.split(',').cardinality, map_('k', col('id'), 'v', 10), map_('k', col('id')).at('k'), row(col('id'), s),
    row(col('id'), s).get(1), s.split(',').array_contains('b'),
    s.split(',').array_position('b'), s.split(',').array_remove('a'),
    array(1, 2, 3).array_max(), array(1, 2, 3).array_min(),
    map_('a', 1, 'b', 2).map_keys, map_('a', 1, 'b', 2).map_values)
collections.print_schema()
collections.execute().print()
t_env.create_temporary_view('docs', docs)
t_env.execute_sql(
    "SELECT id, JSON_VALUE(j, '$.name'), JSON_QUERY(j, '$.addr'), JSON_EXISTS(j, '$.tel'), j IS JSON, "
    "ARRAY[id, 2], MAP['k', id], CARDINALITY(ARRAY[1, 2, 3]), SPLIT(s, ','), ROW(id, s) FROM docs").print()
