import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './packagePaths.js';

/**
 * The quality dimension of each built-in check (Completeness, Validity, …) as DQOps defines it, read once from
 * catalog/quality-dimensions.json: a check result carries it unless the check's spec sets `quality_dimension`,
 * and incidents grouped by dimension (table_dimension and deeper) group by it.
 */
let dimensions: Readonly<Record<string, string>> | undefined;

export function defaultQualityDimension(checkName: string): string | null {
  dimensions ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'catalog', 'quality-dimensions.json'), 'utf8')) as { dimensions: Record<string, string> }).dimensions;
  return dimensions[checkName] ?? null;
}
