// Tests of contract.mjs: `node --test harness/adapters/test_contract.mjs` (`cargo test --test
// adapter_scripts` runs them). No npm dependency, as contract.mjs has none.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { callFromEnv, callFromRequest, caught, describe, keeping, NO_STDIO, stdioServer, withoutStdio } from './contract.mjs';

const label = (error) => `${error.name}: ${error.message}`;
const describeOne = (error) => describe(error, label);

test('a group the call site caught is unclassified and names the group and every error it holds', () => {
  const http = new Error('POSTing to endpoint (HTTP 503): Service Unavailable', { cause: new TypeError('fetch failed') });
  const group = new AggregateError([http, new RangeError('second')], 'two calls failed');
  const seen = caught(group, describeOne, 'callTool failed: ');
  assert.deepEqual(seen, {
    outcome: 'UNCLASSIFIED_ERROR',
    status: null,
    code: null,
    detail:
      'callTool failed: AggregateError: two calls failed, holding: Error: POSTing to endpoint (HTTP 503): Service Unavailable <- caused by TypeError: fetch failed | RangeError: second',
  });
});

test('a SuppressedError of `await using` is a group too', () => {
  const suppressed = new Error('close failed');
  const error = new Error('call failed');
  const group = Object.assign(new Error('An error was suppressed during disposal.'), { name: 'SuppressedError', error, suppressed });
  const seen = caught(group, describeOne);
  assert.equal(seen.outcome, 'UNCLASSIFIED_ERROR');
  assert.equal(seen.detail, 'SuppressedError: An error was suppressed during disposal., holding: Error: call failed | Error: close failed');
});

test('an error with a cause is no group: the row maps it as its SDK documents', () => {
  const error = new Error('Streamable HTTP error', { cause: new TypeError('fetch failed') });
  assert.equal(caught(error, describeOne), undefined);
  assert.equal(caught('a string', describeOne), undefined);
  assert.equal(caught(undefined, describeOne), undefined);
});

/** A row whose client counts its opens and calls; `args.fail` fails the call, `args.refuse` the open. */
function countingRow() {
  const row = {
    opened: 0,
    closed: [],
    steps: () => ({ where: 'call failed: ', now: 'connect' }),
    async open(call) {
      if (call.arguments.refuse) throw new Error('refused');
      row.opened += 1;
      return { number: row.opened, calls: 0 };
    },
    async call(client, call) {
      client.calls += 1;
      if (call.arguments.fail) throw new Error(`call ${client.calls} failed`);
      return { outcome: 'TOOL_SUCCESS', detail: `client ${client.number} call ${client.calls}` };
    },
    error: (error, call, steps, client) => ({ outcome: 'UNCLASSIFIED_ERROR', detail: `${error.message} (client ${client?.number})` }),
    close: (client) => row.closed.push(client.number),
  };
  return row;
}

/** The calls of one case on client `client`, with these arguments. */
const caseCalls = (client, ...args) =>
  args.map((a, index) => ({ arguments: a, task: null, client, index, calls: args.length, isLast: index + 1 === args.length }));

test('keeping runs the calls of a case on one client, through a fault, and closes it after the last', async () => {
  const row = countingRow();
  const observe = keeping(row);
  const seen = [];
  for (const call of caseCalls(7, {}, { fail: true }, {})) seen.push((await observe(call)).detail);
  assert.deepEqual(seen, ['client 1 call 1', 'call 2 failed (client 1)', 'client 1 call 3']);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(row.closed, [1]);
  assert.equal((await observe(caseCalls(8, {})[0])).detail, 'client 2 call 1', 'another case, another client');
});

test('keeping opens again for the next call after a connect that failed', async () => {
  const row = countingRow();
  const observe = keeping(row);
  const [first, second] = caseCalls(9, { refuse: true }, {});
  assert.equal((await observe(first)).detail, 'refused (client undefined)');
  assert.equal((await observe(second)).detail, 'client 1 call 1');
});

// The stdio transport (issue 33): the call names its transport; over stdio it carries the server's
// command line instead of an endpoint.

const SERVER = ['/usr/bin/mcp-error-layers', 'stdio-server', '--session', '/tmp/mcp-error-layers-stdio-1/session.json'];

/** The one-shot environment of a call, beside `extra`. */
const oneShotEnv = (extra) => ({ MCP_ERROR_LAYERS_TOOL: 'synthetic', MCP_ERROR_LAYERS_TIMEOUT_MS: '1500', ...extra });

test('a one-shot call over HTTP is as before: the URL last, no command', () => {
  const argv = ['node', 'adapter.mjs', 'http://127.0.0.1:4000/mcp'];
  for (const env of [oneShotEnv({}), oneShotEnv({ MCP_ERROR_LAYERS_TRANSPORT: 'http' })]) {
    const call = callFromEnv('', env, argv);
    assert.equal(call.transport, 'http');
    assert.equal(call.endpoint, 'http://127.0.0.1:4000/mcp');
    assert.equal(call.command, null);
    assert.equal(call.timeoutMs, 1500);
  }
  assert.throws(() => callFromEnv('', oneShotEnv({}), ['node', 'adapter.mjs', 'stdio']), /usage: adapter.mjs <endpoint-url>/);
});

