#!/usr/bin/env bash
# Print the near-empty grid the scaling scripts dispatch: CHAINS one-iteration wood2006 chains on a
# 2 x 2 dataset (the same as tests/src/lib.rs's trivial_chains_yaml), named NAME.
#
#   bash bench/scaling/near_empty_yaml.sh NAME CHAINS > near_empty.yaml
set -euo pipefail
cat <<YAML
name: $1
model: wood2006
seed: 1
chains: $2
replicates: 1
run: {iterations: 1}
params: {sampler: gibbs, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 2, n_trials: 2, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 1}
profiles: {quick: {}, paper: {}}
YAML
