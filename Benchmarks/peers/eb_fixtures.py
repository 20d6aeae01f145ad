#!/usr/bin/env python3
"""Empirical Bayes fixtures for the Swift tests (SPEC §17), computed by PySAL's esda.

    python3 Benchmarks/peers/eb_fixtures.py   # prints the fixtures as Swift literals, to paste
                                              # into Tests/AreaWatchCoreTests (EmpiricalBayesTests,
                                              # AreaRatesTests)

Each set is (events, populations); esda's smoothed rates are printed with 17 significant digits.
A set whose method-of-moments variance is negative is marked: there areawatch clamps the variance
to 0 and differs from esda by design.
"""

import numpy as np
from esda.smoothing import Empirical_Bayes

SETS = {
    # West-Yorkshire-like wards: one with far fewer residents than the others.
    "wards": ([212, 48, 97, 5, 160, 33, 71, 0, 254, 19, 88, 3],
              [17340, 9120, 12877, 410, 15002, 6311, 11030, 7420, 21650, 5009, 10240, 150]),
    # Strongly varying rates (large prior variance).
    "varied": ([1, 40, 3, 90, 12, 0, 55],
               [1000, 1200, 900, 1500, 2000, 800, 700]),
    # Rates that vary less than Poisson noise: esda's variance is negative.
    "flat": ([10, 12, 9, 11, 10],
             [1000, 1100, 950, 1000, 1050]),
}

# Sets with areas that have no rate (SPEC §17: population 0): esda smooths the others only, and
# those areas are printed as nil. "zero_and_tiny" also has one area of far fewer residents.
AREA_SETS = {
    "zero_and_tiny": ([212, 48, 7, 97, 5, 160, 2, 254],
                      [17340, 9120, 0, 12877, 410, 15002, 60, 21650]),
    "zero_no_events": ([30, 0, 44, 51, 12],
                       [8000, 0, 9500, 12000, 2500]),
}


def fixtures():
    return {name: smooth(e, b) for name, (e, b) in SETS.items()}


def area_fixtures():
    out = {}
    for name, (e, b) in AREA_SETS.items():
        kept = [i for i, pop in enumerate(b) if pop > 0]
        _, _, r, variance = smooth([e[i] for i in kept], [b[i] for i in kept])
        rates = [None] * len(e)
        for j, i in enumerate(kept):
            rates[i] = r[j]
        out[name] = (e, b, rates, variance)
    return out


def smooth(e, b):
    e_arr, b_arr = np.array(e, dtype=float), np.array(b, dtype=float)
    r = Empirical_Bayes(e_arr, b_arr).r.reshape(-1)
    m = e_arr.sum() / b_arr.sum()
    variance = (b_arr * (e_arr / b_arr - m) ** 2).sum() / b_arr.sum() - m / b_arr.mean()
    return e, b, [float(x) for x in r], float(variance)


def swift_literal(name, e, b, r, variance):
    fmt = lambda xs: ", ".join("nil" if x is None else repr(float(x)) for x in xs)
    return (f'        ("{name}", [{fmt(e)}], [{fmt(b)}],\n'
            f'         [{fmt(r)}], {variance!r}),')


if __name__ == "__main__":
    for name, (e, b, r, v) in fixtures().items():
        print(swift_literal(name, e, b, r, v))
    print("        // areas without a rate (AreaRatesTests.esda)")
    for name, (e, b, r, v) in area_fixtures().items():
        print(swift_literal(name, e, b, r, v))
