/**
 * src/tick-object-shape.ts (issue 14): after a full garbage collection while no `nextTick` entry
 * is alive, Node 20's `nextTick` keeps adding its entries' properties through the V8 runtime
 * (its inline caches turned megamorphic), unless the module keeps one entry alive. Checked in a
 * child process that V8 lets us ask (`--allow-natives-syntax`): the state of `nextTick`'s
 * caches after such a collection, without and with the module. Without it the caches must turn
 * megamorphic: if a later Node no longer does, this test says so, and the module can go.
 * `--no-flush-bytecode`: on a loaded machine V8 may otherwise drop `nextTick`'s compiled form,
 * caches included, between the collections and the question.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const moduleUrl = new URL('../../src/tick-object-shape.ts', import.meta.url).href;

/**
 * `nextTick`'s computed-key store caches (V8's %DebugPrint) after each of `rounds` rounds of
 * ticks then two full collections while idle: one list of cache states per round.
 */
function cacheStatesAfterIdleCollections(withModule: boolean, rounds: number): string[][] {
  const script = `
    ${withModule ? `await import(${JSON.stringify(moduleUrl)});` : ''}
    const show = new Function('f', '%DebugPrint(f)');
    const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let round = 0; round < ${rounds}; round++) {
      for (let burst = 0; burst < 5; burst++) {
        for (let i = 0; i < 2000; i++) process.nextTick(() => {});
        await pause(2);
      }
      await pause(20);
      await new Promise((resolve) => setImmediate(() => { globalThis.gc(); globalThis.gc(); resolve(); }));
      await pause(20);
      for (let i = 0; i < 2000; i++) process.nextTick(() => {});
      await pause(2);
      show(process.nextTick);
    }
  `;
  // No optimizing compiler and no bytecode flushing: the function's caches are then only what its
  // calls made them, on a machine however loaded. V8 prints on C's stdout, which loses what a
  // full pipe refuses (Node makes it non-blocking): the child writes to a file.
  const dir = mkdtempSync(join(tmpdir(), 'kolo-tick-'));
  const outPath = join(dir, 'out.txt');
  const out = openSync(outPath, 'w');
  let printed: string;
  try {
    const child = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--no-opt', '--no-flush-bytecode', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      stdio: ['ignore', out, 'pipe'],
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    printed = readFileSync(outPath, 'utf8');
  } finally {
    closeSync(out);
    rmSync(dir, { recursive: true, force: true });
  }
  return printed
    .split('DebugPrint: ') // how V8 begins each print (on C's stdout, buffered apart from Node's)
    .slice(1)
    .map((part) => [...part.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!));
}

describe('nextTick entries after idle full collections', () => {
  it('turn nextTick megamorphic without the module, and stay on one shape with it', () => {
    // Without: some round's collection finds no entry alive, and the caches turn megamorphic.
    const without = cacheStatesAfterIdleCollections(false, 6);
    expect(without).toHaveLength(6);
    expect(without.every((states) => states.length >= 4)).toBe(true);
    expect(without.some((states) => states.includes('MEGAMORPHIC'))).toBe(true);
    // With: after every round, every cache still monomorphic.
    const kept = cacheStatesAfterIdleCollections(true, 6);
    expect(kept).toHaveLength(6);
    expect(kept.every((states) => states.length >= 4)).toBe(true);
    expect(kept.flat().every((state) => state === 'MONOMORPHIC')).toBe(true);
  });
});
