# areawatch — build, test, run, benchmark.
# `make run` and `make test` are all a fresh Debian machine needs: they install missing system
# packages (apt-get, with sudo when not root) before building.

SWIFT        ?= swift
RELEASE_BIN  := .build/release/areawatch
# tzdata: the IANA zones of --timezone (see docs/DECISIONS.md).
RUNTIME_PKGS := libsqlite3-dev libspatialite-dev libsqlite3-mod-spatialite zlib1g-dev libzstd-dev tzdata
TEST_PKGS    := $(RUNTIME_PKGS) spatialite-bin gdal-bin python3-gdal chromium
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build install uninstall run serve web test test-asan format lint bench bench-nearrepeat bench-e2e bench-ab bench-serve bench-spark spark-deps bench-deps fuzz hostile hostile-rss hostile-serve peer-timezones screenshot deps test-deps clean

all: build

# Installs the Debian packages in $(1) that are not installed yet.
define ensure_packages
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing" >&2; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi
endef

deps:
	$(call ensure_packages,$(RUNTIME_PKGS))

# The PMTiles reader's tests build archives with the reference writer (PyPI pmtiles); the map
# check builds vector tiles with mapbox-vector-tile for a report without grid.pmtiles; every
# TileJSON is validated with jsonschema; pyarrow, GeoPandas and DuckDB read the GeoParquet outputs
# (SPEC §19) in the end-to-end tests, and GDAL (ogrinfo, ogr2ogr, python3-gdal's GeoPackage
# validator) reads grid.gpkg. Chromium and MapLibre (`web`) are for the map check in the tests
# (ServeMapTests: the fit, no seam at tile edges, a probe equal to `lookup`).
test-deps:
	$(call ensure_packages,$(TEST_PKGS))
	@python3 -c "import pmtiles.writer, mapbox_vector_tile, jsonschema" 2>/dev/null || python3 -m pip install -q --root-user-action=ignore pmtiles mapbox-vector-tile jsonschema
	@python3 -c "import pyarrow, geopandas, shapely, duckdb" 2>/dev/null || \
	  python3 -m pip install -q --root-user-action=ignore pyarrow geopandas shapely pyogrio duckdb

# MapLibre GL JS (BSD-3) for `areawatch serve`'s map, from the PyPI wheel of py-maplibregl (MIT),
# which ships maplibre-gl.js/.css 5.3.0; copied into .build-web/maplibre (not committed), the
# folder `serve` looks in by default (docs/FORMATS.md, "HTTP API (serve)").
MAPLIBRE_WHEEL := maplibre==0.3.6
WEB_DIR        := .build-web/maplibre

web: $(WEB_DIR)/maplibre-gl.js

$(WEB_DIR)/maplibre-gl.js:
	mkdir -p .build-web/wheel $(WEB_DIR)
	python3 -m pip download -q --no-deps $(MAPLIBRE_WHEEL) -d .build-web/wheel
	python3 -c "import glob, zipfile; z = zipfile.ZipFile(sorted(glob.glob('.build-web/wheel/maplibre-*.whl'))[-1]); \
	  [open('$(WEB_DIR)/' + n, 'wb').write(z.read('maplibre/srcjs/' + n)) for n in ('maplibre-gl.css', 'maplibre-gl.js')]"

# The bundled job's report served on http://127.0.0.1:8080/ (the map, lookups, tiles).
serve: run web
	$(RELEASE_BIN) serve reports/calderdale

# The Swift runtime and Foundation linked in: a run resolves none of their symbols at start and
# calls them directly (docs/PERFORMANCE.md). The system libraries (SQLite, SpatiaLite, zlib) stay
# shared.
build: deps
	$(SWIFT) build -c release --static-swift-stdlib --product areawatch

# The release binary on the PATH with its shell completions (ArgumentParser writes them) and the
# map's MapLibre files: `make install PREFIX=$$HOME/.local`. DESTDIR stages a package.
PREFIX  ?= /usr/local
INSTALL_BIN   = $(DESTDIR)$(PREFIX)/bin
INSTALL_SHARE = $(DESTDIR)$(PREFIX)/share
install: build web
	install -d $(INSTALL_BIN) $(INSTALL_SHARE)/bash-completion/completions $(INSTALL_SHARE)/zsh/site-functions \
	  $(INSTALL_SHARE)/fish/vendor_completions.d $(INSTALL_SHARE)/areawatch/maplibre
	install -m 755 $(RELEASE_BIN) $(INSTALL_BIN)/areawatch
	$(RELEASE_BIN) --generate-completion-script bash > $(INSTALL_SHARE)/bash-completion/completions/areawatch
	$(RELEASE_BIN) --generate-completion-script zsh > $(INSTALL_SHARE)/zsh/site-functions/_areawatch
	$(RELEASE_BIN) --generate-completion-script fish > $(INSTALL_SHARE)/fish/vendor_completions.d/areawatch.fish
	install -m 644 $(WEB_DIR)/maplibre-gl.js $(WEB_DIR)/maplibre-gl.css $(INSTALL_SHARE)/areawatch/maplibre
	@echo "installed $(INSTALL_BIN)/areawatch (serve's map: --web-dir $(PREFIX)/share/areawatch/maplibre)" >&2

