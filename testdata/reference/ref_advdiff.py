#!/usr/bin/env python3
"""Independent reference for the advdiff system (BENCHMARKS.md section 3).

Pure Python 3, no numpy, written from the specification only:

  grid      x_i = i/64 (i = 0..63), t_n = n/63 (n = 0..63), t-major g = n*64 + i
  u0        s(x) = sum a exp(-d^2 / (2 sigma^2)), d = min(|x - c|, 1 - |x - c|),
            u0 = 0.2 + 0.8 s / max(s)
  nominal   u_t + v u_x = kappa u_xx
  truth     u_t + v u_x = kappa u_xx - c u,
            c = min(softplus(0.5 log v - 0.3 log kappa - 1), 1)
  solution  k = 2 pi m for the signed frequency m = -32..31,
            u_hat_k(t) = u_hat_k(0) exp(-(kappa k^2 + c) t - i v k t),
            u = Re(inverse DFT), by a naive O(N^2) DFT.

Writes advdiff.json next to this script: for each case the inputs, the
initial field, c, and the nominal and true fields on the grid (4096 values
each, t-major). Floats are written with repr, so they round-trip exactly.
"""

import cmath
import json
import math
import os

NX = 64
NT = 64

CASES = [
    # (v, kappa, bumps as (amplitude, centre, width))
    (0.3, 0.002, [(1.0, 0.25, 0.05), (0.6, 0.7, 0.09)]),
    (1.37, 0.08, [(0.4, 0.1, 0.07), (1.2, 0.55, 0.04), (0.8, 0.93, 0.11)]),
    (2.0, 0.002, [(1.3, 0.02, 0.03), (0.3, 0.4, 0.06), (0.9, 0.81, 0.035)]),
]


def initial_field(bumps):
    s = []
    for i in range(NX):
        x = i / NX
        total = 0.0
        for a, c, sigma in bumps:
            d = abs(x - c)
            d = min(d, 1 - d)
            total += a * math.exp(-d * d / (2 * sigma * sigma))
        s.append(total)
    top = max(s)
    return [0.2 + 0.8 * v / top for v in s]


def softplus(x):
    return math.log1p(math.exp(x))


def reaction_rate(v, kappa):
    return min(softplus(0.5 * math.log(v) - 0.3 * math.log(kappa) - 1.0), 1.0)


def signed(m):
    """Signed frequency of DFT index m: 0..31 -> 0..31, 32..63 -> -32..-1."""
    return m if m < NX // 2 else m - NX


def solve(u0, v, kappa, c):
    uhat = [sum(u0[j] * cmath.exp(-2j * math.pi * m * j / NX) for j in range(NX)) for m in range(NX)]
    # inverse twiddles e^{2 pi i m j / N}
    tw = [[cmath.exp(2j * math.pi * m * j / NX) for j in range(NX)] for m in range(NX)]
    out = []
    for n in range(NT):
        t = n / (NT - 1)
        coef = []
        for m in range(NX):
            k = 2 * math.pi * signed(m)
            coef.append(uhat[m] * cmath.exp(-(kappa * k * k + c) * t - 1j * v * k * t) / NX)
        for j in range(NX):
            z = 0j
            for m in range(NX):
                z += coef[m] * tw[m][j]
            out.append(z.real)
    return out


def main():
    cases = []
    for v, kappa, bumps in CASES:
        u0 = initial_field(bumps)
        c = reaction_rate(v, kappa)
        cases.append({
            "v": v,
            "kappa": kappa,
            "bumps": [list(b) for b in bumps],
            "u0": u0,
            "c": c,
            "nominal": solve(u0, v, kappa, 0.0),
            "true": solve(u0, v, kappa, c),
        })
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "advdiff.json")
    with open(path, "w") as f:
        json.dump({"nx": NX, "nt": NT, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
