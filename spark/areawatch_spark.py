"""areawatch on Apache Spark (SPEC §15): the job of `areawatch report --input FILE…`, with the
engine's own steps run on the executors and the report written by the engine on the driver.

    python -m spark.areawatch_spark --out reports/spark --as-of 2018-07-31T23:59:59Z FILE…
    spark-submit spark/areawatch_spark.py --engine .build/release/areawatch --out … FILE…

The Python side is glue: it never looks inside a record. Every step is one engine process per
task, reading and writing the exchange files of docs/FORMATS.md, and Spark only moves those
files (as byte blobs) between tasks:

1. one task per input file: `areawatch canonical` → its records by key bucket + its ingest report;
2. a shuffle by key bucket, one `areawatch dedup` per partition → the winning record of each key,
   copied to its shard and to every shard within the radius (the halo);
3. a shuffle by shard, one `areawatch shard-grid` per partition → the cells each shard owns;
4. the cells collected on the driver, `areawatch merge-report` → the report folder.
"""

import argparse
import datetime
import json
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zlib

# Tags of the shuffled items: records of a key bucket, records of a shard, or a finished part
# (ingest reports, write counts, shard cells) on its way to the driver.
BUCKET, SHARD, PART = "b", "s", "p"


def _engine(name):
    """The engine binary on this executor: shipped with SparkContext.addFile / --files."""
    from pyspark import SparkFiles

    path = SparkFiles.get(name)
    if not os.access(path, os.X_OK):
        # Shipped files may lose their mode bits; a private executable copy fixes that.
        copy = os.path.join(tempfile.mkdtemp(prefix="areawatch-engine-"), name)
        shutil.copyfile(path, copy)
        os.chmod(copy, stat.S_IRWXU)
        path = copy
    return path


def _run(args):
    """Runs one engine step; its stdout, or an error carrying the engine's message. With
    AREAWATCH_SPARK_STATS set (a folder), appends the step's wall time and peak RSS there (the
    benchmark's per-executor memory figures)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(args, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if child.returncode != 0:
        message = _failure(args, child.returncode, stderr)
        raise RuntimeError("areawatch-engine-failed[%d]: %s" % (child.returncode, message))
    stats = os.environ.get("AREAWATCH_SPARK_STATS")
    if stats:
        line = {"step": args[1], "wall_s": round(time.monotonic() - started, 3), "engine_rss_mb": usage.ru_maxrss / 1024,
                "python_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "stdout": stdout.decode("utf-8", "replace").strip()}
        with open(os.path.join(stats, "steps-%d.jsonl" % os.getpid()), "a") as f:
            f.write(json.dumps(line) + "\n")
    return stdout.decode("utf-8", "replace")


def _failure(args, status, stderr):
    """One line saying why a step failed: the engine's own message is its last line on stderr
    (the lines before it are progress); an engine that says nothing is named with its status."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if lines:
        return lines[-1]
    if status < 0:
        return "the engine %s was killed by signal %d in step %s" % (args[0], -status, args[1])
    return ("the engine %s exited with status %d in step %s without a message: is --engine an areawatch binary?"
            % (args[0], status, args[1]))


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _partition(key):
    """Deterministic partitioning (independent of PYTHONHASHSEED): key buckets go round-robin,
    shards and parts by CRC-32 of their name."""
    tag, value = key
    if tag == BUCKET:
        return value
    return zlib.crc32(("%s:%s" % (tag, value)).encode("utf-8"))


