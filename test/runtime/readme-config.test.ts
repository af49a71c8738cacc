/**
 * The README's configuration table and `src/config.ts` list the same environment variables.
 *
 * `src/config.ts` reads the environment only through the keys of its zod object `configSchema`
 * (`loadConfig` parses the whole environment with it), so those keys are the variables Kolo reads.
 * The README's "Configuration" section has one table whose first column names one or more
 * variables in backticks. A variable added to one and not the other fails this test, naming it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const VARIABLE = /`([A-Z][A-Z0-9_]*)`/g;

/** The variable names of the first column of the README's configuration table, in order. */
function readmeVariables(): string[] {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  expect(start, 'README.md has a "## Configuration" section').toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(VARIABLE)].map((m) => m[1]!));
}

/** The keys of `configSchema` in `src/config.ts`: the environment variables `loadConfig` parses. */
function configVariables(): string[] {
  const source = readFileSync(new URL('src/config.ts', root), 'utf8');
  const start = source.search(/const configSchema = z\s*\.object\(\{/);
  expect(start, 'src/config.ts declares `const configSchema = z.object({`').toBeGreaterThanOrEqual(0);
  const end = source.indexOf('\n});', start);
  const body = source.slice(start, end);
  return [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!);
}

describe("the README's configuration table", () => {
  it('lists exactly the variables src/config.ts reads', () => {
    const documented = readmeVariables();
    const read = configVariables();
    // Guards against a parser that silently finds nothing.
    expect(read.length).toBeGreaterThan(50);
    expect(read).toContain('DATABASE_URL');
    expect(documented).toContain('DATABASE_URL');

    expect(documented.filter((name) => !read.includes(name)), 'in the README, not read by src/config.ts').toEqual([]);
    expect(read.filter((name) => !documented.includes(name)), 'read by src/config.ts, not in the README').toEqual([]);
    expect(documented.filter((name, i) => documented.indexOf(name) !== i), 'listed twice in the README').toEqual([]);
  });

  it('reads nothing from the environment outside configSchema', () => {
    const source = readFileSync(new URL('src/config.ts', root), 'utf8');
    const read = configVariables();
    // `e` is loadConfig's parsed environment, `env` the raw one: every name read from them is a key.
    const used = [...source.matchAll(/\b(?:e|env|process\.env)\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(50);
    expect(used.filter((name) => !read.includes(name))).toEqual([]);
  });
});
