/**
 * Keeps one of Node's `process.nextTick` queue entries alive for the life of the process, so that
 * every later entry keeps one hidden class (issue 14, docs/benchmarks.md "Eighth session").
 *
 * Node 20 builds each entry as `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback,
 * args }` (lib/internal/process/task_queues.js). V8 11.3 caches the hidden class reached after
 * each computed key only weakly: a full garbage collection while no entry is alive (an idle
 * server, the memory reducer, the collections after PGlite's initdb) frees those classes, the
 * next entry gets new ones, and that literal's inline caches turn megamorphic for good. From then
 * on every `nextTick` (Node's streams and HTTP call it several times a request) adds its
 * properties through the runtime: 4.5 % of a status read's CPU in `perf`, none in the echo
 * server of the bench, which never sat idle. An entry kept alive keeps its class, and the
 * classes before it, so the caches stay monomorphic.
 *
 * Imported first by main.ts, for this effect only: the entry is captured before anything else
 * runs, through an `async_hooks` init hook enabled for that one `nextTick` and disabled at once
 * (no hook is left installed, so no promise pays for one).
 */
import { createHook } from 'node:async_hooks';

// The entry kept alive: a binding of this module, which Node keeps for the life of the process.
let kept: object | null = null;

const hook = createHook({
  init(_asyncId, type, _triggerAsyncId, resource) {
    if (type === 'TickObject' && kept === null) kept = resource;
  },
}).enable();
try {
  process.nextTick(() => {});
} finally {
  hook.disable();
}
