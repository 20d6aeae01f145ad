#!/usr/bin/env python3
"""Builds PMTiles v3 archives with the reference writer from PyPI (`pmtiles.writer`).

  build_pmtiles.py OUT SPEC.json   tiles from SPEC: {"tiles": [[tile_id, "text"], ...], "metadata": {...}}
  build_pmtiles.py OUT --golden    the golden archive of the tests (golden_tiles() below)

Each tile's content is gzip(text) with mtime 0 (deterministic); the header says gzip tiles, MVT.
"""
import gzip
import json
import sys

from pmtiles.tile import Compression, TileType, tileid_to_zxy
from pmtiles.writer import Writer


def golden_tiles():
    """Every tile of zooms 0-3; a run of 50 consecutive IDs with one content (a run-length entry);
    8,000 scattered zoom-14..15 tiles sharing 7 contents: enough entries for leaf directories."""
    tiles = [(i, f"low {i}") for i in range(85)]
    tiles += [(1000 + i, "run") for i in range(50)]
    # IDs 100,000 apart on average, from a 64-bit LCG (random enough that gzip cannot shrink the
    # directory below the writer's 16 KiB root limit); the Swift test repeats the same sequence.
    state, tile_id = 1, 100_000
    for k in range(8000):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        tile_id += 1 + (state >> 40) % 200_000
        tiles.append((tile_id, f"scattered {k % 7}"))
    return tiles


def build(out, tiles, metadata):
    tiles = sorted(tiles)
    zooms = [tileid_to_zxy(t)[0] for t, _ in tiles]
    with open(out, "wb") as f:
        w = Writer(f)
        for tile_id, text in tiles:
            w.write_tile(tile_id, gzip.compress(text.encode(), mtime=0))
        w.finalize({
            "tile_type": TileType.MVT, "tile_compression": Compression.GZIP,
            "min_zoom": min(zooms), "max_zoom": max(zooms),
            "min_lon_e7": -20_000_000, "min_lat_e7": 530_000_000, "max_lon_e7": -10_000_000, "max_lat_e7": 540_000_000,
            "center_zoom": 12, "center_lon_e7": -15_000_000, "center_lat_e7": 535_000_000,
        }, metadata)


if __name__ == "__main__":
    if sys.argv[2] == "--golden":
        build(sys.argv[1], golden_tiles(), {"name": "golden", "vector_layers": [{"id": "cells", "fields": {}}]})
    else:
        with open(sys.argv[2]) as f:
            spec = json.load(f)
        build(sys.argv[1], [tuple(t) for t in spec["tiles"]], spec.get("metadata", {}))
