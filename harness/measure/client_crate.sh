#!/usr/bin/env bash
# client_crate.sh LABEL [LIBRARY_DIR]: the crate tutorial's client crate (src/lib.rs, with a
# stand-in for `my_client`: client_crate_adapter.rs) against the library at LIBRARY_DIR (default:
# this checkout). Prints its dependency count (`cargo tree -e normal,dev`, the crate itself
# included), the crates compiled and the seconds of a clean `cargo test --no-run` in a fresh
# target folder under /tmp, and the machine's load: build times are only comparable on an idle
# machine, so run each label more than once. DEFAULT_FEATURES=false measures the dependency
# without its default `reference-client` feature, as a client crate with its own client takes it.
set -uo pipefail
label=$1
here=$(cd "$(dirname "$0")" && pwd)
lib=${2:-$(cd "$here/../.." && pwd)}
dir=$(mktemp -d "/tmp/client-crate-$label.XXXX")
mkdir -p "$dir/src" "$dir/tests"
cat > "$dir/Cargo.toml" <<TOML
[package]
name = "my-client"
version = "0.1.0"
edition = "2024"

[dev-dependencies]
mcp-error-layers = { path = "$lib", default-features = ${DEFAULT_FEATURES:-true} }

[[test]]
name = "mcp_errors"
harness = false

[workspace]
TOML
echo '//! The client under test (stands in for yours).' > "$dir/src/lib.rs"
cp "$here/client_crate_adapter.rs" "$dir/tests/mcp_errors.rs"
cd "$dir"
cargo generate-lockfile >/dev/null 2>&1
deps=$(cargo tree -e normal,dev --prefix none --format '{p}' 2>/dev/null \
  | sed 's/ (\*)$//; s/ (proc-macro)//' | sort -u | wc -l)
export CARGO_TARGET_DIR=$dir/target
start=$(date +%s.%N)
cargo test --no-run > build.log 2>&1; rc=$?
end=$(date +%s.%N)
compiled=$(grep -c '^ *Compiling' build.log)
echo "$label rc=$rc deps=$deps compiled=$compiled seconds=$(echo "$end - $start" | bc) load=$(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$dir"