def canonical_task(engine_name, buckets, reading_args):
    """Step 1 for one input: (index, path, None) for a path every executor can open, or
    (index, uri, bytes) for a file Spark read from object storage (`binaryFiles`), which is
    written to a local copy first and named by its URI."""
    def run(item):
        index, path, content = item
        with tempfile.TemporaryDirectory(prefix="areawatch-canonical-") as work:
            out = os.path.join(work, "out")
            args = [_engine(engine_name), "canonical", path, "--file-index", str(index), "--key-buckets", str(buckets),
                    "--out", out]
            if content is not None:
                # Keep the name's suffix: `.gz` decides decompression.
                local = os.path.join(work, "input-" + re.sub(r"[^A-Za-z0-9._-]", "_", path.rsplit("/", 1)[-1]))
                with open(local, "wb") as f:
                    f.write(content)
                args[2:3] = [local, "--name", path]
            _run(args + reading_args)
            for name in sorted(os.listdir(out)):
                data = _read(os.path.join(out, name))
                if name.endswith(".awr"):
                    yield (BUCKET, int(name[1:6])), ("%06d" % index, data)
                else:
                    yield (PART, "input-%06d.awi" % index), ("", data)
    return run


def _is_uri(path):
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", path) is not None


def dedup_task(engine_name, shard_precision, grid_args, radius):
    def run(items):
        with tempfile.TemporaryDirectory(prefix="areawatch-dedup-") as work:
            files = []
            for (tag, value), (sub, data) in items:
                if tag == PART:
                    yield (tag, value), (sub, data)
                    continue
                path = os.path.join(work, "b%05d-f%s.awr" % (value, sub))
                with open(path, "wb") as f:
                    f.write(data)
                files.append(path)
            if not files:
                return
            out = os.path.join(work, "out")
            _run([_engine(engine_name), "dedup", "--shard-precision", str(shard_precision)] + grid_args
                 + ["--radius", radius, "--out", out] + files)
            tag = "%08x" % zlib.crc32(os.path.basename(files[0]).encode())
            for name in sorted(os.listdir(out)):
                data = _read(os.path.join(out, name))
                if name.endswith(".awr"):
                    yield (SHARD, name[:-4]), (tag, data)
                else:
                    yield (PART, "counts-%s.awn" % tag), ("", data)
    return run


def shard_task(engine_name, grid_args, query_args):
    def run(items):
        with tempfile.TemporaryDirectory(prefix="areawatch-shard-") as work:
            shards = os.path.join(work, "in")
            os.mkdir(shards)
            count = 0
            for (tag, value), (sub, data) in items:
                if tag == PART:
                    yield value, data
                    continue
                with open(os.path.join(shards, "%s.%s-%d.awr" % (value, sub, count)), "wb") as f:
                    f.write(data)
                count += 1
            if not count:
                return
            out = os.path.join(work, "cells.awc")
            _run([_engine(engine_name), "shard-grid", "--in", shards] + grid_args + ["--out", out] + query_args)
            first = min(os.listdir(shards))
            yield "cells-%08x.awc" % zlib.crc32(first.encode()), _read(out)
    return run


def grid_options(precision=None, grid=None):
    """The engine options naming the grid (`--grid geohash:P|h3:R`, `--precision P`, both as given:
    the engine refuses a pair naming two grids, as `report` does; geohash:7 without either), and
    the finest shard precision it allows: a geohash grid's precision (a finer shard would split its
    cells), 12 for H3 (a cell belongs to the shard holding its centre, SPEC §18)."""
    if grid is None:
        precision = 7 if precision is None else precision
        return ["--precision", str(precision)], int(precision)
    system, _, number = str(grid).partition(":")
    finest = int(number) if system.lower() == "geohash" and number.isdigit() else 12
    return ["--grid", str(grid)] + ([] if precision is None else ["--precision", str(precision)]), finest


