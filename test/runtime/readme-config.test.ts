/**
 * The README's configuration table and `src/config.ts` list the same environment variables.
 *
 * `src/config.ts` reads the environment only through the keys of its zod object `envSchema` (the
 * core variables composed with each registered operator's; `loadConfig` parses the whole
 * environment with it), so those keys are the variables Kolo reads.
 * The README's "Configuration" section has one table whose first column names one or more
 * variables in backticks. A variable added to one and not the other fails this test, naming it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config.ts';

const root = new URL('../../', import.meta.url);
const VARIABLE = /`([A-Z][A-Z0-9_]*)`/g;

/** The rows of the README's configuration table: the variables of the first column and the last column's text. */
function readmeRows(): { names: string[]; meaning: string }[] {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  const end = readme.indexOf('\n## ', start + 1);
  const rows = readme.slice(start, end === -1 ? undefined : end).split('\n').filter((line) => line.startsWith('| `'));
  return rows.map((row) => {
    const cells = row.split(' | ');
    return { names: [...cells[0]!.matchAll(VARIABLE)].map((m) => m[1]!), meaning: cells.at(-1)!.replace(/ \|$/, '') };
  });
}

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

/** The keys of `envSchema` in `src/config.ts`: the environment variables `loadConfig` parses. */
function configVariables(): string[] {
  return Object.keys(envSchema.shape);
}

/** The sources that read parsed variables: `src/config.ts` and each operator's `*-config.ts`. */
function configSources(): string[] {
  const connectors = new URL('src/connectors/', root);
  const operatorConfigs = readdirSync(connectors, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) => readdirSync(new URL(`${dir.name}/`, connectors)).filter((file) => file.endsWith('-config.ts')).map((file) => new URL(`${dir.name}/${file}`, connectors)));
  expect(operatorConfigs.length, 'each operator folder has its *-config.ts').toBeGreaterThanOrEqual(4);
  return [new URL('src/config.ts', root), ...operatorConfigs].map((url) => readFileSync(url, 'utf8'));
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

  it("gives each variable the schema describes (every operator's) the schema's own words", () => {
    const shape: Record<string, { description?: string | undefined }> = envSchema.shape;
    const described = Object.keys(shape).filter((name) => shape[name]!.description !== undefined);
    // Guards against descriptions that zod no longer exposes.
    expect(described).toContain('MTN_MOMO_BASE_URL');
    expect(described.length).toBeGreaterThanOrEqual(31);
    const meanings = new Map(readmeRows().flatMap((row) => row.names.map((name) => [name, row.meaning] as const)));
    for (const name of described) expect(meanings.get(name), name).toBe(shape[name]!.description);
  });

  it('reads nothing from the environment outside envSchema', () => {
    const read = configVariables();
    // `e` is a parsed environment, `env` the raw one: every name read from them is a key.
    const used = configSources().flatMap((source) => [...source.matchAll(/\b(?:e|env|process\.env)\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!));
    expect(used.length).toBeGreaterThan(50);
    expect(used.filter((name) => !read.includes(name))).toEqual([]);
  });
});
