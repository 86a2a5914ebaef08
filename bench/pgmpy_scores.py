#!/usr/bin/env python3
"""Network scores of two discrete datasets computed with pgmpy 1.1.2: the fixture of
`worker/papers/tests/hidden2025/scores_pgmpy.rs`.

pgmpy version: 1.1.2 (PyPI; numpy 2.4.6, scipy 1.17.1, pandas 3.1.1 when generated).

Regenerate (from the repository root):
    python3 -m venv /tmp/pgmpy-venv && /tmp/pgmpy-venv/bin/pip install pgmpy==1.1.2
    /tmp/pgmpy-venv/bin/python bench/pgmpy_scores.py

Datasets (every column read as text labels, so a column's states are its observed values, as for
causeway's `kind: csv` reader and R's `factor()`):
- `lucas`: data/lucas/lucas0_train.csv (2000 rows x 12 binary columns) with its true DAG
  data/lucas/lucas0_edges.csv.
- `alarm500`: tests/fixtures/hidden2025/alarm500.csv, 500 rows forward-sampled from
  data/bnrepository/alarm.bif by pgmpy's `BayesianModelSampling(model).forward_sample(size=500,
  seed=20251124)`, with the network's 46 arcs in tests/fixtures/hidden2025/alarm_edges.csv. The
  sample is written only when the file is missing (or with --resample), so the fixture does not
  move with numpy's generator.

Scores (pgmpy.structure_score, per node `local_score(node, parents)` and per DAG `score(model)`):
`bdeu_iss1` = BDeu(data, equivalent_sample_size=1), `bdeu_iss10` = BDeu(..., 10), `bic`, `aic`,
`k2`, `loglik` (LogLikelihood). Output: tests/fixtures/hidden2025/pgmpy_scores.csv with columns
`dataset,score,node,parents,value`: one row per node (its parents in column order joined by `;`)
and one row with an empty node for the DAG's total; values printed with repr() (17 significant
digits, they parse back to the same double).

Conventions found in pgmpy 1.1.2's source (structure_score/*.py), against bnlearn's (and
causeway's scores.rs):
- log base e everywhere; BIC = ll - (log n / 2) q (r - 1) and AIC = ll - q (r - 1), q the product of
  the parents' state counts (every configuration, observed or not) and r the child's state count:
  the same as bnlearn.
- BDeu: counts over the observed parent configurations only, plus correction terms for the
  unobserved ones, which cancel: equal to bnlearn's `bde` (up to rounding).
- K2: sum_obs lgamma(N_ijk + 1) - sum_obs lgamma(N_ij + r) + q lgamma(r): the unobserved parent
  configurations are missing from the middle sum but counted in q lgamma(r), so pgmpy's K2 exceeds
  the true K2 (eq 7 at t = 1, bnlearn's `k2`) by (q - q_obs) lgamma(r), where q_obs is the number
  of observed parent configurations. Zero when r = 2 (lgamma(2) = 0) or every configuration is
  observed: LUCAS is unaffected, ALARM's 3- and 4-state nodes are not. The Rust test checks the
  difference is exactly that.
- structure prior: 0 (score(model) is the sum of the local scores).
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "hidden2025"
ALARM_ROWS = 500
ALARM_SEED = 20251124


def read_edges(path):
    lines = [l.strip() for l in Path(path).read_text().splitlines() if l.strip()]
    if lines[0].replace(" ", "") != "parent,child":
        sys.exit(f"{path}: header must be parent,child")
    return [tuple(x.strip() for x in l.split(",")) for l in lines[1:]]


def write_alarm_sample():
    from pgmpy.readwrite import BIFReader
    from pgmpy.sampling import BayesianModelSampling

    model = BIFReader(str(ROOT / "data" / "bnrepository" / "alarm.bif")).get_model()
    sample = BayesianModelSampling(model).forward_sample(
        size=ALARM_ROWS, seed=ALARM_SEED, show_progress=False, n_jobs=1
    )
    # Column order: the BIF file's variable order.
    sample = sample[list(model.nodes())]
    FIXTURES.mkdir(parents=True, exist_ok=True)
    sample.to_csv(FIXTURES / "alarm500.csv", index=False)
    # Arcs in a stable order: by child's column position, then parent's.
    pos = {v: i for i, v in enumerate(sample.columns)}
    edges = sorted(model.edges(), key=lambda e: (pos[e[1]], pos[e[0]]))
    with open(FIXTURES / "alarm_edges.csv", "w") as f:
        f.write("parent,child\n")
        for p, c in edges:
            f.write(f"{p},{c}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--resample", action="store_true", help="rewrite the ALARM sample")
    ap.add_argument("--out", default=str(FIXTURES / "pgmpy_scores.csv"))
    args = ap.parse_args()

    import warnings

    warnings.simplefilter("ignore", FutureWarning)
    import pandas as pd
    import pgmpy
    from pgmpy.models import DiscreteBayesianNetwork
    from pgmpy.structure_score import AIC, BDeu, BIC, K2, LogLikelihood

    if pgmpy.__version__ != "1.1.2":
        sys.exit(f"pgmpy {pgmpy.__version__}: this fixture is for pgmpy 1.1.2")
    if args.resample or not (FIXTURES / "alarm500.csv").exists():
        write_alarm_sample()

    datasets = [
        ("lucas", ROOT / "data/lucas/lucas0_train.csv", ROOT / "data/lucas/lucas0_edges.csv"),
        ("alarm500", FIXTURES / "alarm500.csv", FIXTURES / "alarm_edges.csv"),
    ]
    rows = []
    for name, data_path, edges_path in datasets:
        data = pd.read_csv(data_path, dtype=str, keep_default_na=False)
        edges = read_edges(edges_path)
        model = DiscreteBayesianNetwork()
        model.add_nodes_from(data.columns)
        model.add_edges_from(edges)
        pos = {v: i for i, v in enumerate(data.columns)}
        scores = {
            "bdeu_iss1": BDeu(data, equivalent_sample_size=1),
            "bdeu_iss10": BDeu(data, equivalent_sample_size=10),
            "bic": BIC(data),
            "aic": AIC(data),
            "k2": K2(data),
            "loglik": LogLikelihood(data),
        }
        for sname, scorer in scores.items():
            for node in data.columns:
                parents = tuple(sorted(model.predecessors(node), key=pos.get))
                value = float(scorer.local_score(node, parents))
                rows.append((name, sname, node, ";".join(parents), value))
            rows.append((name, sname, "", "", float(scorer.score(model))))
    with open(args.out, "w") as f:
        f.write("dataset,score,node,parents,value\n")
        for r in rows:
            f.write(f"{r[0]},{r[1]},{r[2]},{r[3]},{r[4]!r}\n")
    print(f"wrote {len(rows)} rows to {args.out}")


if __name__ == "__main__":
    main()
