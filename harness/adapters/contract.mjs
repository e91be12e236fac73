// The adapter contract (docs/adapters.md) for the Node adapters here, in one place: a row keeps
// only what is its SDK's (how to connect and call, and how the SDK's surface maps to an outcome).
//
// - `run(observe, sdk)` runs a row in the mode the runner asked for. One-shot: the endpoint URL is
//   the last argument and the call comes in the MCP_ERROR_LAYERS_* variables; exactly one JSON
//   line goes to stdout, everything else to stderr. Persistent (MCP_ERROR_LAYERS_MODE=persistent):
//   announce `{"persistent": 1, "concurrent": CONCURRENT, "name": ..., "version": ...}`, then serve
//   every request line as it comes, many at once, and answer each with one line that carries its
//   request's `id`. Stdin closing means no more calls: the calls in flight finish, then the process
//   exits. A row's imports (its SDK) are loaded before any of this runs, so the announcement comes
//   after them: a call's deadline starts when its request line is written.
// - A call is `{transport, endpoint, command, tool, arguments, protocolVersion, timeoutMs,
//   annotations, listTools, task, auth, client, index, calls, isLast}`; `Steps` lists the tools first
//   when the call asks; `keeping(row)` runs the calls of a case on one client object
//   (docs/adapters.md, "One client per case").
// - `transport` is 'http' (the call's `endpoint` is the URL, `command` null) or 'stdio' (the
//   client starts the harness's stdio server itself: `command` is its command line, program first,
//   and `endpoint` is null); `stdioServer(call)` splits it into the `{command, args}` every stdio
//   client entry point takes. A row that speaks stdio passes `stdio: true` to `run`; every other
//   row answers a stdio call `unsupported` (`withoutStdio`).
// - `observation` is one observation line; `describe` puts an error and its causes into its
//   `detail`, `caught` maps a group the call site caught (AggregateError) as a whole, `Reported` what the SDK reported on a side channel; `fetchOutcome` reads the
//   connection from Node's fetch (undici), which every SDK here uses.
// - `oauthProvider(auth)` is the TypeScript SDK's `OAuthClientProvider` over an authorization
//   case's start credentials (docs/adapters.md, "Credentials"), for every row whose client takes one.
//
// Calls at once share stderr: every line written to it while a request is served (the adapter's
// own notes, the SDK's, an unhandled rejection) starts with `[<id>] `, so that a reader can tell
// the calls apart. The request a line belongs to is tracked with AsyncLocalStorage, which follows
// the SDK's promises and timers.
//
// No npm dependency: each adapter folder has its own node_modules, and this file is shared by
// relative import (`../contract.mjs`).

import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';

/** How many calls one process serves at once: the cases of a matrix row that run at once. */
export const CONCURRENT = 16;

/** `detail` is the SDK's own text, whitespace collapsed, cut at this many characters. */
const MAX_DETAIL = 600;

const PERSISTENT = process.env.MCP_ERROR_LAYERS_MODE === 'persistent';

// Cause codes of a `fetch failed` TypeError (undici) that mean no HTTP response arrived.
const CONNECTION_CAUSES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

const request = new AsyncLocalStorage();

export function observation(outcome, status, code, detail) {
  const text = String(detail).replace(/\s+/g, ' ');
  return {
    outcome,
    status,
    code,
    detail: text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text,
  };
}

/**
 * The row's own arguments: those before the endpoint URL (one-shot), or all of them (persistent,
 * where each request names its endpoint).
 */
export function rowArguments() {
  const words = process.argv.slice(2);
  return PERSISTENT ? words : words.slice(0, -1);
}

/**
 * The installed version of `name`, from the `node_modules` beside the row's file (`rowUrl`, its
 * `import.meta.url`). Read from the file: a package's `exports` map may resolve `./package.json`
 * to a stub of its own.
 */
export function packageVersion(name, rowUrl) {
  return JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, rowUrl))).version;
}

/**
 * Where a call is: 'connect' until the SDK is connected, 'list' while it lists the tools (when the
 * call asks), then 'call'. An error is reported after the words of the step it came from,
 * `<the SDK's name for the step> failed: `.
 */
export class Steps {
  constructor({ connect, list, call }) {
    this.names = { connect, list, call };
    this.now = 'connect';
  }

  get where() {
    return `${this.names[this.now]} failed: `;
  }

