import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json, found by walking up from this module, so that the same code finds
 * schemas/ and catalog/ whether it runs from src/ (tests, tsx) or from dist/ (the installed bin).
 */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'catalog'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('dqctl: cannot find the package root (package.json beside catalog/)');
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot();
export const SCHEMAS_DIR = join(PACKAGE_ROOT, 'schemas');
export const CATALOG_FILE = join(PACKAGE_ROOT, 'catalog', 'check-catalog.json');
