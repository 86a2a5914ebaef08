# causeway — see README.md.
#   make reproduce                 every experiment, quick profile (minutes on 2 cores)
#   make reproduce PROFILE=paper   every experiment at the papers' sizes (hours)
#   make test                      the test suite (what CI runs)
#   make bench                     benchmarks (sampler speed, runner overhead, 100k-chain load, one coordinator under simulated workers, diagnostics)
#   make nightly BASELINE=DIR      every quick profile into runs/nightly/<date>/, checked against DIR
#   make false-alarms EXPERIMENTS=…  20 chain-seed pairs per experiment, checked --statistical --alpha 0.05
#   make power [CASE=pattern]      each deliberate-bug switch in 20 chain seeds against a correct run
#   make lint                      clippy, the import graph (no circles; proto <- worker <- coordinator -> results),
#                                  and no test code in the shipped binary
#   make test-slurm                deploy/slurm/ on a throwaway single-node Slurm (root; installs slurm-wlm, munge)
#   make test-site                 the results site in headless Chromium (installs Debian's chromium if missing)
#   make test-arviz                `causeway export` opened by real ArviZ (a venv from PyPI), checked against the run's tables

PROFILE ?= quick
CARGO ?= cargo
CAUSEWAY := target/release/causeway
EXPERIMENTS ?= $(sort $(wildcard experiments/*/*.yaml))

.PHONY: all build test test-slurm test-arviz test-site reproduce nightly false-alarms power bench arviz-venv fmt lint arch clean

all: build

# The shipped binary alone: no tests, no benches, no dev-dependencies (so none of their features,
# such as causeway-papers/testing, reach it).
build:
	$(CARGO) build --release --locked -p causeway-coordinator --bin causeway

test:
	$(CARGO) test --workspace --locked

test-slurm:
	bash tests/slurm/run.sh

# Reuses the binary `make test` built (target/debug/causeway); screenshots in target/site-screenshots/.
test-site:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	bash tests/site/run.sh

# Reuses the binary `make test` built (target/debug/causeway); makes the venv if it is missing.
test-arviz:
	@[ -x $(AZ_VENV)/bin/python ] || $(MAKE) arviz-venv
	AZ_PYTHON=$(AZ_VENV)/bin/python bash tests/arviz/run.sh

# The quick profile is built in the `reproduce` profile (Cargo.toml: a cold build in minutes, the
# same chains and tables as --release) and runs the cheapest experiments first, so that a table
# and the site's index exist within seconds of the build; the papers' sizes use --release. Quick
# wall times on 2 cores in QUICK_FIRST's comment; an experiment not listed runs after them. The
# results site's index (runs/index.html) is rewritten after each experiment.
# Cheapest first (seconds, quick profile, 2 cores): mmle 0.2, kurutmaz2019 0.6-1.4, wood2006 fig4
# 0.8, dallaire2014 table1_real 1.9, hidden2025 table1 2.2, dallaire2014 pinwheel_modes 2.8,
# wood2006 sbc 3.2, alarm 4.1, dpmog 4.4, lucas 5.0, hidden2025 sbc 7.2, fig3 7.3,
# structure_modes ≈ 8 (16.0 beside two paper runs, where table1_real took 3.8), kde 9.0,
# structure 12.6, structure_precision ≈ 13 (15.3 beside two paper runs), table3 13.4, dallaire2014 sbc 14.0, table1_synthetic 18.5, table2 29.0, metabric
# 32.7, abalone 35.9, table7 39.0, prior 49.7.
QUICK_FIRST := hidden2025/mmle kurutmaz2019/abalone kurutmaz2019/synthetic wood2006/fig4_structures \
	kurutmaz2019/cep kurutmaz2019/toy dallaire2014/table1_real hidden2025/table1_sparse_counts \
	dallaire2014/pinwheel_modes wood2006/sbc hidden2025/alarm dallaire2014/table1_dpmog wood2006/lucas \
	hidden2025/sbc wood2006/fig3_k_recovery dallaire2014/structure_modes dallaire2014/table1_kde \
	dallaire2014/structure dallaire2014/structure_precision \
	hidden2025/table3_two_dags dallaire2014/sbc dallaire2014/table1_synthetic \
	hidden2025/table2_lucas_blankets hidden2025/metabric \
	dallaire2014/table1_abalone hidden2025/table7_two_parent_sets dallaire2014/prior
QUICK_ORDER := $(filter $(EXPERIMENTS),$(QUICK_FIRST:%=experiments/%.yaml)) \
	$(filter-out $(QUICK_FIRST:%=experiments/%.yaml),$(EXPERIMENTS))
REPRODUCE_PROFILE := $(if $(filter quick,$(PROFILE)),reproduce,release)
REPRODUCE_CAUSEWAY := target/$(REPRODUCE_PROFILE)/causeway
reproduce:
	$(CARGO) build --profile $(REPRODUCE_PROFILE) --locked -p causeway-coordinator --bin causeway
	@set -e; for f in $(if $(filter quick,$(PROFILE)),$(QUICK_ORDER),$(EXPERIMENTS)); do \
		echo "== $$f ($(PROFILE))"; \
		$(REPRODUCE_CAUSEWAY) run $$f --profile $(PROFILE); \
		$(REPRODUCE_CAUSEWAY) site runs > /dev/null; \
	done; \
	echo "results: $$(pwd)/runs/index.html"

# Exact check first, statistical where exact fails; exit 1 on a regression (bench/nightly/nightly.sh).
nightly:
	@test -n "$(BASELINE)" || { echo "usage: make nightly BASELINE=runs/nightly/<earlier date>"; exit 2; }
	$(MAKE) build
	CAUSEWAY=$(CAUSEWAY) EXPERIMENTS="$(EXPERIMENTS)" bash bench/nightly/nightly.sh $(BASELINE)

# How often the statistical check fails two runs that differ only in --chain-seed
# (bench/nightly/false_alarms.sh; PAIRS=20 ALPHA=0.05 by default).
false-alarms: build
	CAUSEWAY=$(CAUSEWAY) bash bench/nightly/false_alarms.sh $(EXPERIMENTS)

# How often the statistical check flags a deliberately broken kernel (bench/nightly/power.sh,
# cases in bench/nightly/power_cases.txt). It needs a binary with the `testing` feature, the only
# kind that reads CAUSEWAY_DEFECT: built here in its own target directory, never in target/release.
CASE ?= .
TESTING_CAUSEWAY := target/testing/release/causeway
power:
	$(CARGO) build --release --locked -p causeway-coordinator --bin causeway --features testing --target-dir target/testing
	CAUSEWAY=$(TESTING_CAUSEWAY) bash bench/nightly/power.sh '$(CASE)'

# ArviZ side by side: `make arviz-venv` once, then `make bench` prints the ratio.
AZ_VENV ?= target/azvenv
bench:
	$(CARGO) bench --workspace --locked
	@if [ -x $(AZ_VENV)/bin/python ]; then $(AZ_VENV)/bin/python bench/arviz_bench.py; \
	else echo "ArviZ comparison skipped: run 'make arviz-venv' first"; fi

arviz-venv:
	python3 -m venv $(AZ_VENV) && $(AZ_VENV)/bin/pip install -q arviz==0.23.4 zarr==3.1.6

fmt:
	$(CARGO) fmt --all

lint: arch
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

# No import circle between files or crates, the crates' arrows proto <- worker <- coordinator ->
# results with nothing back, and no `testing` feature in the shipped binary's dependency graph.
arch:
	python3 tests/arch/imports.py
	@if $(CARGO) tree --locked -p causeway-coordinator -e normal -f '{p} [{f}]' | grep -q 'causeway-papers.*testing'; then \
		echo "the shipped binary would link causeway-papers/testing"; exit 1; \
	else echo "shipped binary: no testing feature"; fi

clean:
	$(CARGO) clean
