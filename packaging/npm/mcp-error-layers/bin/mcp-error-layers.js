#!/usr/bin/env node
// The `mcp-error-layers` command of the npm package: finds the native binary in the platform
// package that npm installed beside this one (one optional dependency per platform, each with
// `os` and `cpu`, so npm installs only the one that fits) and runs it with the same arguments and
// standard streams, exiting with its code. MCP_ERROR_LAYERS_BINARY names another binary to run.
"use strict";

const { spawnSync } = require("node:child_process");

const platform = `${process.platform}-${process.arch}`;
const pkg = `@mcp-error-layers/cli-${platform}`;
const exe = process.platform === "win32" ? "mcp-error-layers.exe" : "mcp-error-layers";

function binaryPath() {
  if (process.env.MCP_ERROR_LAYERS_BINARY) {
    return process.env.MCP_ERROR_LAYERS_BINARY;
  }
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    return null;
  }
}

const binary = binaryPath();
if (binary === null) {
  const platforms = Object.keys(require("../package.json").optionalDependencies || {}).map((name) =>
    name.replace("@mcp-error-layers/cli-", ""),
  );
  const hint = platforms.includes(platform)
    ? `npm installs it as an optional dependency: install again without --omit=optional (or --no-optional).`
    : `There is no package for this platform (there are: ${platforms.join(", ")}).`;
  console.error(
    `mcp-error-layers: no binary for this platform (${platform}): the package ${pkg} is not installed.\n` +
      `${hint}\nOr build from source: cargo install --path cli --locked (in a clone of the repository).`,
  );
  process.exit(1);
}

const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  console.error(`mcp-error-layers: cannot run ${binary}: ${result.error.message}`);
  process.exit(1);
}
if (result.signal) {
  // Die of the same signal, so that the caller sees what the binary did; failing that, exit as a
  // shell reports a death by signal (128 + its number).
  process.kill(process.pid, result.signal);
  process.exit(128 + (require("node:os").constants.signals[result.signal] || 0));
}
process.exit(result.status ?? 1);