def run_job(spark, files, out, engine, *, partitions=2, shard_precision=4, precision=None, grid=None, reading_args=(),
            query_args=(), report_args=(), radius="1000", keep_parts=None):
    """Runs the whole job; returns the merge's stdout. `query_args` must hold an explicit --as-of
    (every task must see the same T). `grid` (`geohash:P` or `h3:R`) and `precision` as `grid_options`
    takes them."""
    if "--as-of" not in query_args:
        raise ValueError("query_args must hold --as-of")
    sc = spark.sparkContext
    engine = os.path.abspath(engine)
    engine_name = os.path.basename(engine)
    sc.addFile(engine)
    partitions = max(1, int(partitions))
    # A geohash shard finer than the grid's cells would split them: lowered to their precision.
    grid_args, finest = grid_options(precision, grid)
    shard_precision = min(int(shard_precision), finest)
    query_args = list(query_args) + ["--radius", radius]
    # Paths go to the engine as given (summary.json names them so): on a cluster, give paths or
    # URIs every executor can open.
    local = [(k, f, None) for k, f in enumerate(files) if not _is_uri(f)]
    inputs = sc.parallelize(local, max(1, min(len(local), partitions))) if local else sc.emptyRDD()
    # URIs (s3a://, gs://, hdfs://, file://): Spark's own file systems read them, one RDD per
    # file so that each keeps its position.
    for k, uri in ((k, f) for k, f in enumerate(files) if _is_uri(f)):
        inputs = inputs.union(sc.binaryFiles(uri, 1).map(lambda kv, k=k, uri=uri: (k, uri, kv[1])))
    records = inputs.flatMap(canonical_task(engine_name, partitions, list(reading_args)))
    shards = records.partitionBy(partitions, _partition) \
        .mapPartitions(dedup_task(engine_name, shard_precision, grid_args, radius))
    # The shards compute the box the tiles publish, which depends on the minimum cell count.
    report_args = list(report_args)
    cell_count = [report_args[i + 1] for i, a in enumerate(report_args[:-1]) if a == "--min-cell-count"]
    shard_args = query_args + ["--min-cell-count", cell_count[-1]] if cell_count else query_args
    parts = shards.partitionBy(partitions, _partition) \
        .mapPartitions(shard_task(engine_name, grid_args, shard_args)) \
        .collect()

    work = keep_parts or tempfile.mkdtemp(prefix="areawatch-merge-")
    os.makedirs(work, exist_ok=True)
    try:
        for name, data in parts:
            with open(os.path.join(work, name), "wb") as f:
                f.write(data)
        return _run([engine, "merge-report", "--parts", work] + grid_args + ["--out", out]
                    + query_args + list(report_args))
    finally:
        if not keep_parts:
            shutil.rmtree(work, ignore_errors=True)


def engine_message(error):
    """The engine's own one-line message inside a Spark failure, when there is one."""
    found = re.search(r"areawatch-engine-failed\[-?\d+\]: ([^\n]*)", str(error))
    return found.group(1) if found else None


def engine_status(error):
    """The exit status the failed engine step gave (SPEC §11), 2 when unknown."""
    found = re.search(r"areawatch-engine-failed\[(-?\d+)\]", str(error))
    status = int(found.group(1)) if found else 2
    return status if status in (1, 2, 3, 4) else 2


def check_out(engine, out, files, grid_args=()):
    """Before any work: the engine refuses a report folder it would not replace (exit 1, SPEC §8)
    and grid options naming two grids (exit 1, SPEC §18), and an --engine that is no areawatch
    binary fails here, not in the middle of the job."""
    _run([os.path.abspath(engine), "check-out", "--out", out] + list(grid_args) + ["--"]
         + [f for f in files if not _is_uri(f)])


# The JVM's own log (start-up notices, a failed task's stack traces) is turned off: a failure is
# reported as the engine's one-line message, last and alone. Applied when the JVM starts (the
# `python -m` path, through spark-submit's --conf), and by setLogLevel once it runs.
QUIET_LOG4J = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2-quiet.properties")


