/**
 * The first load of every screen stays under 200 KB of compressed JavaScript and CSS: for the
 * entry and for each lazily loaded screen, the gzip size of its chunk, every chunk it imports
 * statically (transitively) and their CSS, read from web/dist's Vite manifest.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { ensureWebBuild } from './web-build.ts';

interface Chunk {
  file: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  css?: string[];
}

const LIMIT_BYTES = 200 * 1024;
let dist: string;
let manifest: Record<string, Chunk>;

beforeAll(async () => {
  dist = await ensureWebBuild();
  manifest = JSON.parse(readFileSync(`${dist}.vite/manifest.json`, 'utf8'));
}, 120_000);

/** The files a chunk needs before it runs: itself, its static imports (transitively), their CSS. */
function filesOf(key: string, into = new Set<string>()): Set<string> {
  const chunk = manifest[key]!;
  if (into.has(chunk.file)) return into;
  into.add(chunk.file);
  for (const css of chunk.css ?? []) into.add(css);
  for (const imported of chunk.imports ?? []) filesOf(imported, into);
  return into;
}

const gzipBytes = (files: Iterable<string>) => [...files].reduce((sum, file) => sum + gzipSync(readFileSync(`${dist}${file}`), { level: 9 }).length, 0);

it('the first load of each screen is at most 200 KB compressed (JS + CSS)', () => {
  const [entryKey] = Object.entries(manifest).find(([, chunk]) => chunk.isEntry)!;
  const entry = filesOf(entryKey);
  const screens = Object.entries(manifest).filter(([, chunk]) => chunk.isDynamicEntry);
  expect(screens.length).toBeGreaterThanOrEqual(8);
  const sizes: Record<string, number> = { entry: gzipBytes(entry) };
  for (const [key] of screens) sizes[key] = gzipBytes(filesOf(key, new Set(entry)));
  for (const [name, bytes] of Object.entries(sizes)) expect(bytes, `${name}: ${bytes} bytes`).toBeLessThanOrEqual(LIMIT_BYTES);
  console.log(Object.entries(sizes).map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(1)} KB`).join('\n'));
});
