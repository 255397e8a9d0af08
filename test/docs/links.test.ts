import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, PAGES, ROOT } from './markdownPages.js';

describe('the README and docs/ link to pages and headings that exist', () => {
  it.each(PAGES)('%s', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#');
      const file = path ? join(dirname(join(ROOT, page)), path) : join(ROOT, page);
      if (!existsSync(file)) broken.push(`${target}: no such file`);
      else if (anchor && file.endsWith('.md') && !anchorsOf(file.slice(ROOT.length + 1)).has(anchor)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it('every reference page is listed in docs/README.md and the README', () => {
    const index = readFileSync(join(ROOT, 'docs/README.md'), 'utf8');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const page of PAGES.filter((p) => p.startsWith('docs/') && p !== 'docs/README.md')) {
      expect(index, page).toContain(`](${page.slice('docs/'.length)})`);
      expect(readme, page).toContain(`](${page})`);
    }
  });
});