def quiet_builder(builder):
    option = "-Dlog4j2.configurationFile=file:" + QUIET_LOG4J
    return builder.config("spark.driver.extraJavaOptions", option) \
        .config("spark.executor.extraJavaOptions", option) \
        .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="areawatch-spark", description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", help="input files, in ingest order (later files win)")
    p.add_argument("--out", required=True, help="the report folder")
    p.add_argument("--engine", default=os.environ.get("AREAWATCH_ENGINE", ".build/release/areawatch"),
                   help="the areawatch binary, shipped to the executors")
    p.add_argument("--master", default=None, help="Spark master (default: spark-submit's, else local[2])")
    p.add_argument("--partitions", type=int, default=2, help="partitions of each shuffle (and key buckets)")
    p.add_argument("--shard-precision", type=int, default=4, help="geohash precision of the shards")
    # The options of `areawatch report` the scale-out job takes, passed through unchanged.
    p.add_argument("--as-of", help="ISO 8601; default: now, truncated to the second, fixed once for all tasks")
    p.add_argument("--radius", default="1000")
    p.add_argument("--thresholds")
    p.add_argument("--category", action="append", default=[])
    p.add_argument("--handled")
    p.add_argument("--precision", type=int, help="geohash precision of the grid (default 7): short for --grid geohash:P")
    p.add_argument("--grid", help="geohash:P or h3:R (SPEC §18); with --precision, both must name the same grid")
    p.add_argument("--tile-zooms")
    p.add_argument("--min-cell-count")
    p.add_argument("--attribution")
    p.add_argument("--format")
    p.add_argument("--column", action="append", default=[])
    p.add_argument("--delimiter")
    p.add_argument("--source")
    p.add_argument("--idless")
    return p.parse_args(argv)


def _options(args, names):
    out = []
    for name in names:
        value = getattr(args, name.replace("-", "_"))
        for v in value if isinstance(value, list) else [value]:
            if v is not None:
                out += ["--" + name, str(v)]
    return out


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.as_of is None:
        args.as_of = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        check_out(args.engine, args.out, args.files, grid_options(args.precision, args.grid)[0])
    except RuntimeError as error:
        print("areawatch-spark: " + (engine_message(error) or str(error)), file=sys.stderr)
        return engine_status(error)
    # Everything the JVM and Spark's Python workers print (start-up notices, log lines, a failed
    # task's traces) goes to a log file, not to the terminal: a failure is said in one line, last.
    log = tempfile.NamedTemporaryFile(prefix="areawatch-spark-", suffix=".log", delete=False)
    terminal = os.dup(2)
    sys.stderr.flush()
    os.dup2(log.fileno(), 2)
    failure = None
    try:
        text = _run_spark(args)
    except Exception as error:  # a failed task: show the engine's message, not a JVM trace
        failure = error
    finally:
        sys.stderr.flush()
        os.dup2(terminal, 2)
        os.close(terminal)
        log.close()
    if failure is None or engine_message(failure) is not None:
        os.unlink(log.name)
    if failure is None:
        print(text, end="")
        return 0
    if engine_message(failure) is None:
        first = (str(failure).strip().splitlines() or [type(failure).__name__])[0]
        print("areawatch-spark: Spark failed: %s (its log: %s)" % (first, log.name), file=sys.stderr)
        return 2
    print("areawatch-spark: " + engine_message(failure), file=sys.stderr)
    return engine_status(failure)


def _run_spark(args):
    """The job on a Spark session made here (quiet, local[2] unless told otherwise)."""
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    builder = quiet_builder(SparkSession.builder.appName("areawatch"))
    if args.master:
        builder = builder.master(args.master)
    elif not SparkConf().contains("spark.master"):  # spark-submit sets it; `python -m` does not
        builder = builder.master("local[2]")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    try:
        return run_job(spark, args.files, args.out, args.engine, partitions=args.partitions,
                       shard_precision=args.shard_precision, precision=args.precision, grid=args.grid,
                       radius=args.radius,
                       reading_args=_options(args, ["format", "column", "delimiter", "source", "idless"]),
                       query_args=_options(args, ["as-of", "thresholds", "category", "handled"]),
                       report_args=_options(args, ["tile-zooms", "min-cell-count", "attribution"]))
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
