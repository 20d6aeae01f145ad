"""SPEC §15: the Spark job's outputs are byte-identical to `areawatch report --input` on the same
files, for any partition count and shard precision.

Runs pyspark in local mode (local[2]) against the debug engine that `make test` builds
(AREAWATCH_ENGINE overrides it). The default run covers partitions {1, 3, 8} × shard precision
{3, 4, 5} on the generated edge data (all 9 pairs) and the bundled data at two of them plus 200
partitions with shard precision 2, to stay
within the test budget on two cores; AREAWATCH_SPARK_FULL=1 runs all 9 pairs on the bundled data
too.
"""

import filecmp
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(__file__))

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (make test-deps installs it)")

from spark.areawatch_spark import run_job  # noqa: E402
import edge_data  # noqa: E402

ENGINE = os.environ.get("AREAWATCH_ENGINE", os.path.join(ROOT, ".build", "debug", "areawatch"))
FULL = os.environ.get("AREAWATCH_SPARK_FULL") == "1"
BUNDLED = [os.path.join(ROOT, "datasets", p) for p in (
    "police-uk/2016-07-calderdale-street.csv", "police-uk/2017-07-calderdale-street.csv",
    "police-uk/2018-07-calderdale-street.csv", "watchme/watchme-export-2018-07-31.json",
    "watchme/watchme-export-2018-08-01-edits.json")]
ALL_PAIRS = [(n, p) for n in (1, 3, 8) for p in (3, 4, 5)]


def single_machine(files, out, query, report):
    subprocess.run([ENGINE, "report", "--input", *files, "--out", out, "--quiet", *query, *report], check=True,
                   stdout=subprocess.DEVNULL)


def assert_identical(expected, actual):
    """Every file of the report folder byte for byte, but summary.json's timings."""
    names = ["grid.csv", "grid.csvt", "grid.geojson", "grid.parquet", "report.html"]
    names += [n for n in ("grid.pmtiles",) if os.path.exists(os.path.join(expected, n))]
    assert sorted(os.listdir(expected)) == sorted(os.listdir(actual))
    for name in names:
        assert filecmp.cmp(os.path.join(expected, name), os.path.join(actual, name), shallow=False), name
    compared = filecmp.dircmp(os.path.join(expected, "tiles"), os.path.join(actual, "tiles"))

    def same(d):
        assert not d.left_only and not d.right_only, (d.left_only, d.right_only)
        _, mismatch, errors = filecmp.cmpfiles(d.left, d.right, d.common_files, shallow=False)
        assert not mismatch and not errors, mismatch + errors
        for sub in d.subdirs.values():
            same(sub)
    same(compared)
    with open(os.path.join(expected, "summary.json")) as a, open(os.path.join(actual, "summary.json")) as b:
        one, many = json.load(a), json.load(b)
    one.pop("timings_s")
    many.pop("timings_s")
    assert one == many


def run_case(spark, scratch, name, files, precision, pairs, query, radius="1000"):
    report = ["--precision", str(precision), "--tile-zooms", "8-12"]
    expected = os.path.join(scratch, name + "-single")
    single_machine(files, expected, query + ["--radius", radius], report)
    for partitions, shard_precision in pairs:
        out = os.path.join(scratch, "%s-n%d-p%d" % (name, partitions, shard_precision))
        run_job(spark, files, out, ENGINE, partitions=partitions, shard_precision=shard_precision, precision=precision,
                radius=radius, query_args=query, report_args=report[2:])
        assert_identical(expected, out)


def test_generated_edges_match_one_machine(spark, scratch):
    folder = os.path.join(scratch, "edges")
    os.makedirs(folder, exist_ok=True)
    files = edge_data.write_files(folder, grid_precision=6)
    run_case(spark, scratch, "edges", files, 6, ALL_PAIRS, ["--as-of", edge_data.AS_OF])


def test_generated_edges_with_filters_match_one_machine(spark, scratch):
    # A filter applied after de-duplication: an edit that changes the category moves the key out.
    folder = os.path.join(scratch, "edges-filtered")
    os.makedirs(folder, exist_ok=True)
    files = edge_data.write_files(folder, grid_precision=6, seed=16)
    query = ["--as-of", edge_data.AS_OF, "--category", "burglary", "--category", "vehicle-crime", "--handled", "true"]
    run_case(spark, scratch, "filtered", files, 6, [(3, 5)], query, radius="1500")


def test_bundled_data_matches_one_machine(spark, scratch):
    # SPEC §15's own boundary: one partition or two hundred, shard precision 2 or 5.
    pairs = (ALL_PAIRS if FULL else [(1, 4), (8, 5)]) + [(200, 2)]
    run_case(spark, scratch, "bundled", BUNDLED, 7, pairs, ["--as-of", "2018-07-31T23:59:59Z"])


def test_engine_error_names_the_file(spark, scratch):
    bad = os.path.join(scratch, "cut.csv")
    with open(bad, "w") as f:
        f.write('id,lat,lon,timestamp\n1,53.7,-1.8,2018-07-01T00:00:00Z\n2,53.7,-1.8,"2018-07')
    with pytest.raises(Exception) as failure:
        run_job(spark, [BUNDLED[0], bad], os.path.join(scratch, "never"), ENGINE, partitions=2,
                query_args=["--as-of", edge_data.AS_OF])
    from spark.areawatch_spark import engine_message
    message = engine_message(failure.value)
    assert message is not None and "cut.csv" in message, str(failure.value)[:2000]
    assert not os.path.exists(os.path.join(scratch, "never"))


def test_uris_read_by_spark_match_one_machine(spark, scratch):
    # Inputs on object storage are read by Spark's file systems (file:// here, s3a:// on a
    # cluster) and named by their URI in the summary; everything else is the same bytes.
    expected = os.path.join(scratch, "bundled-uri-single")
    single_machine(BUNDLED, expected, ["--as-of", "2018-07-31T23:59:59Z"], ["--precision", "7"])
    out = os.path.join(scratch, "bundled-uri")
    uris = ["file://" + p for p in BUNDLED[:3]] + BUNDLED[3:]
    run_job(spark, uris, out, ENGINE, partitions=3, precision=7, query_args=["--as-of", "2018-07-31T23:59:59Z"])
    for name in ("grid.csv", "grid.geojson"):
        assert filecmp.cmp(os.path.join(expected, name), os.path.join(out, name), shallow=False), name
    with open(os.path.join(expected, "summary.json")) as a, open(os.path.join(out, "summary.json")) as b:
        one, many = json.load(a), json.load(b)
    assert [i["path"] for i in many["inputs"]] == uris
    # The rejects summary names each file with a reject as its input is named.
    assert [f["path"] for f in many["rejects"]["files"]] == [u for u in uris if any(
        f["path"] in (u, u.removeprefix("file://")) for f in one["rejects"]["files"])]
    for summary in (one, many):
        for key in ("timings_s", "files"):
            summary.pop(key)
        for i in summary["inputs"]:
            i.pop("path")
        for f in summary["rejects"]["files"]:
            f.pop("path")
    assert one == many
