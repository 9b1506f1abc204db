# tcplab: `make run` builds everything into .venv and runs the default reproduction;
# `make test` builds and runs every test. Both work on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP_DEPS := $(VENV)/.deps-stamp
STAMP_BUILD := $(VENV)/.build-stamp
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock pyproject.toml
PY_DEPS := numpy pandas pyarrow matplotlib scipy pytest hypothesis "dask[distributed]" "maturin>=1.5,<2"

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
# Python sources are used in place).
$(STAMP_BUILD): $(STAMP_DEPS) $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet
	touch $@

build: $(STAMP_BUILD)

run: build
	$(VENV)/bin/tcplab reproduce --size quick --out results

test: build test-rust test-python

test-rust:
	cargo test --release -p tcplab-core

test-python: build
	$(VENV)/bin/pytest -q tests

# Property-based tests with fresh seeds for FUZZ_MINUTES (default 10); see tests/fuzz.py.
fuzz: build
	$(PY) tests/fuzz.py --minutes $(or $(FUZZ_MINUTES),10)

# Times tcplab against ns-2 and writes the table into README.md (bench/bench.py --help).
bench: build
	cargo build --release --example dumbbell -p tcplab-core
	$(PY) bench/bench.py --readme

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
