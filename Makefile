# causeway — see README.md.
#   make reproduce                 every experiment, quick profile (minutes on 2 cores)
#   make reproduce PROFILE=paper   every experiment at the papers' sizes (hours)
#   make test                      the test suite (what CI runs)
#   make bench                     benchmarks (sampler speed, runner overhead, 100k-chain load, diagnostics)
#   make nightly BASELINE=DIR      every quick profile into runs/nightly/<date>/, checked against DIR (issue 18)
#   make false-alarms EXPERIMENTS=…  20 chain-seed pairs per experiment, checked --statistical --alpha 0.05 (issue 18 §4)
#   make power [CASE=pattern]      each deliberate-bug switch in 20 chain seeds against a correct run (issue 18 §4)
#   make test-slurm                deploy/slurm/ on a throwaway single-node Slurm (root; installs slurm-wlm, munge)

PROFILE ?= quick
CARGO ?= cargo
CAUSEWAY := target/release/causeway
EXPERIMENTS ?= $(sort $(wildcard experiments/*/*.yaml))

.PHONY: all build test test-slurm reproduce nightly false-alarms power bench arviz-venv fmt lint clean

all: build

build:
	$(CARGO) build --release --locked --workspace --all-targets

test:
	$(CARGO) test --workspace --locked

test-slurm:
	bash tests/slurm/run.sh

reproduce: build
	@set -e; for f in $(EXPERIMENTS); do \
		echo "== $$f ($(PROFILE))"; \
		$(CAUSEWAY) run $$f --profile $(PROFILE); \
	done

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
# cases in bench/nightly/power_cases.txt). `build` compiles the binary with the `testing` feature
# (--all-targets unifies the dev-dependencies' features), the only kind that reads CAUSEWAY_DEFECT.
CASE ?= .
power: build
	CAUSEWAY=$(CAUSEWAY) bash bench/nightly/power.sh '$(CASE)'

# --workspace (and --all-targets in build) everywhere: one package alone, or no dev-dependencies,
# unifies features differently and rebuilds polars.
# ArviZ side by side (issue 3): `make arviz-venv` once, then `make bench` prints the ratio.
AZ_VENV ?= target/azvenv
bench:
	$(CARGO) bench --workspace --locked
	@if [ -x $(AZ_VENV)/bin/python ]; then $(AZ_VENV)/bin/python bench/arviz_bench.py; \
	else echo "ArviZ comparison skipped: run 'make arviz-venv' first"; fi

arviz-venv:
	python3 -m venv $(AZ_VENV) && $(AZ_VENV)/bin/pip install -q arviz==0.23.4

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

clean:
	$(CARGO) clean
