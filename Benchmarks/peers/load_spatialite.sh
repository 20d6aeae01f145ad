#!/usr/bin/env bash
# Loads an incident CSV (generate_incidents.py format:
# incident_id,occurred_at,latitude,longitude,category,handled) into a new SpatiaLite database
# with the spatialite command-line tool: table `incidents` with the CSV's columns plus a POINT
# geometry `geom` (SRID 4326, registered with AddGeometryColumn, filled with MakePoint) and an
# R*Tree spatial index (CreateSpatialIndex). Rows without coordinates get a NULL geometry.
#
# Usage: load_spatialite.sh INCIDENTS.csv OUT.sqlite [virtualtext|import]
#   virtualtext (default): the CSV is read through a VirtualText table (header row, quoted
#                          fields, typed columns), then INSERT ... SELECT into the real table.
#   import:                the shell's .import into an all-TEXT staging table, then
#                          INSERT ... SELECT with casts.
# Everything runs in one transaction; the spatial index is built after the rows are in.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 INCIDENTS.csv OUT.sqlite [virtualtext|import]" >&2
  exit 1
fi
csv=$1
db=$2
method=${3:-virtualtext}
[ -r "$csv" ] || { echo "$0: cannot read $csv" >&2; exit 1; }
command -v spatialite >/dev/null || { echo "$0: spatialite command-line tool not found" >&2; exit 1; }

rm -f "$db" "$db-journal"
q=${csv//\'/\'\'}  # SQL string literal body

create="
CREATE TABLE incidents (
  id INTEGER PRIMARY KEY,
  incident_id TEXT,
  occurred_at TEXT,
  latitude DOUBLE,
  longitude DOUBLE,
  category TEXT,
  handled INTEGER
);
SELECT AddGeometryColumn('incidents', 'geom', 4326, 'POINT', 'XY');"

pre=""
case "$method" in
  virtualtext)
    load="
CREATE VIRTUAL TABLE staging USING VirtualText('$q', 'UTF-8', 1, POINT, DOUBLEQUOTE, ',');
INSERT INTO incidents (incident_id, occurred_at, latitude, longitude, category, handled, geom)
SELECT nullif(incident_id, ''), occurred_at, latitude, longitude, category,
       CASE lower(handled) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END,
       CASE WHEN latitude IS NOT NULL AND longitude IS NOT NULL
            THEN MakePoint(longitude, latitude, 4326) END
FROM staging;
DROP TABLE staging;"
    ;;
  import)
    # the shell's .import commits by itself, so the staging table is filled before BEGIN
    pre="
CREATE TEMP TABLE staging (incident_id TEXT, occurred_at TEXT, latitude TEXT, longitude TEXT,
                           category TEXT, handled TEXT);
.mode csv
.separator ,
.import '$q' staging"
    load="
INSERT INTO incidents (incident_id, occurred_at, latitude, longitude, category, handled, geom)
SELECT nullif(incident_id, ''), occurred_at, lat, lon, category,
       CASE lower(handled) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END,
       CASE WHEN lat IS NOT NULL AND lon IS NOT NULL THEN MakePoint(lon, lat, 4326) END
FROM (SELECT rowid AS rid, incident_id, occurred_at, category, handled,
             CAST(nullif(trim(latitude), '') AS DOUBLE) AS lat,
             CAST(nullif(trim(longitude), '') AS DOUBLE) AS lon
      FROM staging)
WHERE rid > (SELECT min(rowid) FROM staging)  -- the header line
ORDER BY rid;
DROP TABLE staging;"
    ;;
  *)
    echo "$0: unknown method $method (virtualtext or import)" >&2
    exit 1
    ;;
esac

# (a new database is given SpatiaLite's metadata tables by the tool itself; its note that
# spatial_ref_sys is already filled is not an error)
spatialite -bail "$db" 2> >(grep -v 'SPATIAL_REF_SYS table already contains' >&2) >/dev/null <<SQL
PRAGMA cache_size = -262144;
$pre
BEGIN;
$create
$load
SELECT CreateSpatialIndex('incidents', 'geom');
COMMIT;
SQL

spatialite "$db" 2>/dev/null <<'SQL' | tr '|' ' ' | sed 's/^/load_spatialite: /' >&2
SELECT count(*) || ' rows', count(geom) || ' with geometry' FROM incidents;
SQL
