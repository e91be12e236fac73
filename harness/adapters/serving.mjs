// Persistent mode for the Node adapters here (docs/adapters.md, "Persistent mode"): announce
// `{"persistent": 1, "concurrent": CONCURRENT}`, then serve every request line as it comes, many
// at once, and answer each with one line that carries its request's `id`. Stdin closing means no
// more calls: the calls in flight finish, then the process exits.
//
// Calls at once share stderr: every line written to it while a request is served (the
// adapter's own notes, the SDK's, an unhandled rejection) starts with `[<id>] `, so that a reader
// can tell the calls apart. The request a line belongs to is tracked with AsyncLocalStorage, which
// follows the SDK's promises and timers.
//
// No npm dependency: each adapter folder has its own node_modules, and this file is shared by
// relative import (`../serving.mjs`).

import { AsyncLocalStorage } from 'node:async_hooks';
import { createInterface } from 'node:readline';

/** How many calls one process serves at once: the cases of a matrix row that run at once. */
export const CONCURRENT = 16;

const request = new AsyncLocalStorage();

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
 * Serves request lines until stdin closes: `handle(request)` resolves to the observation of one
 * call. A request without `id` (a runner that sends one call at a time) is answered without one.
 */
export async function serve(handle) {
  prefixStderr();
  process.stdout.write(`${JSON.stringify({ persistent: 1, concurrent: CONCURRENT })}\n`);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const inFlight = new Set();
  for await (const line of lines) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    const done = request
      .run(r.id, () => handle(r))
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
