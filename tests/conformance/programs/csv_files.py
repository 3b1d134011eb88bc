"""CSV files read by FileSource (CsvReaderFormat, header, quotes), transformed, written by a
row-format FileSink, and the part files' lines printed.
# conformance: sorted (parallel file splits)
"""
import os
import tempfile

from pyflink.common import Types, WatermarkStrategy
from pyflink.common.serialization import Encoder
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.connectors.file_system import FileSink, FileSource, OutputFileConfig
from pyflink.datastream.formats.csv import CsvReaderFormat, CsvSchema

directory = tempfile.mkdtemp()
os.makedirs(os.path.join(directory, "in"))
with open(os.path.join(directory, "in", "a.csv"), "w") as f:
    f.write('id,name,city\n1,ann,"Paris, FR"\n2,,Oslo\n3,"bo ""the"" one",Rome\n')
with open(os.path.join(directory, "in", "b.csv"), "w") as f:
    f.write("id,name,city\n4,cy,Lima\n")

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
schema = (CsvSchema.builder().add_number_column("id").add_string_column("name").add_string_column("city")
          .set_use_header().build())
source = FileSource.for_record_stream_format(CsvReaderFormat.for_schema(schema), os.path.join(directory, "in")).build()
rows = env.from_source(source, WatermarkStrategy.no_watermarks(), "csv")
out = os.path.join(directory, "out")
rows.map(lambda r: f"{r['id'] * 10}|{r['name'].upper()}|{r['city']}", output_type=Types.STRING()) \
    .sink_to(FileSink.for_row_format(out, Encoder.simple_string_encoder())
             .with_output_file_config(OutputFileConfig("part", ".txt")).build())
env.execute("csv_files")
for root, _, files in os.walk(out):
    for name in files:
        if not name.startswith("."):
            with open(os.path.join(root, name)) as f:
                for line in f.read().splitlines():
                    print(line)
