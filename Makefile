# tcplab: `make run` builds everything into .venv and runs the default reproduction;
# `make test` builds and runs every test. Both work on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP_DEPS := $(VENV)/.deps-stamp
STAMP_BUILD := $(VENV)/.build-stamp
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock pyproject.toml
PY_DEPS := numpy pandas pyarrow matplotlib scipy pytest pytest-xdist hypothesis "dask[distributed]" "maturin>=1.5,<2"
# Profile-guided build of the extension and of the benchmarked core (docs/architecture.md,
# "Profile-guided build"); PGO=0 builds without (faster to build, about 15 % slower to run).
PGO ?= 1
PGO_PROFILE := target/pgo/merged.profdata
PGO_ENV = CARGO_TARGET_DIR=$(abspath target/pgo/use) RUSTFLAGS="-Cprofile-use=$(abspath $(PGO_PROFILE))"

.PHONY: all venv build run test test-rust test-python bench fuzz docs golden-update clean

all: build

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP_DEPS): $(PY) pyproject.toml Makefile
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet $(PY_DEPS)
	touch $@

venv: $(STAMP_DEPS)

# The extension is built in release mode and installed into the venv (editable: the
# Python sources are used in place); with the training run's profile when there is one.
$(STAMP_BUILD): $(STAMP_DEPS) $(RUST_SOURCES) tools/pgo-profile.sh
	rm -f $(PGO_PROFILE)
	if [ "$(PGO)" = 1 ] && tools/pgo-profile.sh $(PGO_PROFILE); then \
	  $(PGO_ENV) VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet; \
	else \
	  VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet; \
	fi
	touch $@

build: $(STAMP_BUILD)

run: build
	$(VENV)/bin/tcplab reproduce --size quick --out results

test: build test-rust test-python

test-rust:
	cargo test --release -p tcplab-core

# Two pytest worker processes, each taking whole test files (module fixtures run once).
PYTEST_WORKERS ?= 2
test-python: build
	$(VENV)/bin/pytest -q -n $(PYTEST_WORKERS) --dist loadfile tests

# Property-based tests with fresh seeds for FUZZ_MINUTES (default 10); see tests/fuzz.py.
fuzz: build
	$(PY) tests/fuzz.py --minutes $(or $(FUZZ_MINUTES),10)

# Times tcplab against ns-2 and writes the table into README.md (bench/bench.py --help).
bench: build
	if [ -f $(PGO_PROFILE) ]; then \
	  $(PGO_ENV) cargo build --release --quiet --example dumbbell -p tcplab-core -p tcplab-py && \
	  $(PY) bench/bench.py --readme --core-bin target/pgo/use/release/examples/dumbbell --build "profile-guided build"; \
	else \
	  cargo build --release --quiet --example dumbbell -p tcplab-core && \
	  $(PY) bench/bench.py --readme --build "release build without a profile"; \
	fi

# Rewrite the golden corpus's hashes (tests/golden/hashes.json) after a change that alters
# results on purpose; commit them saying why (docs/architecture.md, "Golden corpus").
golden-update: build
	$(PY) tests/golden/corpus.py --update

# Regenerate the result blocks of docs/*.md from docs/results (docs/experiments.md,
# "Publishing results in the docs").
docs: build
	$(PY) -m tcplab.publish render

clean:
	rm -rf $(VENV) target results report bench/out
