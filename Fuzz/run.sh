#!/usr/bin/env bash
# Builds the libFuzzer targets (FuzzCSV, FuzzJSON, FuzzValues) with AddressSanitizer and runs
# each in turn for FUZZ_SECONDS (default 600), one fuzzer process at a time.
#
#   Fuzz/run.sh                        all three targets, 600 s each
#   FUZZ_SECONDS=60 Fuzz/run.sh json   one target, one minute
#   FUZZ_SKIP_BUILD=1 Fuzz/run.sh      run the binaries already in .build-fuzz
#
# Work files live under .build-fuzz/ (git-ignored): the growing corpus per target, crash and
# hang artifacts, and the libFuzzer log. Seeds: Fuzz/corpus/<target>/ (small, hand-made and
# minimised) plus samples cut from datasets/. A crash, a hang (-timeout) or a failed invariant
# stops the target; its input is in .build-fuzz/artifacts/<target>/ and replays with
#   swift run FuzzCSV .build-fuzz/artifacts/csv/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${FUZZ_SECONDS:-600}
targets=${*:-csv json values}
scratch=${FUZZ_SCRATCH:-.build-fuzz}
sanitizers=${FUZZ_SANITIZERS:-fuzzer,address}
swift=${SWIFT:-swift}

product() {
  case $1 in csv) echo FuzzCSV ;; json) echo FuzzJSON ;; values) echo FuzzValues ;;
    *) echo "unknown target $1 (csv, json, values)" >&2; exit 1 ;; esac
}

max_len() {
  case $1 in values) echo 1024 ;; *) echo 16384 ;; esac
}

# Seeds cut from the bundled datasets: whole small files, and valid prefixes of the large ones.
dataset_seeds() {
  local target=$1 dir=$2
  case $target in
    csv)
      for f in datasets/police-uk/*.csv datasets/poi.csv; do
        [ -f "$f" ] && head -n 40 "$f" > "$dir/dataset-$(basename "$f")"
      done ;;
    json)
      [ -f datasets/areas/calderdale-areas.geojson ] && cp datasets/areas/calderdale-areas.geojson "$dir/dataset-areas.geojson"
      for f in datasets/watchme/watchme-export-*.json; do
        [ -f "$f" ] || continue
        # The first posts of the export, closed again: a valid, small WatchMe export.
        python3 - "$f" "$dir/dataset-$(basename "$f")" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
posts = dict(list(doc.get("posts", {}).items())[:12])
small = {"posts": posts}
for k in ("users", "users-posts"):
    if k in doc: small[k] = dict(list(doc[k].items())[:2])
json.dump(small, open(sys.argv[2], "w"), separators=(",", ":"))
EOF
      done ;;
    values)
      # Real coordinate and time texts from the police data: lat 0x1F lon 0x1F time.
      python3 - "$dir" datasets/police-uk/*.csv <<'EOF'
import csv, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    rows = list(csv.DictReader(open(path, newline="")))[:4]
    for n, r in enumerate(rows):
        seed = "\x1f".join([r.get("Latitude", ""), r.get("Longitude", ""), r.get("Month", "")])
        open(f"{out}/dataset-{path.split('/')[-1]}-{n}", "w").write(seed)
EOF
      ;;
  esac
}

for target in $targets; do
  name=$(product "$target")
  if [ -z "${FUZZ_SKIP_BUILD:-}" ]; then
    echo "== building $name (sanitizers: $sanitizers)"
    "$swift" build -c release --scratch-path "$scratch" \
      -Xswiftc "-sanitize=$sanitizers" -Xswiftc -DFUZZING --product "$name"
  fi
  binary="$root/$scratch/release/$name"
  corpus="$root/$scratch/corpus/$target"
  artifacts="$root/$scratch/artifacts/$target"
  work="$root/$scratch/run/$target"
  mkdir -p "$corpus" "$artifacts" "$work"
  cp -n Fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  dataset_seeds "$target" "$corpus"
  # The full bundled files once each (libFuzzer runs file arguments as single inputs).
  case $target in
    csv) full=(datasets/police-uk/*.csv) ;; json) full=(datasets/watchme/*.json datasets/areas/*.geojson) ;; *) full=() ;;
  esac
  if [ ${#full[@]} -gt 0 ]; then
    echo "== replaying ${#full[@]} bundled dataset files through $name"
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} \
      "$binary" "${full[@]}" -timeout=60 -rss_limit_mb=4096 2>&1 | grep -E "^(Running|Executed)" || true
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "!! $name failed on a bundled dataset file" >&2; exit 1; }
  fi
  echo "== fuzzing $name for $seconds s (corpus $corpus, $(ls "$corpus" | wc -l) inputs)"
  # -jobs=1 runs the fuzzer in one child process whose output goes to fuzz-0.log in $work.
  status=0
  (cd "$work" && SWIFT_BACKTRACE=enable=no \
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:malloc_context_size=3} \
    "$binary" "$corpus" \
      -jobs=1 -workers=1 \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$target")" \
      -dict="$root/Fuzz/dict/$target.dict" -artifact_prefix="$artifacts/" \
      -print_final_stats=1 -use_value_profile=1) || status=$?
  cp "$work/fuzz-0.log" "$root/$scratch/$target.log" 2>/dev/null || true
  grep -E "^#[0-9]+" "$root/$scratch/$target.log" | tail -n 1 || true
  grep -E "^stat::" "$root/$scratch/$target.log" || true
  if [ "$status" -ne 0 ] || ls "$artifacts" | grep -qE '^(crash|timeout|oom|leak)-'; then
    echo "!! $name found a problem: see $scratch/$target.log and $artifacts/" >&2
    exit 1
  fi
done
