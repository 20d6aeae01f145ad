"""The Spark job's failures read as one line (docs/RELIABILITY.md): the engine's message last and
alone, the JVM's log off, a refused report folder refused before Spark starts (exit 1), and an
--engine that is not areawatch named as such.

Only the last test starts Spark (as a user would, `python -m spark.areawatch_spark`); the others
fail before it, which is the point.
"""

import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, ROOT)

from spark import areawatch_spark  # noqa: E402

ENGINE = os.environ.get("AREAWATCH_ENGINE", os.path.join(ROOT, ".build", "debug", "areawatch"))
POLICE = os.path.join(ROOT, "datasets", "police-uk", "2018-07-calderdale-street.csv")
AS_OF = "2018-07-31T23:59:59Z"


def no_spark(monkeypatch):
    """Fails the test if the job gets as far as building a Spark session."""
    def refuse(builder):
        raise AssertionError("Spark was started")
    monkeypatch.setattr(areawatch_spark, "quiet_builder", refuse)


def test_failure_is_the_engines_last_line():
    progress = (b"areawatch: loading incidents\nareawatch: indexing\n"
                b"areawatch: x.csv: line 3: the file ends inside a quoted field\n")
    assert areawatch_spark._failure(["eng", "canonical"], 2, progress) == \
        "areawatch: x.csv: line 3: the file ends inside a quoted field"
    silent = areawatch_spark._failure(["/bin/false", "check-out"], 1, b"")
    assert silent == ("the engine /bin/false exited with status 1 in step check-out without a message: "
                      "is --engine an areawatch binary?")
    assert "killed by signal 9" in areawatch_spark._failure(["eng", "dedup"], -9, b"\n")
    error = RuntimeError("Py4JJavaError ... areawatch-engine-failed[3]: areawatch: too many rejects\n  at org.apache")
    assert areawatch_spark.engine_message(error) == "areawatch: too many rejects"
    assert areawatch_spark.engine_status(error) == 3
    assert areawatch_spark.engine_status(RuntimeError("areawatch-engine-failed[-9]: killed")) == 2


@pytest.mark.parametrize("option", [["--areas", "a.geojson"], ["--area-population", "population"],
                                    ["--near-repeat"]])
def test_report_only_options_refused(monkeypatch, capsys, option):
    """The scale-out job writes no areas (SPEC §15, §17): their options are refused, not ignored."""
    no_spark(monkeypatch)
    with pytest.raises(SystemExit) as exit_info:
        areawatch_spark.main(["--out", "out", "--as-of", AS_OF, POLICE] + option)
    assert exit_info.value.code == 2
    assert "unrecognized arguments: " + option[0] in capsys.readouterr().err


def test_engine_that_is_not_areawatch(monkeypatch, capsys, tmp_path):
    no_spark(monkeypatch)
    status = areawatch_spark.main(["--engine", "/bin/false", "--out", str(tmp_path / "out"), "--as-of", AS_OF, POLICE])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1
    assert err == ["areawatch-spark: the engine /bin/false exited with status 1 in step check-out without a message: "
                   "is --engine an areawatch binary?"]


def test_out_folder_refused_before_the_job(monkeypatch, capsys, tmp_path):
    if not os.access(ENGINE, os.X_OK):
        pytest.fail("no engine at %s: run `swift build --product areawatch` first" % ENGINE)
    no_spark(monkeypatch)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    status = areawatch_spark.main(["--engine", ENGINE, "--out", str(out), "--as-of", AS_OF, POLICE])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1
    assert len(err) == 1 and err[0].startswith("areawatch-spark: ") and str(out) in err[0], err
    assert sorted(os.listdir(out)) == ["notes.txt"] and (out / "notes.txt").read_text() == "keep me"
    # A folder holding an input is refused too.
    status = areawatch_spark.main(["--engine", ENGINE, "--out", os.path.dirname(POLICE), "--as-of", AS_OF, POLICE])
    assert status == 1 and "holds" in capsys.readouterr().err


def test_two_grids_refused_before_the_job(monkeypatch, capsys, tmp_path):
    """`--grid` and `--precision` naming different grids are refused as `report` refuses them
    (SPEC §18, exit 1) before Spark starts; naming the same grid twice is not."""
    if not os.access(ENGINE, os.X_OK):
        pytest.fail("no engine at %s: run `swift build --product areawatch` first" % ENGINE)
    no_spark(monkeypatch)
    common = ["--engine", ENGINE, "--out", str(tmp_path / "out"), "--as-of", AS_OF, POLICE]
    status = areawatch_spark.main(common + ["--grid", "h3:9", "--precision", "7"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1
    assert len(err) == 1 and "--grid h3:9 and --precision 7 name different grids" in err[0], err
    assert not os.path.exists(tmp_path / "out")
    status = areawatch_spark.main(common + ["--grid", "geohash:6", "--precision", "6"])
    assert status == 2 and "Spark was started" in capsys.readouterr().err


def test_engine_error_is_last_and_alone(tmp_path):
    pytest.importorskip("pyspark", reason="pyspark is not installed (make test-deps installs it)")
    if not os.access(ENGINE, os.X_OK):
        pytest.fail("no engine at %s: run `swift build --product areawatch` first" % ENGINE)
    bad = tmp_path / "cut.csv"
    bad.write_text('id,lat,lon,timestamp\n1,53.7,-1.8,2018-07-01T00:00:00Z\n2,53.7,-1.8,"2018-07')
    run = subprocess.run([sys.executable, "-m", "spark.areawatch_spark", "--engine", ENGINE, "--out",
                          str(tmp_path / "out"), "--as-of", AS_OF, POLICE, str(bad)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert run.returncode == 2, run.stderr[-3000:]
    assert lines and lines[-1].startswith("areawatch-spark: ") and "cut.csv" in lines[-1], run.stderr[-3000:]
    # Nothing of the JVM's: no log lines, no stack trace.
    assert len(lines) <= 2, run.stderr[-3000:]
    assert not any(word in run.stderr for word in ("WARN", "ERROR", "at org.apache", "Traceback")), run.stderr[-3000:]
    assert not os.path.exists(tmp_path / "out")
