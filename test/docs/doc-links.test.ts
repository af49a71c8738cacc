/**
 * Every relative link of the repository's Markdown files (README.md, docs/, the folders' READMEs,
 * the changelog) leads somewhere: its file exists inside the repository and, when it names an
 * anchor of a Markdown file, that file has a heading with that anchor (GitHub's slugs). External
 * links (`https:`, `mailto:`) are not followed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const markdownFiles = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((path) => path !== '' && !path.includes('node_modules/') && existsSync(join(root, path)));

/** The text of `markdown` outside fenced code blocks and inline code. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (a repeated heading gets -1, -2…). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a Markdown file: inline links and images, and reference definitions. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const definitions = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!);
  return [...inline, ...definitions].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('relative links of the Markdown files', () => {
  it('finds the files to check', () => {
    expect(markdownFiles).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/performance.md']));
  });

  it.each(markdownFiles)('%s: every relative link resolves inside the repository', (file) => {
    const source = readFileSync(join(root, file), 'utf8');
    const broken: string[] = [];
    for (const target of linksOf(source)) {
      const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
      const path = decodeURI(rawPath);
      const absolute = path === '' ? join(root, file) : resolve(root, dirname(file), path);
      const inside = relative(root, absolute);
      if (inside.startsWith('..')) {
        broken.push(`${target}: outside the repository`);
        continue;
      }
      if (!existsSync(absolute)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor !== undefined && absolute.endsWith('.md') && !anchorsOf(readFileSync(absolute, 'utf8')).has(decodeURIComponent(anchor))) {
        broken.push(`${target}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });
});
