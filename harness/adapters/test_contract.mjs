// Tests of contract.mjs: `node --test harness/adapters/test_contract.mjs` (`cargo test --test
// adapter_scripts` runs them). No npm dependency, as contract.mjs has none.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { caught, describe, keeping } from './contract.mjs';

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