uninstall:
	rm -f $(INSTALL_BIN)/areawatch $(INSTALL_SHARE)/bash-completion/completions/areawatch \
	  $(INSTALL_SHARE)/zsh/site-functions/_areawatch $(INSTALL_SHARE)/fish/vendor_completions.d/areawatch.fish
	rm -rf $(INSTALL_SHARE)/areawatch

# The nightly job on the bundled datasets: ingest datasets/ into reports/areawatch.db, write
# reports/calderdale; then the emerging-hot-spot job on the synthetic monthly city (SPEC §13 needs
# every month; datasets/synthetic-city/README.md), written to reports/synthetic-city.
run: build
	$(RELEASE_BIN) run --config areawatch.toml
	$(RELEASE_BIN) run --config calderdale-h3.toml
	$(RELEASE_BIN) run --config synthetic-city.toml

# The end-to-end tests run the debug `areawatch` binary: build it explicitly, then the tests.
# The terminal shows failures, skips (each says what would run it) and a line per test target;
# the whole test output is in .build/test-output.log.
# Then the scale-out tests (SPEC §15): pyspark in local mode against the same binary (pytest's
# status 5, "no tests collected", is not a failure; AREAWATCH_SPARK_FULL=1 runs the full matrix).
# First the code-shape checks: the Swift sources as swift-format writes them (`make lint`), raw
# memory (allocate, mmap, posix_memalign, unsafeBitCast) only in Sources/AreaWatchCore/Memory, and
# no function over 80 lines (Tools/code_metrics.py; docs/DECISIONS.md, "Memory" and "Style").
test: test-deps spark-deps web lint
	python3 Tools/code_metrics.py --check
	$(SWIFT) build --product areawatch
	$(SWIFT) build --build-tests
	python3 Tools/test_summary.py --log .build/test-output.log -- $(SWIFT) test --skip-build
	python3 -m pytest spark/tests -q -p no:cacheprovider; status=$$?; [ $$status -eq 0 ] || [ $$status -eq 5 ]

# The owned memory types (Sources/AreaWatchCore/Memory) and the buffers and tables built on them,
# tested under AddressSanitizer (out-of-bounds access, use after free, double free, leaks) in a
# build of their own in .build-asan/ (the whole test build: SwiftPM links every test target).
ASAN_TESTS ?= GrowableBufferTests|OpenAddressingTableTests|HugePageAllocationTests|TextNumberCacheTests|TextInternerTests|OwnedBuffersTests|KeyTableTests|ScannerPropertyTests|JSONFastPathPropertyTests|ParallelParseTests

