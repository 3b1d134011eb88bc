"""A word count over text files, printed or written to part files: the first Kindling job to run.

    python examples/word_count.py                       # examples/data/hamlet.txt, counts printed
    python examples/word_count.py --input a.txt --output out/

Built as PyFlink's own DataStream word_count example is (a FileSource read in BATCH mode at
parallelism 1; flat_map, map to (word, 1), key_by, reduce; print() or a row-format FileSink), but
not the same program: its default input is a file of Hamlet's text (PyFlink's is a list of lines
in the program); it lower-cases the words and splits at punctuation too (PyFlink's splits at white
space only, so "be," and "be" count apart there); its part files are counts-*.txt (PyFlink's:
prefix-*.ext); and it prints no usage lines. PyFlink's example itself runs unchanged through
`kindling run` (tools/compare_examples.py compares what both print).
"""
import argparse
import os

from kindling.common import Types, WatermarkStrategy
from kindling.common.serialization import Encoder
from kindling.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from kindling.datastream.connectors.file_system import FileSink, FileSource, OutputFileConfig, StreamFormat

DEFAULT_INPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "hamlet.txt")


def split(line: str):
    yield from line.lower().replace(",", " ").replace("-", " ").replace(";", " ").replace(":", " ").split()


def word_count(input_path: str, output_path: str | None) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(1)

    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), input_path) \
        .process_static_file_set().build()
    lines = env.from_source(source, WatermarkStrategy.no_watermarks(), "file_source")

    counts = lines.flat_map(split) \
        .map(lambda word: (word, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()])) \
        .key_by(lambda pair: pair[0]) \
        .reduce(lambda a, b: (a[0], a[1] + b[1]))

    if output_path:
        counts.sink_to(FileSink.for_row_format(output_path, Encoder.simple_string_encoder())
                       .with_output_file_config(OutputFileConfig.builder()
                                                .with_part_prefix("counts").with_part_suffix(".txt").build())
                       .build())
    else:
        counts.print()
    env.execute("word_count")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=DEFAULT_INPUT, help="a text file or a directory of them")
    parser.add_argument("--output", help="a directory to write the counts to (default: print them)")
    args = parser.parse_args()
    word_count(args.input, args.output)
