#!/usr/bin/env python3
"""The posts of a WatchMe export (`generate_incidents.py --watchme`) in the other JSON forms of
SPEC §2.1, for the JSON reader's benchmarks: the same incidents as a JSON array, as NDJSON and as
a GeoJSON FeatureCollection of Point features (each post's push id as its `id`).

    python3 Benchmarks/json_forms.py EXPORT.json OUT_PREFIX
    # writes OUT_PREFIX.array.json, OUT_PREFIX.ndjson, OUT_PREFIX.geojson

The generator's layout (one post per line inside `posts`, which comes first) is streamed; any
other export is loaded whole.
"""
import json
import sys


def posts(path):
    with open(path, "rb") as f:
        if f.readline() != b'{"posts":{\n':
            f.seek(0)
            yield from json.load(f).get("posts", {}).items()
            return
        for line in f:
            if not line.startswith(b'"'):
                return
            name, _, value = line.rstrip(b"\n").rstrip(b",").partition(b":")
            yield json.loads(name), json.loads(value)


def main():
    src, out = sys.argv[1], sys.argv[2]
    compact = dict(separators=(",", ":"))
    n = 0
    with open(out + ".array.json", "w") as arr, open(out + ".ndjson", "w") as nd, open(out + ".geojson", "w") as geo:
        arr.write("[\n")
        geo.write('{"type":"FeatureCollection","features":[\n')
        for key, post in posts(src):
            if isinstance(post, dict):
                record = json.dumps({"id": key, **post}, **compact)
                props = dict(post)
                lat, lon = props.pop("latitude", None), props.pop("longitude", None)
                geometry = None if lat is None or lon is None else {"type": "Point", "coordinates": [lon, lat]}
                feature = json.dumps({"type": "Feature", "id": key, "geometry": geometry, "properties": props}, **compact)
            else:  # a malformed post stays malformed in every form
                record = feature = json.dumps(post, **compact)
            sep = ",\n" if n else ""
            arr.write(sep + record)
            geo.write(sep + feature)
            nd.write(record + "\n")
            n += 1
        arr.write("\n]\n")
        geo.write("\n]}\n")
    print(f"json_forms: {n} posts -> {out}.array.json, {out}.ndjson, {out}.geojson")


if __name__ == "__main__":
    main()
