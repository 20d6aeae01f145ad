"""The shared fixtures of the scale-out tests: one local Spark session and one scratch folder."""

import os
import shutil
import tempfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ENGINE = os.environ.get("AREAWATCH_ENGINE", os.path.join(ROOT, ".build", "debug", "areawatch"))


@pytest.fixture(scope="session")
def spark():
    if not os.access(ENGINE, os.X_OK):
        pytest.fail("no engine at %s: run `swift build --product areawatch` first" % ENGINE)
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("areawatch-tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def scratch():
    folder = tempfile.mkdtemp(prefix="areawatch-spark-tests-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
