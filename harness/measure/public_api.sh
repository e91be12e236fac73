#!/usr/bin/env bash
# public_api.sh [SOURCE_DIR]: counts the documented public API of the mcp-error-layers library at
# SOURCE_DIR (default: this checkout) from `cargo doc --no-deps`: hidden items have no page.
# Prints modules, items (by kind), members (methods, fields, variants, associated items) and,
# of those, the fields, variants and associated consts.
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$src/target}
cd "$src"
rm -rf "$CARGO_TARGET_DIR/doc/mcp_error_layers"
cargo doc --no-deps -p mcp-error-layers --lib -q 2>/dev/null
doc=$CARGO_TARGET_DIR/doc/mcp_error_layers
# Redirect pages (rustdoc's stubs at an inlined item's original path) are no items.
real() { find "$doc" -name '*.html' -print0 | xargs -0 grep -L 'http-equiv="refresh"'; }
modules=$(real | grep -c '/index\.html$')
kinds=$(real | grep -v '/index\.html$' | grep -E '/(struct|enum|fn|trait|macro|constant|type|static|union)\.' \
  | sed 's|.*/||' | cut -d. -f1 | sort | uniq -c | tr -s ' ' | tr '\n' ',')
items=$(real | grep -cE '/(struct|enum|fn|trait|macro|constant|type|static|union)\.')
members=$(real | xargs cat | grep -oE 'id="(method|tymethod|associatedconstant|associatedtype|structfield|variant)\.[A-Za-z0-9_]+"' | wc -l)
fields=$(real | xargs cat | grep -oE 'id="(structfield|variant|associatedconstant)\.[A-Za-z0-9_]+"' | wc -l)
echo "modules=$modules items=$items ($kinds) members=$members (fields, variants, assoc. consts: $fields)"
