#!/usr/bin/env python3
"""Paper 004's reference KL, D̂ between a training and a test set, under every estimator setting,
and its spread over splits: which settings give the paper's five reference values?

For each dataset (ring, pinwheel: fresh draws of 2000 + 2000 points from causeway's recipes;
geyser, iris, abalone: the project's split, odd rows train / even rows test, then S random
halvings of the same rows), for k ∈ {1, 3, 5, 10}, raw or standardized by the training set's
mean and sd, and both directions, `causeway kl` gives D̂ (Pérez-Cruz 2008; exact duplicates are
skipped and counted). Prints one Markdown table: the project's split's value, the mean and sd
over the S splits, and the paper's value's z-score against that spread.

Usage: python3 bench/kl_reference_spread.py [CAUSEWAY] [S]   (defaults target/release/causeway,
30). Standard library only; about a minute.
"""

import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAUSEWAY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/causeway")
SPLITS = int(sys.argv[2]) if len(sys.argv) > 2 else 30
PAPER = {"ring": 0.003, "pinwheel": 0.025, "geyser": 0.001, "iris": 0.113, "abalone": 0.109}
SETTINGS = [(std, k) for std in (False, True) for k in (1, 3, 5, 10)]


def iris():
    rows = list(csv.DictReader(open(os.path.join(ROOT, "data/rdatasets/iris.csv"))))
    cols = ["Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"]
    return [[float(r[c]) for c in cols] for r in rows]


def geyser():
    rows = list(csv.DictReader(open(os.path.join(ROOT, "data/rdatasets/faithful.csv"))))
    return [[float(r["eruptions"]), float(r["waiting"])] for r in rows]


def abalone():
    out = []
    for line in open(os.path.join(ROOT, "data/abalone/abalone.data")):
        p = line.strip().split(",")
        if len(p) == 9:
            out.append([{"M": 1.0, "F": 2.0, "I": 3.0}[p[0]]] + [float(v) for v in p[1:]])
    return out[:4000]


def ring(rng, n):
    pts = []
    for _ in range(n):
        t, r = 2 * math.pi * rng.random(), 1 + 0.1 * rng.gauss(0, 1)
        pts.append([r * math.cos(t), r * math.sin(t)])
    return pts


def pinwheel(rng, n):
    pts = []
    for i in range(n):
        c, f1, f2 = i % 4, 1 + 0.3 * rng.gauss(0, 1), 0.05 * rng.gauss(0, 1)
        a = 2 * math.pi * c / 4 + 0.25 * math.exp(f1)
        s, co = math.sin(a), math.cos(a)
        pts.append([10 * (f1 * co + f2 * s), 10 * (-f1 * s + f2 * co)])
    rng.shuffle(pts)
    return pts


def write(path, rows):
    with open(path, "w") as f:
        f.write(",".join(f"c{j}" for j in range(len(rows[0]))) + "\n")
        for r in rows:
            f.write(",".join(repr(v) for v in r) + "\n")


def kl(p, q, k, std):
    args = [CAUSEWAY, "kl", p, q, "--k", str(k)] + (["--standardize-by", std] if std else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["kl"]


def values(tmp, train, test):
    """D̂ for every setting and both directions: {(std, k, direction): value}."""
    tr, te = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
    write(tr, train)
    write(te, test)
    out = {}
    for std, k in SETTINGS:
        s = tr if std else None
        out[(std, k, "test‖train")] = kl(te, tr, k, s)
        out[(std, k, "train‖test")] = kl(tr, te, k, s)
    return out


def main():
    rng = random.Random(20140731)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in ["ring", "pinwheel", "geyser", "iris", "abalone"]:
            if name in ("ring", "pinwheel"):
                gen = ring if name == "ring" else pinwheel
                draws = [(gen(rng, 2000), gen(rng, 2000)) for _ in range(SPLITS + 1)]
                ours, spread = draws[0], draws[1:]
            else:
                x = {"geyser": geyser, "iris": iris, "abalone": abalone}[name]()
                ours, spread = (x[0::2], x[1::2]), []
                for _ in range(SPLITS):
                    idx = list(range(len(x)))
                    rng.shuffle(idx)
                    h = len(x) // 2
                    spread.append(([x[i] for i in idx[:h]], [x[i] for i in idx[h : 2 * h]]))
            own = values(tmp, *ours)
            per = [values(tmp, *s) for s in spread]
            for key in own:
                v = [p[key] for p in per]
                m = sum(v) / len(v)
                sd = math.sqrt(sum((a - m) ** 2 for a in v) / (len(v) - 1))
                std, k, direction = key
                rows.append(
                    f"| {name} | {'train mean, sd' if std else 'raw'} | {k} | {direction} | "
                    f"{own[key]:.3f} | {m:.3f} | {sd:.3f} | {PAPER[name]} | {(PAPER[name] - m) / sd:+.2f} |"
                )
    print(f"Over {SPLITS} random splits (ring, pinwheel: fresh draws), `{os.path.basename(CAUSEWAY)} kl`.\n")
    print("| dataset | standardized by | k | D̂ | project's split | mean over splits | sd | paper | z of paper |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
