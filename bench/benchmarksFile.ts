import { readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** BENCHMARKS.md at the project root: each benchmark owns one section between its start and end markers. */
export const BENCHMARKS_FILE = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'BENCHMARKS.md');

/**
 * Replaces the section between `startMarker` and `endMarker` (both part of `section`) with `section`, or appends
 * it when the file has none yet; the rest of the file is left as it is.
 */
export async function writeBenchmarkSection(section: string, startMarker: string, endMarker: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(BENCHMARKS_FILE, 'utf8');
  } catch {
    text = '# Benchmarks\n\nFigures measured on real runs; regenerate them with the `npm run bench…` scripts.\n';
  }
  const start = text.indexOf(startMarker);
  const end = text.indexOf(endMarker);
  if (start >= 0 && end > start) text = text.slice(0, start) + section + text.slice(end + endMarker.length);
  else text = `${text.replace(/\n*$/, '\n')}\n${section}\n`;
  await writeFile(BENCHMARKS_FILE, text.replace(/\n*$/, '\n'));
}