  /**
   * Lists the tools first when the call asks, as an application does to learn the tool's schemas
   * (a client can only check `structuredContent` against a schema it has seen), then makes the
   * call and returns what it returned.
   */
  async listThenCall(call, listTools, callTool) {
    if (call.listTools) {
      this.now = 'list';
      await listTools();
    }
    this.now = 'call';
    return callTool();
  }
}

/** A ZodError (the SDKs' schema checks), told by its fields. */
export function isZod(error) {
  return error?.name === 'ZodError' || Array.isArray(error?.issues);
}

/** A ZodError's issues in one line: `path: message [code]` each. */
function zodSummary(error) {
  const issues = error.issues.map((issue) => `${issue.path?.length ? issue.path.join('.') : '(root)'}: ${issue.message} [${issue.code}]`);
  return `ZodError: ${issues.join('; ')}`;
}

/**
 * An error and its `cause` chain as text: `label(error)` for each error in it (the row's words
 * for its SDK's fields), a ZodError as its issues, anything not an object as itself. The chain
 * ends after `depth` errors, or after an error for which `last(error)` is true.
 */
export function describe(error, label, { depth = 4, last = () => false } = {}) {
  if (error === null || error === undefined) return String(error);
  const parts = [];
  let current = error;
  for (let n = 0; current && n < depth; n += 1) {
    if (isZod(current)) {
      parts.push(zodSummary(current));
      break;
    }
    if (typeof current !== 'object') {
      parts.push(String(current));
      break;
    }
    parts.push(label(current));
    if (last(current)) break;
    current = current.cause;
  }
  return parts.join(' <- caused by ');
}

/** An error that holds others instead of being one: AggregateError, SuppressedError. */
function isGroup(error) {
  return Array.isArray(error?.errors) || (error?.name === 'SuppressedError' && 'suppressed' in error);
}

/**
 * The observation for a group the application's call site caught (an AggregateError, a
 * SuppressedError of `await using`): what the application catches is the group, and no typed
 * field of it names a layer, so it is UNCLASSIFIED_ERROR with the group and every error it holds
 * (each with its causes, by `describeOne`) in `detail`, after `where`. Undefined for any other
 * error, which the row maps as its SDK documents (docs/adapters.md, "What the application
 * catches").
 */
export function caught(error, describeOne, where = '') {
  if (!isGroup(error)) return undefined;
  const held = Array.isArray(error.errors) ? error.errors : [error.error, error.suppressed];
  const name = `${error.name ?? 'Error'}: ${error.message ?? ''}`.trim();
  const text = `${where}${name}, holding: ${held.map((e) => describeOne(e)).join(' | ') || 'nothing'}`;
  return observation('UNCLASSIFIED_ERROR', null, null, text);
}

/**
 * The errors an SDK reports on a side channel besides the call (`onerror`, say: transport-level
 * failures often go there first), kept for the call's `detail` and noted on stderr.
 */
export class Reported {
  constructor(via, describeOne) {
    this.via = via;
    this.describeOne = describeOne;
    this.errors = [];
    /** The listener to give the SDK. */
    this.listener = (error) => {
      this.errors.push(error);
      console.error(`sdk ${via}: ${describeOne(error)}`);
    };
  }

  includes(error) {
    return this.errors.includes(error);
  }

  /** The errors reported besides `besides` (those the call raised), for the end of `detail`; '' when none. */
  besides(...besides) {
    const others = this.errors.filter((error) => !besides.includes(error));
    if (others.length === 0) return '';
    return `; the SDK reported via ${this.via}: ${others.map(this.describeOne).join(' | ')}`;
  }
}

function causeCode(error) {
  let current = error?.cause;
  for (let depth = 0; current && depth < 4; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause;
  }
  return undefined;
}

/**
 * What Node's fetch (undici) says about the connection: `fetch failed` means fetch() itself
 * rejected, before any response (CONNECTION_ERROR when its cause says the connection failed,
 * UNCLASSIFIED_ERROR otherwise); `terminated` means the body of a response that had started was
 * cut off (STREAM_INCOMPLETE). Undefined for any other error.
 */
export function fetchOutcome(error) {
  if (!(error instanceof TypeError)) return undefined;
  if (error.message === 'fetch failed') return CONNECTION_CAUSES.has(causeCode(error)) ? 'CONNECTION_ERROR' : 'UNCLASSIFIED_ERROR';
  if (error.message === 'terminated') return 'STREAM_INCOMPLETE';
  return undefined;
}

