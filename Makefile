# causeway — see README.md.
#   make reproduce                 every experiment, quick profile (minutes on 2 cores)
#   make reproduce PROFILE=paper   every experiment at the papers' sizes (hours)
#   make test                      the test suite (what CI runs)
#   make bench                     benchmarks (sampler speed, runner overhead, 100k-chain load, diagnostics)

PROFILE ?= quick
CARGO ?= cargo
CAUSEWAY := target/release/causeway
EXPERIMENTS ?= $(sort $(wildcard experiments/*/*.yaml))

.PHONY: all build test reproduce bench fmt lint clean

all: build

build:
	$(CARGO) build --release --locked -p causeway

test:
	$(CARGO) test --workspace --locked

reproduce: build
	@set -e; for f in $(EXPERIMENTS); do \
		echo "== $$f ($(PROFILE))"; \
		$(CAUSEWAY) run $$f --profile $(PROFILE); \
	done

bench:
	$(CARGO) bench --locked -p causeway-samplers
	$(CARGO) bench --locked -p causeway-results
	$(CARGO) bench --locked -p causeway-tests

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

clean:
	$(CARGO) clean
