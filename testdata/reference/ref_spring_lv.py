#!/usr/bin/env python3
"""Independent reference for the `spring` and `lv` systems of BENCHMARKS.md.

Pure Python 3, written from the specification (sections 1 and 2), not from
the Go code. It evaluates the nominal and true processes on the grid for a
few fixed parameter sets and writes them to spring_lv.json next to this
file; sims/spring_test.go and sims/lv_test.go compare against that JSON.

Run from anywhere:  python3 testdata/reference/ref_spring_lv.py
"""

import json
import math
import os

# ---- spring (BENCHMARKS.md section 1) ------------------------------------

SPRING_T = [4 * j / 99 for j in range(100)]


def spring_case(omega):
    nominal = [math.sin(omega * t) for t in SPRING_T]
    true = [math.sin(omega * t) * math.exp(-0.15 * omega * t) for t in SPRING_T]
    return {"omega": omega, "t": SPRING_T, "nominal": nominal, "true": true}


# ---- Lotka-Volterra (BENCHMARKS.md section 2) ----------------------------

LV_T = [10 * j / 99 for j in range(100)]
SUBSTEPS = 16  # the reference data integrator: RK4, 16 sub-steps per interval


def forcing_fn(alpha, beta, eta, gamma, x0, y0):
    """Return d(t), the hidden prey forcing of the true process."""
    feats = [math.log(alpha), math.log(beta), math.log(eta), math.log(gamma), x0, y0]
    centres = []
    weights = []
    for k in range(6):
        s = 0.0
        for j in range(1, 7):
            s += 0.8 * math.sin(1.7 * (k + 1) + 2.3 * j) * feats[j - 1]
        s += 0.2 * math.cos(3.1 * (k + 1))
        weights.append(0.1 * (1.0 + math.tanh(s)))
        centres.append(1.0 + 8.0 * k / 5.0)

    def d(t):
        bumps = sum(w * math.exp(-((t - c) ** 2) / 2.0) for w, c in zip(weights, centres))
        return (1.0 - math.exp(-t)) * bumps

    return d


def rhs(t, state, alpha, beta, eta, gamma, d):
    x, y = state
    return (alpha * x - beta * x * y + d(t), eta * x * y - gamma * y)


def rk4_grid(alpha, beta, eta, gamma, x0, y0, d):
    """Classical RK4 with SUBSTEPS equal steps per grid interval."""
    xs, ys = [x0], [y0]
    state = (x0, y0)
    for i in range(99):
        t0 = LV_T[i]
        h = (LV_T[i + 1] - LV_T[i]) / SUBSTEPS
        for s in range(SUBSTEPS):
            t = t0 + s * h
            k1 = rhs(t, state, alpha, beta, eta, gamma, d)
            k2 = rhs(t + h / 2, tuple(u + h / 2 * k for u, k in zip(state, k1)), alpha, beta, eta, gamma, d)
            k3 = rhs(t + h / 2, tuple(u + h / 2 * k for u, k in zip(state, k2)), alpha, beta, eta, gamma, d)
            k4 = rhs(t + h, tuple(u + h * k for u, k in zip(state, k3)), alpha, beta, eta, gamma, d)
            state = tuple(u + h / 6 * (a + 2 * b + 2 * c + e) for u, a, b, c, e in zip(state, k1, k2, k3, k4))
        xs.append(state[0])
        ys.append(state[1])
    return xs, ys


def lv_case(theta, u0):
    alpha, beta, eta, gamma = theta
    x0, y0 = u0
    zero = lambda t: 0.0
    nx, ny = rk4_grid(alpha, beta, eta, gamma, x0, y0, zero)
    tx, ty = rk4_grid(alpha, beta, eta, gamma, x0, y0, forcing_fn(alpha, beta, eta, gamma, x0, y0))
    return {
        "theta": list(theta),
        "u0": list(u0),
        "t": LV_T,
        "nominal_prey": nx,
        "nominal_predator": ny,
        "true_prey": tx,
        "true_predator": ty,
    }


def main():
    out = {
        "spring": [spring_case(w) for w in (3.0, 5.5, 8.0)],
        "lv": [
            lv_case((1.0, 1.0, 1.0, 1.0), (1.0, 1.5)),
            lv_case((0.6, 1.4, 0.8, 1.2), (1.7, 0.8)),
            lv_case((1.45, 0.55, 1.3, 0.7), (0.75, 1.75)),
        ],
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spring_lv.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