function requiredEnv(name, env = process.env) {
  const value = env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

/** The transports a call can name (docs/adapters.md; the stdio transport: issue 33). */
const TRANSPORTS = new Set(['http', 'stdio']);

/**
 * The stdio server's command line (`value`: an array of strings, program first), checked: the
 * array, or an Error naming `what` (where it came from).
 */
function stdioCommand(value, what) {
  if (!Array.isArray(value) || value.length === 0 || !value.every((word) => typeof word === 'string') || value[0] === '') {
    throw new Error(`${what} must be a JSON array of strings, program first (got ${JSON.stringify(value)})`);
  }
  return value;
}

/**
 * The one-shot call: the MCP_ERROR_LAYERS_* variables and the last argument, the endpoint URL
 * over HTTP or the word `stdio` over stdio (MCP_ERROR_LAYERS_TRANSPORT=stdio, the server's command
 * line in MCP_ERROR_LAYERS_STDIO_COMMAND). `env` and `argv` are the process's unless given.
 */
export function callFromEnv(options, env = process.env, argv = process.argv) {
  const last = argv[argv.length - 1];
  const transport = env.MCP_ERROR_LAYERS_TRANSPORT ?? 'http';
  if (!TRANSPORTS.has(transport)) throw new Error(`MCP_ERROR_LAYERS_TRANSPORT must be http or stdio (got ${JSON.stringify(transport)})`);
  const stdio = transport === 'stdio';
  if (argv.length < 3 || (stdio ? last !== 'stdio' : !/^https?:\/\//.test(last))) {
    const usage = [basename(argv[1] ?? 'adapter.mjs'), options, stdio ? 'stdio' : '<endpoint-url>'].filter(Boolean).join(' ');
    throw new Error(`usage: ${usage} (the call comes in MCP_ERROR_LAYERS_* variables)`);
  }
  let command = null;
  if (stdio) {
    const text = requiredEnv('MCP_ERROR_LAYERS_STDIO_COMMAND', env);
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    command = stdioCommand(parsed, 'MCP_ERROR_LAYERS_STDIO_COMMAND');
  }
  const timeoutMs = Number.parseInt(env.MCP_ERROR_LAYERS_TIMEOUT_MS ?? '5000', 10);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new Error('MCP_ERROR_LAYERS_TIMEOUT_MS must be a positive integer');
  }
  return {
    transport,
    endpoint: stdio ? null : last,
    command,
    tool: requiredEnv('MCP_ERROR_LAYERS_TOOL', env),
    arguments: JSON.parse(env.MCP_ERROR_LAYERS_ARGUMENTS ?? '{}'),
    protocolVersion: env.MCP_ERROR_LAYERS_PROTOCOL_VERSION ?? '2026-07-28',
    timeoutMs,
    annotations: JSON.parse(env.MCP_ERROR_LAYERS_TOOL_ANNOTATIONS ?? '{}'),
    listTools: env.MCP_ERROR_LAYERS_LIST_TOOLS === '1',
    // The application asks for the call as a task ({} or {ttl_ms}); null for an ordinary call.
    task: env.MCP_ERROR_LAYERS_TASK === undefined ? null : JSON.parse(env.MCP_ERROR_LAYERS_TASK),
    // The client's start credentials in an authorization case; null in every other (docs/adapters.md, "Credentials").
    auth: env.MCP_ERROR_LAYERS_AUTH === undefined ? null : JSON.parse(env.MCP_ERROR_LAYERS_AUTH),
    // A process started for one call has a client of its own (docs/adapters.md, "One client per case").
    ...clientOf(null, env.MCP_ERROR_LAYERS_CALL_INDEX, env.MCP_ERROR_LAYERS_CALLS),
  };
}

/** Which client a call runs on: `client` (null: one of its own), its `index`, its client's `calls`. */
function clientOf(client, index, calls) {
  const call = Number.parseInt(index ?? '0', 10) || 0;
  const all = Math.max(Number.parseInt(calls ?? '1', 10) || 1, 1);
  return { client, index: call, calls: all, isLast: call + 1 >= all };
}

/**
 * A persistent-mode request line, parsed. A request without `transport` is an HTTP one (a runner
 * from before the stdio transport); a stdio request has `command` and `"endpoint": null`.
 */
export function callFromRequest(r) {
  const transport = r.transport ?? 'http';
  if (!TRANSPORTS.has(transport)) throw new Error(`the request's transport must be "http" or "stdio" (got ${JSON.stringify(transport)})`);
  const stdio = transport === 'stdio';
  return {
    transport,
    endpoint: stdio ? null : r.endpoint,
    command: stdio ? stdioCommand(r.command, "a stdio request's command") : null,
    tool: r.tool,
    arguments: r.arguments,
    protocolVersion: r.protocol_version,
    timeoutMs: r.timeout_ms,
    annotations: r.annotations ?? {},
    listTools: r.list_tools === true,
    task: r.task ?? null,
    auth: r.auth ?? null,
    ...clientOf(r.client ?? null, String(r.call ?? 0), String(r.calls ?? 1)),
  };
}

/** The most clients one process keeps between calls (the runner takes each back at its case's next call). */
const MAX_CLIENTS = 1024;

/**
 * One client per case (docs/adapters.md, "One client per case"): an `observe` for `run` that
 * keeps each case's client object between its calls, opened for its first call and closed after
 * its last, as an application keeps its client after a fault. `row` has:
 * - `steps(call)`: a fresh `Steps`, the SDK's names for the steps;
 * - `open(call, steps)`: resolves to the client object, connected (`steps.now` is 'connect'); on
 *   failure it closes what it made and throws;
 * - `call(client, call, steps)`: one call on the client, resolving to its observation; what it
 *   throws is the application's to catch;
 * - `error(error, call, steps, client)`: the observation for an error the application caught
 *   (`client` is undefined when the connect failed);
 * - `close(client)`: closes it after the case's last call (what it throws goes to stderr);
 * - `refuse(call)`, optional: `{unsupported: why}` for a call the row cannot make, or undefined.
 * A connect that fails is that call's observation, and the next call connects again, as an
 * application that never got a client tries again. A client is closed only after its last call:
 * whatever a fault left it in, the next call goes through it.
 */
export function keeping(row) {
  const clients = new Map();
  return async (call) => {
    const refused = row.refuse?.(call);
    if (refused) return refused;
    let client = call.client === null ? undefined : clients.get(call.client);
    clients.delete(call.client);
    const steps = row.steps(call);
    let obs;
    try {
      if (client === undefined) client = await row.open(call, steps);
      obs = await row.call(client, call, steps);
    } catch (error) {
      obs = row.error(error, call, steps, client);
    }
    if (client !== undefined && !call.isLast && call.client !== null) {
      if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value);
      clients.set(call.client, client);
    } else if (client !== undefined) {
      Promise.resolve()
        .then(() => row.close(client))
        .catch((error) => console.error(`close: ${error?.stack ?? error}`));
    }
    return obs;
  };
}

