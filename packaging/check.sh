#!/usr/bin/env bash
# Build the three installs of the command line from this checkout and test each one as a user
# would (packaging/README.md): the Python wheel (maturin, `bindings = "bin"`) in a fresh venv, the
# npm packages (a launcher plus one platform package) in a fresh folder, and `cargo install`.
# Each installed `mcp-error-layers` prints its version and runs the built-in cases against the
# reference client, which must all pass. Nothing is published and nothing is fetched but the
# pinned maturin from PyPI (once; its venv is kept): the wheel and the tarballs are installed from
# the files built here (`pip --no-index`, `npm --offline`).
#
# Run from anywhere: `bash packaging/check.sh`. Everything it writes is under target/ (or
# $CARGO_TARGET_DIR): target/packaging/. It builds with the dev profile into the same target dir
# as `cargo build` and `cargo run`, so that after them (as in .ci/run) nothing is compiled again,
# rather than the whole dependency tree a second time in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
out=$target/packaging
mkdir -p "$out"
export CARGO_TARGET_DIR=$target
export npm_config_cache=${npm_config_cache:-$target/npm-cache}
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

now() { echo "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
fail() { echo "packaging: $*" >&2; exit 1; }
# One line per install on stdout; everything else goes to stderr.
report() { echo "$1"; }

# One version everywhere: the crate's, the wheel's, the npm packages'.
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' cli/Cargo.toml | head -n 1)
[[ -n $version ]] || fail "no version in cli/Cargo.toml"
py_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' packaging/pypi/pyproject.toml | head -n 1)
[[ $py_version == "$version" ]] \
  || fail "packaging/pypi/pyproject.toml has version $py_version, cli/Cargo.toml $version"
npm_versions=$(node -e '
  const p = require(process.argv[1]);
  console.log([p.version, ...Object.values(p.optionalDependencies)].join("\n"));
' "$root/packaging/npm/mcp-error-layers/package.json" | sort -u)
[[ $npm_versions == "$version" ]] \
  || fail "packaging/npm/mcp-error-layers/package.json: versions $(echo $npm_versions) where cli/Cargo.toml has $version"

# check_installed NAME WHERE: `mcp-error-layers` as found on PATH must be the one in WHERE (unless
# WHERE is empty), print its version and pass every built-in case. Its stdout goes to
# $out/NAME-run.log, its stderr (the live lines) to $out/NAME-run.err, the JSON report to
# $out/NAME.json; it prints the counts ("162 cases, 162 passed, 0 failed") on stdout.
# The command is `$cmd` (an array), so that npx can stand before it.
check_installed() {
  local name=$1 where=$2 log=$out/$1-run.log err=$out/$1-run.err json=$out/$1.json got status
  if [[ -n $where ]]; then
    got=$(command -v mcp-error-layers || true)
    [[ $got == "$where/mcp-error-layers" ]] \
      || fail "$name: mcp-error-layers on PATH is '$got', not the one installed in $where"
  fi
  got=$("${cmd[@]}" --version) || fail "$name: --version failed"
  [[ $got == "mcp-error-layers $version" ]] || fail "$name: --version printed '$got'"
  rm -f "$json"
  status=0
  "${cmd[@]}" run --color never --json "$json" >"$log" 2>"$err" || status=$?
  if ((status != 0)); then
    tail -n 20 "$err" "$log" >&2
    fail "$name: 'mcp-error-layers run' exited $status (its output: $log, $err)"
  fi
  # The closing summary on stdout ("162 cases: 162 passed, 0 accepted, 0 warnings, 0 failed, …"),
  # and the same in the JSON report.
  grep -qE '^[0-9]+ cases: [0-9]+ passed, .* 0 failed, ' "$log" \
    || { tail -n 20 "$log" >&2; fail "$name: no summary line with 0 failed on stdout ($log)"; }
  python3 - "$json" <<'EOF' || fail "$name: the JSON report $json does not say that every case passed"
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(f"{s['cases']} cases, {s['passed']} passed, {s['failed']} failed")
sys.exit(0 if s["cases"] > 0 and s["failed"] == 0 else 1)
EOF
}

# --- 1. cargo install --------------------------------------------------------------------------
# `--debug` and the shared target dir: the dev-profile build of `cargo build` and `cargo run`.
t0=$(now)
rm -rf "$out/cargo-root"
cargo install --path cli --locked --debug --target-dir "$target" --root "$out/cargo-root" --quiet
[[ -x $out/cargo-root/bin/mcp-error-layers ]] || fail "cargo install: no binary in $out/cargo-root/bin"
t_build=$(since "$t0")
t1=$(now)
cmd=(mcp-error-layers)
counts=$(cd "$out/cargo-root" && PATH="$out/cargo-root/bin:$PATH" check_installed cargo "$out/cargo-root/bin")
report "cargo install --path cli --locked: ok in $(since "$t0") s (build and install $t_build s; --version and run $(since "$t1") s: $counts)"

# --- 2. the Python wheel -----------------------------------------------------------------------
t0=$(now)
maturin_venv=$out/maturin-venv
want=$(grep -E '^maturin==' packaging/pypi/requirements.txt | sed 's/^maturin==//')
if [[ "$("$maturin_venv/bin/maturin" --version 2>/dev/null)" != "maturin $want" ]]; then
  rm -rf "$maturin_venv"
  python3 -m venv "$maturin_venv"
  "$maturin_venv/bin/pip" install --quiet --disable-pip-version-check -r packaging/pypi/requirements.txt
fi
t_maturin=$(since "$t0")
t1=$(now)
rm -rf "$out/wheels"
# `--profile dev`: the artefacts that `cargo install` above found or built; the wheel's platform
# tag is still the manylinux one that maturin's audit finds for the binary.
(cd packaging/pypi && "$maturin_venv/bin/maturin" build --quiet --profile dev --locked --out "$out/wheels") >&2
wheels=("$out/wheels"/mcp_error_layers-"$version"-*.whl)
[[ ${#wheels[@]} == 1 && -f ${wheels[0]} ]] || fail "maturin: expected one wheel in $out/wheels"
t_build=$(since "$t1")
t1=$(now)
venv=$out/pip-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-index "${wheels[0]}"
t_install=$(since "$t1")
t1=$(now)
cmd=(mcp-error-layers)
counts=$(cd "$venv" && PATH="$venv/bin:$PATH" VIRTUAL_ENV="$venv" check_installed pip "$venv/bin")
report "pip install $(basename "${wheels[0]}"): ok in $(since "$t0") s (maturin venv $t_maturin s; wheel $t_build s; venv and install $t_install s; --version and run $(since "$t1") s: $counts)"

# --- 3. the npm packages -----------------------------------------------------------------------
t0=$(now)
read -r node_os node_cpu < <(node -p 'process.platform + " " + process.arch')
platform=$node_os-$node_cpu
exe=mcp-error-layers
[[ $node_os == win32 ]] && exe=mcp-error-layers.exe
grep -q "\"@mcp-error-layers/cli-$platform\"" packaging/npm/mcp-error-layers/package.json \
  || fail "npm: $platform is not among the optionalDependencies of packaging/npm/mcp-error-layers/package.json"
npm_out=$out/npm
rm -rf "$npm_out"
mkdir -p "$npm_out/platform/bin"
sed -e "s/@PLATFORM@/$platform/g" -e "s/@VERSION@/$version/g" -e "s/@OS@/$node_os/g" \
  -e "s/@CPU@/$node_cpu/g" -e "s/@EXE@/$exe/g" packaging/npm/platform/package.json.in \
  >"$npm_out/platform/package.json"
# The binary that `cargo install` built above: one build per platform, as a release would have.
cp "$out/cargo-root/bin/mcp-error-layers" "$npm_out/platform/bin/$exe"
chmod 755 "$npm_out/platform/bin/$exe"
pack() { npm pack --silent --json --pack-destination "$npm_out" "$1" | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s)[0].filename));'; }
platform_tgz=$npm_out/$(pack "$npm_out/platform")
main_tgz=$npm_out/$(pack "$root/packaging/npm/mcp-error-layers")
t_pack=$(since "$t0")
t1=$(now)
# A fresh project folder of its own (its package.json keeps npm from taking a parent folder's).
# `--offline`: the other platforms' packages are not published, and npm must not ask a registry
# for them (it would skip them as optional anyway).
install_dir=$npm_out/install
mkdir -p "$install_dir"
echo '{ "private": true }' >"$install_dir/package.json"
(cd "$install_dir" && npm install --offline --no-audit --no-fund --loglevel warn "$platform_tgz" "$main_tgz") >&2
t_install=$(since "$t1")
t1=$(now)
cmd=(npx --offline --no-install mcp-error-layers)
counts=$(cd "$install_dir" && check_installed npm "")
# The launcher passes the binary's exit code on (2: a usage error).
status=0
(cd "$install_dir" && npx --offline --no-install mcp-error-layers --no-such-flag >/dev/null 2>&1) || status=$?
((status == 2)) || fail "npm: the launcher exited $status on a usage error, where the binary exits 2"
# Without the platform package, the launcher names the platform.
bare=$npm_out/no-platform
mkdir -p "$bare"
echo '{ "private": true }' >"$bare/package.json"
(cd "$bare" && npm install --offline --no-audit --no-fund --loglevel error --omit=optional "$main_tgz") >&2
status=0
message=$(cd "$bare" && npx --offline --no-install mcp-error-layers --version 2>&1) || status=$?
[[ $status == 1 && $message == *"no binary for this platform ($platform)"* ]] \
  || fail "npm: without its platform package the launcher exited $status and said: $message"
report "npm install $(basename "$platform_tgz") $(basename "$main_tgz"), npx mcp-error-layers: ok in $(since "$t0") s (stage and pack $t_pack s; install $t_install s; --version, run and launcher checks $(since "$t1") s: $counts)"