test-asan: test-deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	$(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan --filter '$(ASAN_TESTS)'

# The scale-out job's runtime: a Java runtime from Debian (when there is no `java`), pyspark and
# pytest from PyPI.
spark-deps:
	@command -v java >/dev/null 2>&1 || { \
	  echo "installing system packages: default-jre-headless" >&2; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q default-jre-headless; }
	@python3 -c "import pyspark, pytest, h3" 2>/dev/null || python3 -m pip install -q --root-user-action=ignore pyspark pytest h3

# Each benchmark records its figures in .build-bench/results/; Tools/perf_table.py writes the results
# table of docs/PERFORMANCE.md and the README's figures from them.
bench: build bench-deps
	python3 Benchmarks/bench.py
	python3 Benchmarks/bench_serve.py
	python3 Benchmarks/bench_nearrepeat.py
	python3 Tools/perf_table.py

# The near-repeat table (SPEC §16) against the numpy + cKDTree peer, and at 1M in a 40 km city.
bench-nearrepeat: build bench-deps
	python3 Benchmarks/bench_nearrepeat.py
	python3 Tools/perf_table.py

# `serve` under load on loopback (wrk): lookups/s, latency percentiles, RSS growth over 1M requests.
bench-serve: build bench-deps
	python3 Benchmarks/bench_serve.py
	python3 Tools/perf_table.py

bench-e2e: build bench-deps
	python3 Benchmarks/bench_e2e.py

# Two builds side by side (a change's A/B): OLD is another build's binary, NEW defaults to this one.
# Parse, the ad-hoc job stage by stage, a bulk load and a night, alternating; prints new / old.
bench-ab: build bench-deps
	@test -n "$(OLD)" || { echo "usage: make bench-ab OLD=path/to/other/areawatch [NEW=path]" >&2; exit 1; }
	python3 Benchmarks/bench_ab.py $(OLD) $(NEW)

# The scale-out job on local[2] against one machine at 1M, 10M and 50M incidents, and the halo's
# copies per incident by shard precision (docs/SCALE-OUT.md). AREAWATCH_SPARK_SIZES picks sizes.
bench-spark: build spark-deps
	$(call ensure_packages,time)
	python3 Benchmarks/bench_spark.py
	python3 Tools/perf_table.py

# Peer tools of the benchmarks: the spatialite CLI from Debian, DuckDB and GeoPandas from PyPI; SciPy,
# statsmodels, esda, libpysal and pymannkendall for the statistics peers (Benchmarks/peers/stats_peers.py);
# h3 (h3-py) and SciPy for the H3 grid peer (Benchmarks/peers/grid_h3py.py).
bench-deps: test-deps
	$(call ensure_packages,spatialite-bin time wrk)
	@python3 -c "import duckdb, geopandas, shapely" 2>/dev/null || python3 -m pip install -q --root-user-action=ignore duckdb geopandas shapely pyogrio
	@python3 -c "import scipy, statsmodels, esda, libpysal, pymannkendall" 2>/dev/null || python3 -m pip install -q --root-user-action=ignore scipy statsmodels esda libpysal pymannkendall
	@python3 -c "import h3" 2>/dev/null || python3 -m pip install -q --root-user-action=ignore "h3>=4,<5"

# libFuzzer targets (docs/RELIABILITY.md): FuzzCSV, FuzzJSON, FuzzValues built with -sanitize=fuzzer,address
# into .build-fuzz/, each run for FUZZ_SECONDS (default 600) in turn; FUZZ_TARGETS picks some of
# csv json values.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= csv json values

fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) Fuzz/run.sh $(FUZZ_TARGETS)

# Hostile inputs at full size (docs/RELIABILITY.md): the ingest tests with a 2 GiB single-line CSV and
# 1 GiB member names / leading blanks / NDJSON lines, each ingested through the CLI under
# /usr/bin/time -v, peak RSS asserted (make test runs the same tests at 40-48 MiB).
hostile: test-deps
	$(call ensure_packages,time)
	$(SWIFT) build --build-tests
	AREAWATCH_HOSTILE_LARGE=1 $(SWIFT) test --skip-build --filter HostileInputTests

# Peak RSS of `areawatch ingest` (release) on every hostile input of Benchmarks/hostile_rss.py.
hostile-rss: build
	$(call ensure_packages,time)
	python3 Benchmarks/hostile_rss.py

# `serve` against hostile clients on loopback (docs/RELIABILITY.md): slow readers of a large file,
# idle and slow-loris sockets, a storm of malformed requests, oversized heads and bodies, HEAD
# against GET, and a server under `ulimit -n 64` beyond its connection cap; server RSS and
# descriptors asserted bounded and a probe answered throughout, in under two minutes.
hostile-serve: build
	python3 Benchmarks/hostile_serve.py

# Every zone of the system's tzdata read by areawatch (release) and by Python's zoneinfo: 1,000
# local times per zone, one `areawatch run` over all of them (Benchmarks/peers/timezones.py).
peer-timezones: build
	python3 Benchmarks/peers/timezones.py --binary $(RELEASE_BIN)

# report.html of the bundled job, rendered by headless Chromium for the README, and the map of
# `serve` (WebGL by SwiftShader) with a click answer checked against `lookup` (Benchmarks/map_check.py).
screenshot: run web
	$(call ensure_packages,chromium)
	mkdir -p docs/images
	chromium --headless --disable-gpu --no-sandbox --hide-scrollbars --window-size=1400,2400 \
	  --screenshot=docs/images/report.png file://$(CURDIR)/reports/calderdale/report.html
	python3 Benchmarks/map_check.py --out docs/images/map.png

# swift-format (part of the Swift toolchain) with the project's .swift-format: `make format`
# rewrites the sources in place, `make lint` fails on any line it would change.
SWIFT_FORMAT ?= swift-format
FORMATTED    := Sources Tests Package.swift

format:
	$(SWIFT_FORMAT) format --in-place --parallel --recursive $(FORMATTED)

lint:
	@command -v $(SWIFT_FORMAT) >/dev/null || { echo "swift-format is missing: it comes with the Swift toolchain (6.0 or later)"; exit 1; }
	$(SWIFT_FORMAT) lint --strict --parallel --recursive $(FORMATTED)

clean:
	rm -rf .build
