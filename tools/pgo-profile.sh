#!/usr/bin/env bash
# Usage: tools/pgo-profile.sh OUT.profdata
#
# The profile of the profile-guided build (docs/architecture.md, "Profile-guided build"):
# builds the core's training run (crates/tcplab-core/examples/pgo_train.rs) with
# instrumentation under target/pgo/gen, runs it, and merges its raw profiles into
# OUT.profdata. It needs the llvm-profdata of rustc's own LLVM (rustup's llvm-tools
# component, added here if missing); without it, it says so and exits 1 without writing
# OUT, and the caller builds without a profile.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null; then
  timeout 180 rustup component add llvm-tools >/dev/null 2>&1 || true
fi
if [ ! -x "$profdata" ]; then
  echo "pgo: no llvm-profdata for rustc's LLVM (rustup component add llvm-tools); building without a profile" >&2
  exit 1
fi
raw=target/pgo/raw
rm -rf "$raw"
echo "pgo: building and running the training scenarios (instrumented)" >&2
# With the extension's package in the same build, the core's dependencies get the features
# they have in the extension (resolver 2 unifies them per build): the same crate hashes, so
# the profile's function names are the extension's.
RUSTFLAGS="-Cprofile-generate=$PWD/$raw" cargo build --release --quiet --example pgo_train -p tcplab-core \
  -p tcplab-py --target-dir target/pgo/gen
target/pgo/gen/release/examples/pgo_train >/dev/null
"$profdata" merge -o "$out.partial" "$raw"
mv "$out.partial" "$out"
