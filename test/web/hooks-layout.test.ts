/**
 * The web app's API calls live in its hooks (web/src/hooks/api/, one module per resource, as
 * Medusa's admin has them): no screen or shell file builds a query, a mutation or a key, or calls
 * the API client itself. Read from the source: a new screen that calls the API inline fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const WEB_SRC = 'web/src';
const HOOKS = 'web/src/hooks/api';

/** Every .ts and .tsx file under `dir`, by path. */
function sources(dir: string): Map<string, string> {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts'));
  return new Map(files.map((name) => [join(dir, name), readFileSync(join(dir, name), 'utf8')]));
}

const all = sources(WEB_SRC);
const outside = [...all].filter(([path]) => !path.startsWith(`${HOOKS}/`));

/** The files of `files` where `pattern` occurs. */
const where = (files: [string, string][], pattern: RegExp) => files.filter(([, text]) => pattern.test(text)).map(([path]) => relative(WEB_SRC, path));

describe('the hooks layout of the web app', () => {
  it('builds queries, mutations and query keys in web/src/hooks/api/ only', () => {
    expect(where(outside, /\buse(Suspense)?(Query|Queries|InfiniteQuery|Mutation)\(/)).toEqual([]);
    expect(where(outside, /\bqueryOptions\(|\bqueryKey:/)).toEqual([]);
  });

  it('calls the API client from the hooks only (and the client from its own module)', () => {
    const screensAndShell = outside.filter(([path]) => !path.startsWith(`${WEB_SRC}/api/`));
    expect(where(screensAndShell, /\.(GET|POST|PUT|PATCH|DELETE)\(|\bunwrap\(|\bexpectNoContent\(/)).toEqual([]);
  });

  it('has no screen that imports TanStack Query or the client beyond its error type', () => {
    const screens = outside.filter(([path]) => path.startsWith(`${WEB_SRC}/screens/`));
    expect(where(screens, /from '@tanstack\/react-query'/)).toEqual([]);
    for (const [path, text] of screens) {
      for (const [, names] of text.matchAll(/import \{([^}]*)\} from '(?:\.\.\/)+api\/client'/g)) expect(names?.trim(), path).toBe('ApiFailure');
    }
  });

  it('gives every module that reads a query-key factory, and types from the generated schema', () => {
    const modules = [...sources(HOOKS)].filter(([path]) => !path.endsWith('query-keys.ts'));
    expect(modules.length).toBeGreaterThanOrEqual(12);
    for (const [path, text] of modules) {
      if (/\buseQuery\(/.test(text)) expect(text, path).toMatch(/export const \w+QueryKeys = /);
      expect(text, path).toMatch(/from '\.\.\/\.\.\/api\/types'/);
      // Shapes come from the schema: no hand-written interface of what the API answers.
      expect(text, path).not.toMatch(/export interface (?!TransactionExport\b)\w+/);
    }
  });
});