/** Makes every stderr line written while a request is served start with `[<id>] `. */
function prefixStderr() {
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk, encoding, callback) => {
    const id = request.getStore();
    if (id === undefined) return write(chunk, encoding, callback);
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8');
    const prefixed = text.replace(/^(?=[^\n])/gm, `[${id}] `);
    return typeof encoding === 'function' ? write(prefixed, encoding) : write(prefixed, 'utf8', callback);
  };
}

function answer(id, obs) {
  const line = id === undefined ? obs : { id, ...obs };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/**
 * Announces persistent mode and serves request lines until stdin closes: `observe(call)` resolves
 * to the observation of one call. A request without `id` (a runner that sends one call at a time)
 * is answered without one.
 */
async function serve(observe, { name, version }) {
  prefixStderr();
  process.stdout.write(`${JSON.stringify({ persistent: 1, concurrent: CONCURRENT, name, version })}\n`);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const inFlight = new Set();
  for await (const line of lines) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    const done = request
      // async: a request that does not parse (callFromRequest throws) is that call's failure.
      .run(r.id, async () => observe(callFromRequest(r)))
      .then(
        (obs) => answer(r.id, obs),
        (error) => {
          // Not an observation: the runner makes this call an adapter-error and shows the line.
          request.run(r.id, () => console.error(`adapter error: ${error?.stack ?? error}`));
          answer(r.id, { error: `the adapter failed: ${error}` });
        },
      )
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  }
  await Promise.all(inFlight);
}

/** What an adapter that makes no task calls says to a call that asks for a task. */
export const NO_TASKS =
  'this adapter uses no task API of its client, so it cannot run a call as a task (docs/adapters.md, "Tasks")';

/** `observe`, with every call that asks for a task answered `unsupported` (NO_TASKS). */
export function withoutTasks(observe) {
  return async (call) => (call.task === null ? observe(call) : { unsupported: NO_TASKS });
}