test('an authorization call carries its credentials in both modes, and every other call null', () => {
  const auth = { access_token: 'mel_at_1_0123456789abcdef', refresh_token: null, client_id: 'mel-client' };
  const argv = ['node', 'adapter.mjs', 'http://127.0.0.1:4000/mcp'];
  assert.equal(callFromEnv('', oneShotEnv({}), argv).auth, null);
  assert.deepEqual(callFromEnv('', oneShotEnv({ MCP_ERROR_LAYERS_AUTH: JSON.stringify(auth) }), argv).auth, auth);
  const line = { endpoint: 'http://127.0.0.1:1/mcp', tool: 't', arguments: {}, protocol_version: '2025-11-25', timeout_ms: 400 };
  assert.equal(callFromRequest(line).auth, null);
  assert.deepEqual(callFromRequest({ ...line, auth }).auth, auth);
});

test('a one-shot call over stdio has the command from MCP_ERROR_LAYERS_STDIO_COMMAND and the word stdio last', () => {
  const env = oneShotEnv({ MCP_ERROR_LAYERS_TRANSPORT: 'stdio', MCP_ERROR_LAYERS_STDIO_COMMAND: JSON.stringify(SERVER) });
  const call = callFromEnv('[--tasks]', env, ['node', 'adapter.mjs', '--tasks', 'stdio']);
  assert.equal(call.transport, 'stdio');
  assert.equal(call.endpoint, null);
  assert.deepEqual(call.command, SERVER);
  assert.deepEqual(stdioServer(call), { command: SERVER[0], args: SERVER.slice(1) });
  assert.equal(call.tool, 'synthetic');
  assert.equal(call.isLast, true);
});

test('a one-shot stdio call without its command, with a URL last, or with a bad command is refused', () => {
  const argv = ['node', 'adapter.mjs', 'stdio'];
  const stdio = { MCP_ERROR_LAYERS_TRANSPORT: 'stdio' };
  assert.throws(() => callFromEnv('', oneShotEnv(stdio), argv), /MCP_ERROR_LAYERS_STDIO_COMMAND is not set/);
  const withCommand = { ...stdio, MCP_ERROR_LAYERS_STDIO_COMMAND: JSON.stringify(SERVER) };
  assert.throws(() => callFromEnv('', oneShotEnv(withCommand), ['node', 'adapter.mjs', 'http://127.0.0.1:4000/mcp']), /usage: adapter.mjs stdio/);
  for (const bad of ['[]', '"/bin/server"', '[1, 2]', '[""]', 'not json', '{"command": "x"}']) {
    assert.throws(() => callFromEnv('', oneShotEnv({ ...stdio, MCP_ERROR_LAYERS_STDIO_COMMAND: bad }), argv), /MCP_ERROR_LAYERS_STDIO_COMMAND must be a JSON array of strings/, bad);
  }
  assert.throws(() => callFromEnv('', oneShotEnv({ MCP_ERROR_LAYERS_TRANSPORT: 'websocket' }), argv), /MCP_ERROR_LAYERS_TRANSPORT must be http or stdio/);
});

/** A persistent request line's fields, beside `extra`. */
const request = (extra) => ({ tool: 'synthetic', arguments: {}, protocol_version: '2025-11-25', timeout_ms: 1500, annotations: {}, list_tools: false, client: 3, call: 0, calls: 2, ...extra });

