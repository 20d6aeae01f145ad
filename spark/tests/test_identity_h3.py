"""SPEC §15 on H3 grids (SPEC §18): the Spark job with `--grid h3:R` writes the same bytes as
`areawatch report --grid h3:R` on the same files, for one partition and many, and shard precisions
2 to 5. Resolution 9 (cells of ~0.1 km², well inside a shard) and resolution 5 (cells of ~250 km²,
whose centre is often in another shard than some of their incidents) on generated data with
incidents on shard edges, at the boundary distances from H3 cell centres, across the antimeridian
near Fiji and near both poles; resolution 9 on the bundled data.

The generated points come from h3-py (the reference the engine's H3 is checked against).
"""

import os

import pytest

from test_identity import BUNDLED, ENGINE, assert_identical, single_machine

pytest.importorskip("pyspark", reason="pyspark is not installed (make test-deps installs it)")
pytest.importorskip("h3", reason="h3 is not installed (make spark-deps installs it)")

from spark.areawatch_spark import run_job  # noqa: E402
import edge_data  # noqa: E402


def run_grid_case(spark, scratch, name, files, grid, pairs, query, radius="1000", report=()):
    report = ["--tile-zooms", "8-12"] + list(report)
    expected = os.path.join(scratch, name + "-single")
    single_machine(files, expected, query + ["--radius", radius], ["--grid", grid] + report)
    for partitions, shard_precision in pairs:
        out = os.path.join(scratch, "%s-n%d-p%d" % (name, partitions, shard_precision))
        run_job(spark, files, out, ENGINE, partitions=partitions, shard_precision=shard_precision, grid=grid,
                radius=radius, query_args=query, report_args=report)
        assert_identical(expected, out)


def h3_files(scratch, name, resolution, seed):
    folder = os.path.join(scratch, name)
    os.makedirs(folder, exist_ok=True)
    return edge_data.write_files(folder, seed=seed, points=edge_data.h3_edge_points(resolution))


def test_h3_9_edges_match_one_machine(spark, scratch):
    files = h3_files(scratch, "h3-9-edges", 9, 17)
    run_grid_case(spark, scratch, "h3-9", files, "h3:9", [(1, 2), (3, 3), (8, 4), (3, 5)],
                  ["--as-of", edge_data.AS_OF])


def test_h3_5_edges_match_one_machine(spark, scratch):
    # Cells wider than the shards of precision 4 and 5: a cell's centre and some of its incidents
    # lie in different shards; the minimum cell count makes the published box count cells.
    files = h3_files(scratch, "h3-5-edges", 5, 18)
    run_grid_case(spark, scratch, "h3-5", files, "h3:5", [(1, 5), (3, 2), (8, 4)],
                  ["--as-of", edge_data.AS_OF], radius="1500", report=["--min-cell-count", "2"])


def test_h3_bundled_data_matches_one_machine(spark, scratch):
    run_grid_case(spark, scratch, "h3-bundled", BUNDLED, "h3:9", [(1, 4), (8, 5), (200, 2)],
                  ["--as-of", "2018-07-31T23:59:59Z"])
