/**
 * The entry documents stay short enough to be read: the README (getting started, configuration,
 * the API in brief, links to docs/ for the rest) and the one-page architecture; performance.md
 * holds one current table per path, not a history of runs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const linesOf = (file: string) => readFileSync(root + file, 'utf8').trimEnd().split('\n').length;

it.each([
  ['README.md', 700],
  ['docs/architecture.md', 200],
])('%s has at most %i lines', (file, most) => {
  expect(linesOf(file)).toBeLessThanOrEqual(most);
});

it('docs/performance.md has one table of current figures for the sandbox path and one for the LIVE path', () => {
  const text = readFileSync(root + 'docs/performance.md', 'utf8');
  const sections = text.split(/^## /m);
  const tablesIn = (heading: string) => {
    const section = sections.find((s) => s.startsWith(heading)) ?? '';
    return section.split('\n').filter((line) => /^\|(\s*-+\s*\|)+$/.test(line.replace(/:/g, ''))).length;
  };
  expect(tablesIn('Current figures')).toBe(1);
  expect(tablesIn('LIVE path')).toBe(1);
});
