import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The user documentation as the docs tests read it: the README and every page of docs/. */
export const ROOT = resolve(import.meta.dirname, '../..');
export const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

export function pageText(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .replace(/^#+\s*/, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings (lines in fenced code are no headings). */
export function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of pageText(page).split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    else if (!inCode && /^#{1,6} /.test(line)) anchors.add(anchorOf(line));
  }
  return anchors;
}

/** A fenced code block of a page: its lines, and the line number (1-based) of its first line. */
export interface FencedBlock {
  page: string;
  firstLine: number;
  lines: string[];
}

export function fencedBlocks(page: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: FencedBlock | undefined;
  pageText(page)
    .split('\n')
    .forEach((line, index) => {
      if (line.trimStart().startsWith('```')) {
        if (open) blocks.push(open);
        open = open ? undefined : { page, firstLine: index + 2, lines: [] };
      } else open?.lines.push(line);
    });
  return blocks;
}