test('a persistent request names its transport: http (or none, as before) with an endpoint, stdio with a command', () => {
  for (const extra of [{ endpoint: 'http://127.0.0.1:4000/mcp' }, { transport: 'http', endpoint: 'http://127.0.0.1:4000/mcp' }]) {
    const call = callFromRequest(request(extra));
    assert.equal(call.transport, 'http');
    assert.equal(call.endpoint, 'http://127.0.0.1:4000/mcp');
    assert.equal(call.command, null);
  }
  const call = callFromRequest(request({ transport: 'stdio', command: SERVER, endpoint: null }));
  assert.equal(call.transport, 'stdio');
  assert.equal(call.endpoint, null);
  assert.deepEqual(call.command, SERVER);
  assert.deepEqual([call.client, call.index, call.calls, call.isLast], [3, 0, 2, false]);
  assert.throws(() => callFromRequest(request({ transport: 'stdio', endpoint: null })), /a stdio request's command must be a JSON array of strings/);
  assert.throws(() => callFromRequest(request({ transport: 'stdio', command: 'server', endpoint: null })), /must be a JSON array of strings/);
  assert.throws(() => callFromRequest(request({ transport: 'pipe', endpoint: null })), /transport must be "http" or "stdio"/);
});

test('withoutStdio answers a stdio call unsupported and lets an HTTP call through', async () => {
  const observe = withoutStdio(async (call) => ({ outcome: 'TOOL_SUCCESS', detail: call.transport }));
  assert.deepEqual(await observe({ transport: 'stdio' }), { unsupported: NO_STDIO });
  assert.deepEqual(await observe({ transport: 'http' }), { outcome: 'TOOL_SUCCESS', detail: 'http' });
  assert.deepEqual(await withoutStdio(observe, 'no stdio here')({ transport: 'stdio' }), { unsupported: 'no stdio here' });
});

/**
 * A row for the runs below, in a folder of its own: it reports the transport, endpoint and
 * command it was given, on the client of the case (the count of its opens), and speaks stdio
 * when its first argument is `--stdio`.
 */
function echoRow() {
  const dir = mkdtempSync(join(tmpdir(), 'contract-mjs-'));
  const program = join(dir, 'row.mjs');
  writeFileSync(
    program,
    `import * as contract from ${JSON.stringify(new URL('./contract.mjs', import.meta.url).href)};
let opened = 0;
const row = {
  steps: () => new contract.Steps({ connect: 'connect', list: 'list', call: 'call' }),
  open: async (call) => ({ number: (opened += 1), how: call.transport === 'stdio' ? contract.stdioServer(call) : call.endpoint }),
  call: async (client, call) => contract.observation('TOOL_SUCCESS', null, null, JSON.stringify({ transport: call.transport, endpoint: call.endpoint, client: client.number, how: client.how })),
  error: (error) => contract.observation('UNCLASSIFIED_ERROR', null, null, String(error)),
  close: () => {},
};
const stdio = contract.rowArguments().includes('--stdio');
contract.run(contract.keeping(row), { sdk: { name: 'echo', version: '0' }, options: '[--stdio]', describeOne: String, stdio });
`,
  );
  return { program, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs `program` with `args` and `env` added to this process's (without its MCP_ERROR_LAYERS_*
 * variables), its stdin `input`; resolves to its stdout lines.
 */
function runRow(program, args, env, input = '') {
  const own = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MCP_ERROR_LAYERS_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [program, ...args], { env: { ...own, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    child.on('error', reject);
    child.on('close', () => resolve(lines));
    child.stdin.end(input);
  });
}

test('one-shot: a row that speaks stdio gets the command, one that does not answers unsupported', async () => {
  const { program, done } = echoRow();
  try {
    const env = oneShotEnv({ MCP_ERROR_LAYERS_TRANSPORT: 'stdio', MCP_ERROR_LAYERS_STDIO_COMMAND: JSON.stringify(SERVER) });
    const [speaks] = await runRow(program, ['--stdio', 'stdio'], env);
    const seen = JSON.parse(JSON.parse(speaks).detail);
    assert.deepEqual(seen, { transport: 'stdio', endpoint: null, client: 1, how: { command: SERVER[0], args: SERVER.slice(1) } });
    const [refuses] = await runRow(program, ['stdio'], env);
    assert.deepEqual(JSON.parse(refuses), { unsupported: NO_STDIO });
    const [http] = await runRow(program, ['--stdio', 'http://127.0.0.1:4000/mcp'], oneShotEnv({}));
    assert.deepEqual(JSON.parse(JSON.parse(http).detail), { transport: 'http', endpoint: 'http://127.0.0.1:4000/mcp', client: 1, how: 'http://127.0.0.1:4000/mcp' });
  } finally {
    done();
  }
});

test('persistent: stdio and HTTP requests side by side, each case on its client; a bad request is that call\'s failure only', async () => {
  const { program, done } = echoRow();
  try {
    const lines = [
      request({ id: 1, transport: 'stdio', command: SERVER, endpoint: null, client: 1, call: 0, calls: 2 }),
      request({ id: 2, endpoint: 'http://127.0.0.1:4000/mcp', client: 2, call: 0, calls: 1 }),
      request({ id: 3, transport: 'stdio', endpoint: null, client: 3, call: 0, calls: 1 }), // no command
      request({ id: 4, transport: 'stdio', command: SERVER, endpoint: null, client: 1, call: 1, calls: 2 }),
    ];
    const input = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    const [announce, ...answers] = await runRow(program, ['--stdio'], { MCP_ERROR_LAYERS_MODE: 'persistent' }, input);
    assert.equal(JSON.parse(announce).persistent, 1);
    const byId = Object.fromEntries(answers.map((line) => JSON.parse(line)).map((answer) => [answer.id, answer]));
    const detail = (id) => JSON.parse(byId[id].detail);
    assert.deepEqual(detail(1), { transport: 'stdio', endpoint: null, client: 1, how: { command: SERVER[0], args: SERVER.slice(1) } });
    assert.deepEqual(detail(4), detail(1), 'the second call of the case runs on the client of its first');
    assert.deepEqual(detail(2), { transport: 'http', endpoint: 'http://127.0.0.1:4000/mcp', client: 2, how: 'http://127.0.0.1:4000/mcp' });
    assert.match(byId[3].error, /a stdio request's command must be a JSON array of strings/);
    const refused = await runRow(program, [], { MCP_ERROR_LAYERS_MODE: 'persistent' }, `${JSON.stringify(lines[0])}\n`);
    assert.deepEqual(JSON.parse(refused[1]), { id: 1, unsupported: NO_STDIO });
  } finally {
    done();
  }
});
