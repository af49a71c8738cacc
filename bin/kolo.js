#!/usr/bin/env node
// Entry point of the `kolo` command. Runs the compiled modules of `npm run build` (dist/) when no
// source is newer than that build (dist/.built-at, written once the compiled modules and the
// files they read are in place); otherwise the TypeScript sources through tsx's ESM loader, which
// costs a loader thread and about a second per call on a loaded machine (README, "The `kolo`
// command"). So an edited source is always what runs, built or not.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** True when dist/ holds a whole build that no file of src/ (but tests and READMEs) is newer than. */
function isBuildCurrent() {
  const built = statSync(join(root, 'dist', '.built-at'), { throwIfNoEntry: false });
  if (built === undefined) return false;
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    // Tests and READMEs are not part of the build (tsconfig.build.json, scripts/build.mjs).
    if (!entry.isFile() || entry.name.endsWith('.test.ts') || entry.name.endsWith('.md')) continue;
    if (statSync(join(entry.parentPath, entry.name)).mtimeMs > built.mtimeMs) return false;
  }
  return true;
}

if (isBuildCurrent()) {
  await import('../dist/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
