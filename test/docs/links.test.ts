import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .replace(/^#+\s*/, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    else if (!inCode && /^#{1,6} /.test(line)) anchors.add(anchorOf(line));
  }
  return anchors;
}

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