/** What an adapter whose client has no stdio entry point says to a stdio call. */
export const NO_STDIO =
  'this adapter drives its client over HTTP only, so it cannot make a call over stdio (docs/adapters.md; the stdio transport)';

/** `observe`, with every call over stdio answered `unsupported` (`why`, NO_STDIO by default). */
export function withoutStdio(observe, why = NO_STDIO) {
  return async (call) => (call.transport === 'stdio' ? { unsupported: why } : observe(call));
}

/**
 * The TypeScript SDK's `OAuthClientProvider` interface (`@modelcontextprotocol/sdk/client/auth.js`)
 * for an authorization case: a token store seeded once, when the client is made, from the start
 * credentials `auth` (docs/adapters.md, "Credentials"), with the methods the SDK requires and none
 * of its optional ones. Every Node row whose client takes an `authProvider` (the SDK, and the
 * frameworks over it) gets this one; `describeOne` is the row's error description for its notes. `tokens()` returns what the store holds (null
 * fields left out), `saveTokens()` replaces it, `clientInformation()` is the pre-registered client.
 * `redirectToAuthorization` does what a browser opened on the URL would do first: one GET, no
 * redirect followed; nothing completes the authorization.
 */
export function oauthProvider(auth, describeOne = (error) => describe(error, '')) {
  const present = (object) => Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null && value !== undefined));
  let tokens = present({ access_token: auth.access_token, token_type: 'Bearer', refresh_token: auth.refresh_token, expires_in: auth.expires_in, scope: auth.scope });
  let codeVerifier;
  const confidential = auth.client_secret !== null && auth.client_secret !== undefined;
  return {
    get redirectUrl() {
      return auth.redirect_uri;
    },
    get clientMetadata() {
      return {
        redirect_uris: [auth.redirect_uri],
        client_name: 'mcp-error-layers-adapter',
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
      };
    },
    clientInformation: () => present({ client_id: auth.client_id, client_secret: auth.client_secret }),
    tokens: () => tokens,
    saveTokens(saved) {
      tokens = saved;
    },
    saveCodeVerifier(verifier) {
      codeVerifier = verifier;
    },
    codeVerifier: () => codeVerifier,
    async redirectToAuthorization(url) {
      const where = `${url.origin}${url.pathname}`;
      try {
        const response = await fetch(url, { redirect: 'manual' });
        await response.body?.cancel();
        console.error(`authorization: the SDK asked for an interactive authorization (redirectToAuthorization); one GET to ${where} answered ${response.status}; nothing completes it`);
      } catch (error) {
        console.error(`authorization: the SDK asked for an interactive authorization (redirectToAuthorization); the GET to ${where} failed: ${describeOne(error)}`);
      }
    },
  };
}

/**
 * The `{command, args}` of a stdio call's server (`call.command`: program first), as the stdio
 * client entry points take it (`StdioClientTransport({command, args})`, Mastra's and LangChain's
 * server configs, the AI SDK's `StdioMCPTransport`).
 */
export function stdioServer(call) {
  const [command, ...args] = call.command;
  return { command, args };
}

/**
 * Runs an adapter in the mode the runner asked for, then exits. `observe(call)` makes one call and
 * resolves to its observation; `sdk` is `{name, version}` of the SDK as its registry names it,
 * for the announcement; `options` is the synopsis of the row's own arguments for the usage line;
 * `describeOne` is the row's `describe`, for what goes wrong outside a call. An adapter that runs
 * task calls through its client's task API passes `tasks: true`; every other one answers a call
 * that asks for a task `unsupported` (`withoutTasks`). An adapter that drives its client over
 * stdio when the call says so passes `stdio: true`; every other one answers a stdio call
 * `unsupported` (`withoutStdio`).
 */
export function run(observe, { sdk, options = '', describeOne, tasks = false, stdio = false }) {
  if (!tasks) observe = withoutTasks(observe);
  if (!stdio) observe = withoutStdio(observe);
  // An unhandled rejection inside the SDK must not turn into a crash before the call is reported.
  process.on('unhandledRejection', (reason) => console.error(`unhandled rejection: ${describeOne(reason)}`));
  const done = PERSISTENT ? serve(observe, sdk) : once(observe, options);
  done.then(
    () => process.exit(0),
    (error) => {
      console.error(`adapter error: ${describeOne(error)}`);
      process.exit(2);
    },
  );
}

async function once(observe, options) {
  const obs = await observe(callFromEnv(options));
  await new Promise((resolve) => process.stdout.write(`${JSON.stringify(obs)}\n`, resolve));
}
