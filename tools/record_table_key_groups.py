"""Records tests/runtime/test_table_key_groups_pyflink.json: the subtask PyFlink 2.3 gives Table keys
of many types. One GROUP BY per key type at parallelism 2 into a print sink; the `name:n> ` prefix of
each group's row is its subtask. Every row is there twice, so that Flink cannot prove the keys unique
and drop the aggregation. Run where apache-flink is installed:
``PYFLINK_PYTHON=/path/to/python python tools/record_table_key_groups.py``.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

cases = {}  # name -> (sql type list, list of key value-tuples as SQL literal strings)
def add(name, types, values):
    cases[name] = (types, values)
S = lambda s: "'" + s.replace("'", "''") + "'"
strs = ["", "a", "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "abcdefg", "abcdefgh", "abcdefghijklmnop",
        "a longer string over sixteen bytes", "é", "日本語", "x" * 100, "hello world", "Flink", "Spark"] + [f"user_{i}" for i in range(20)]
add("string", ["STRING"], [[S(s)] for s in strs] + [["CAST(NULL AS STRING)"]])
add("varchar", ["VARCHAR(20)"], [[S(s)] for s in strs[:20]])
add("boolean", ["BOOLEAN"], [["TRUE"], ["FALSE"], ["CAST(NULL AS BOOLEAN)"]])
ints = [0, 1, -1, 2, 3, 5, 7, 10, 42, 100, 127, -128, 99, 55, 31, 64, 13, 17, 19, 23]
add("tinyint", ["TINYINT"], [[f"CAST({v} AS TINYINT)"] for v in ints] + [["CAST(NULL AS TINYINT)"]])
add("smallint", ["SMALLINT"], [[f"CAST({v} AS SMALLINT)"] for v in ints + [300, -32768, 32767, 1000, 12345]])
add("int", ["INT"], [[f"CAST({v} AS INT)"] for v in ints + [300, -32768, 2147483647, -2147483648, 1000000, 123456789]] + [["CAST(NULL AS INT)"]])
add("bigint", ["BIGINT"], [[f"CAST({v} AS BIGINT)"] for v in ints + [2**40, -2**40, 2**63 - 1, -2**63 + 1, 1700000000000, 123456789012]] + [["CAST(NULL AS BIGINT)"]])
floats = ["0.0", "-0.0", "1.5", "-2.25", "3.14", "1e10", "0.1", "100", "-7.75", "2.5e-3", "123456.789", "42", "9.99", "-1", "1", "6.5", "1e-30", "3e38"]
add("float", ["FLOAT"], [[f"CAST('{v}' AS FLOAT)"] for v in floats])
add("double", ["DOUBLE"], [[f"CAST('{v}' AS DOUBLE)"] for v in floats + ["1e300", "-1e-300"]])
decs = ["0", "1.23", "-1.23", "12345678.90", "0.01", "-0.01", "99999999.99", "42.00", "7.5", "3.14", "100", "-100", "0.5", "2.71", "55.55", "-12.34"]
add("decimal_10_2", ["DECIMAL(10, 2)"], [[f"CAST('{v}' AS DECIMAL(10, 2))"] for v in decs] + [["CAST(NULL AS DECIMAL(10, 2))"]])
add("decimal_18_0", ["DECIMAL(18, 0)"], [[f"CAST('{v}' AS DECIMAL(18, 0))"] for v in ["0", "1", "-1", "999999999999999999", "123456789012345678", "-5", "77", "1000"]])
bigdecs = decs + ["1234567890123456.7890", "-9999999999999999.9999", "0.0001"]
add("decimal_20_4", ["DECIMAL(20, 4)"], [[f"CAST('{v}' AS DECIMAL(20, 4))"] for v in bigdecs] + [["CAST(NULL AS DECIMAL(20, 4))"]])
add("decimal_38_10", ["DECIMAL(38, 10)"], [[f"CAST('{v}' AS DECIMAL(38, 10))"] for v in bigdecs + ["1234567890123456789012345678.0123456789", "-1234567890123456789012345678.0123456789", "128", "255", "-128", "-129"]])
dates = ["1970-01-01", "2024-01-01", "1900-05-05", "2000-02-29", "1969-12-31", "2038-01-19", "2024-06-15", "1999-12-31", "2010-10-10", "2025-03-01", "1980-07-04", "2030-11-11"]
add("date", ["DATE"], [[f"DATE '{v}'"] for v in dates] + [["CAST(NULL AS DATE)"]])
times = ["00:00:00", "12:34:56", "23:59:59", "01:02:03", "08:00:00", "17:45:30", "06:30:00", "10:10:10", "22:22:22", "13:00:01", "00:00:01", "15:15:15"]
add("time", ["TIME"], [[f"TIME '{v}'"] for v in times])
tss = ["2024-01-01 00:00:00", "2024-01-01 00:00:10.123", "1969-12-31 23:59:59.999", "1970-01-01 00:00:00", "2000-02-29 12:00:00.5",
       "2024-01-01 00:00:20", "2024-01-01 00:00:30", "1900-01-01 00:00:00", "2038-01-19 03:14:07", "2024-06-15 08:30:45.678", "2010-10-10 10:10:10.010", "1999-12-31 23:59:59.999"]
add("timestamp_3", ["TIMESTAMP(3)"], [[f"CAST('{v}' AS TIMESTAMP(3))"] for v in tss] + [["CAST(NULL AS TIMESTAMP(3))"]])
tss6 = tss + ["2024-01-01 00:00:00.123456", "1969-12-31 23:59:59.999999", "2024-01-01 00:00:00.000001", "2000-01-01 12:34:56.789012"]
add("timestamp_6", ["TIMESTAMP(6)"], [[f"CAST('{v}' AS TIMESTAMP(6))"] for v in tss6] + [["CAST(NULL AS TIMESTAMP(6))"]])
add("timestamp_9", ["TIMESTAMP(9)"], [[f"CAST('{v}' AS TIMESTAMP(9))"] for v in tss6 + ["2024-01-01 00:00:00.123456789", "1970-01-01 00:00:00.000000001"]])
add("timestamp_ltz_3", ["TIMESTAMP_LTZ(3)"], [[f"CAST(CAST('{v}' AS TIMESTAMP(3)) AS TIMESTAMP_LTZ(3))"] for v in tss])
add("timestamp_ltz_6", ["TIMESTAMP_LTZ(6)"], [[f"CAST(CAST('{v}' AS TIMESTAMP(6)) AS TIMESTAMP_LTZ(6))"] for v in tss6])
add("bytes", ["BYTES"], [[f"X'{h}'"] for h in ["", "00", "01", "0102", "ff", "deadbeef", "00112233445566", "0011223344556677", "000102030405060708090a0b0c0d0e0f10", "cafe", "babe", "7f", "80", "1234"]])
multi = [("'k0'", "1"), ("'k1'", "1"), ("'k1'", "2"), ("'abcdefghij'", "-5"), ("'x'", "NULL"), ("NULL", "7"), ("'k2'", "100"), ("'k3'", "3"), ("'k4'", "4"), ("'k5'", "5"), ("'long enough string'", "42"), ("'é'", "0")]
add("string_int", ["STRING", "INT"], [[f"CAST({a} AS STRING)", f"CAST({b} AS INT)"] for a, b in multi])
m3 = [("1", "2024-01-01 00:00:00.123456", "1.50", "'a'"), ("2", "2024-01-01 00:00:00", "-3.25", "'a longer one here'"), ("NULL", "1970-01-01 00:00:00.000001", "NULL", "'z'"),
      ("3", "NULL", "12345678901234567.89", "NULL"), ("4", "2000-02-29 12:00:00.5", "0.00", "'mid'"), ("5", "1999-12-31 23:59:59.999999", "7.77", "'k9'"),
      ("6", "2024-06-15 08:30:45.678", "100.01", "'some text that is long'"), ("7", "2010-10-10 10:10:10.01", "-0.01", "''"), ("8", "2038-01-19 03:14:07", "42.42", "'eight'"), ("9", "1900-01-01 00:00:00", "9.09", "'nine!!!'")]
add("multi4", ["BIGINT", "TIMESTAMP(6)", "DECIMAL(20, 2)", "STRING"],
    [[f"CAST({a} AS BIGINT)", f"CAST({'NULL' if b == 'NULL' else repr(b)} AS TIMESTAMP(6))", f"CAST({'NULL' if c == 'NULL' else repr(c)} AS DECIMAL(20, 2))", f"CAST({d} AS STRING)"] for a, b, c, d in m3])
add("bool_tinyint_double_date", ["BOOLEAN", "TINYINT", "DOUBLE", "DATE"],
    [[f"CAST({a} AS BOOLEAN)", f"CAST({b} AS TINYINT)", f"CAST({c} AS DOUBLE)", f"CAST({d} AS DATE)"] for a, b, c, d in
     [("TRUE", "1", "1.5", "'2024-01-01'"), ("FALSE", "2", "-2.5", "'1970-01-01'"), ("NULL", "3", "0.0", "'2000-01-01'"), ("TRUE", "NULL", "3.25", "NULL"),
      ("FALSE", "-7", "NULL", "'1999-12-31'"), ("TRUE", "9", "100.0", "'2030-06-06'"), ("FALSE", "11", "7.0", "'2011-11-11'"), ("TRUE", "12", "8.5", "'2012-12-12'"),
      ("FALSE", "13", "9.75", "'2013-01-13'"), ("TRUE", "14", "-1.0", "'1960-01-01'")]])

lines = ["from pyflink.table import EnvironmentSettings, TableEnvironment",
         "t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())",
         "t.get_config().set('parallelism.default', '2')",
         "t.get_config().set('table.local-time-zone', 'UTC')",
         "s = t.create_statement_set()"]
for name, (types, values) in cases.items():
    cols = ", ".join(f"k{i} {ty}" for i, ty in enumerate(types))
    lines.append(f"t.execute_sql(\"CREATE TABLE p_{name} ({cols}, id INT) WITH ('connector'='print', 'print-identifier'='{name}')\")")
    rows = ", ".join("(" + ", ".join(v) + f", {i})" for i, v in enumerate(values) for _ in range(2))
    keys = ", ".join(f"k{i}" for i in range(len(types)))
    q = f"INSERT INTO p_{name} SELECT {keys}, MIN(id) FROM (VALUES {rows}) AS v({keys}, id) GROUP BY {keys}"
    lines.append(f"t.execute_sql({q!r}).wait()")


with tempfile.TemporaryDirectory() as work:
    program = os.path.join(work, "figures.py")
    with open(program, "w") as f:
        f.write("\n".join(lines) + "\n")
    printed = subprocess.run([os.environ.get("PYFLINK_PYTHON", sys.executable), program], check=True,
                             capture_output=True, text=True).stdout.splitlines()
sub = {}
for line in printed:
    m = re.match(r"(\w+):(\d)> [+-][IU]\[.*, (\d+)\]$", line.strip())
    assert m, line  # -U/+U: keys equal in Flink (0.0 and -0.0), whose MIN(id) changed
    name, s, i = m.group(1), int(m.group(2)) - 1, int(m.group(3))
    assert sub.setdefault((name, i), s) == s
def text(lit):
    if re.fullmatch(r"CAST\(NULL AS .*\)|NULL", lit):
        return None
    m = re.fullmatch(r"X'([0-9a-f]*)'", lit)
    if m: return m.group(1)
    m = re.fullmatch(r"(?:DATE|TIME) '(.*)'", lit)
    if m: return m.group(1)
    m = re.search(r"CAST\('((?:[^']|'')*)' AS", lit)
    if m: return m.group(1).replace("''", "'")
    m = re.fullmatch(r"'((?:[^']|'')*)'", lit)
    if m: return m.group(1).replace("''", "'")
    m = re.fullmatch(r"CAST\(('(?:[^']|'')*'|-?[\d.]+|TRUE|FALSE) AS [A-Z]+(?:\([\d, ]+\))?\)", lit)
    if m:
        v = m.group(1)
        return v[1:-1].replace("''", "'") if v.startswith("'") else v
    if lit in ("TRUE", "FALSE"): return lit
    raise ValueError(lit)
out = []
for name, (types, values) in cases.items():
    for i, v in enumerate(values):
        if (name, i) not in sub:
            continue  # a duplicate key: its first id printed
        out.append({"case": name, "types": types, "key": [text(x) for x in v], "subtask": sub[(name, i)]})
print(len(out), len(sub))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "runtime",
                       "test_table_key_groups_pyflink.json"), "w") as f:
    f.write("[\n" + ",\n".join(json.dumps(o, ensure_ascii=False) for o in out) + "\n]\n")
