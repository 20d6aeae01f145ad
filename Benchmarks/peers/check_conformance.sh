#!/usr/bin/env bash
# Runs both grid peers (DuckDB SQL and GeoPandas/STRtree) on the three data.police.uk files with
# as-of 2018-07-31T23:59:59Z and radius 1000 m, at precision 7 and 6, and compares their CSVs
# byte for byte with the conformance results (the eleven grid columns). Also checks that the two
# peers' GeoJSON files carry the same features.
#
# Usage: check_conformance.sh [SHARED_DIR]
#   SHARED_DIR defaults to ../shared beside the repository (it holds data/police-uk/ and
#   conformance/). Set KEEP=DIR to keep the outputs in DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shared=${1:-$root/../shared}
data=$shared/data/police-uk
conf=$shared/conformance
py=${PYTHON:-python3}

inputs=("$data"/2016-07-west-yorkshire-street.csv "$data"/2017-07-west-yorkshire-street.csv
        "$data"/2018-07-west-yorkshire-street.csv)
for f in "${inputs[@]}"; do
  [ -r "$f" ] || { echo "missing input $f" >&2; exit 2; }
done

if [ -n "${KEEP:-}" ]; then
  out=$KEEP
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

fail=0
for p in 7 6; do
  expected=$conf/police-uk-grid-p$p-r1000.csv
  for peer in duckdb geopandas; do
    start=$(date +%s.%N)
    "$py" "$here/grid_$peer.py" --input "${inputs[@]}" --as-of 2018-07-31T23:59:59Z \
      --precision "$p" --radius 1000 --quiet \
      --out-csv "$out/$peer-p$p.csv" --out-geojson "$out/$peer-p$p.geojson"
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if cmp -s "$out/$peer-p$p.csv" "$expected"; then
      printf 'PASS  %-9s precision %s  %6d cells  %5.1f s\n' "$peer" "$p" \
        "$(($(wc -l < "$expected") - 1))" "$secs"
    else
      printf 'FAIL  %-9s precision %s  (diff of the first lines below)\n' "$peer" "$p"
      diff "$expected" "$out/$peer-p$p.csv" | head -20 || true
      fail=1
    fi
  done
  if "$py" - "$out/duckdb-p$p.geojson" "$out/geopandas-p$p.geojson" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
fa, fb = a["features"], b["features"]
same = len(fa) == len(fb) and all(
    x["properties"] == y["properties"] and x["geometry"] == y["geometry"] for x, y in zip(fa, fb))
sys.exit(0 if same else 1)
PY
  then
    echo "PASS  geojson   precision $p  duckdb and geopandas features identical"
  else
    echo "FAIL  geojson   precision $p  duckdb and geopandas features differ"
    fail=1
  fi
done
exit $fail
