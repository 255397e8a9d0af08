/**
 * Writes the JSON Schemas of every file kind into schemas/ (`npm run schemas`). The files are committed: editors
 * point at them with `# yaml-language-server: $schema=...` and dqctl validates with the same files.
 * `--check` writes nothing and fails when a committed file differs from what the code and catalog generate.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getCheckCatalog } from '../src/catalog/index.js';
import { SCHEMAS_DIR } from '../src/catalog/packagePaths.js';
import { buildSchemas } from '../src/schema/build/buildSchemas.js';
import { formatSchemaJson } from '../src/schema/build/formatSchemaJson.js';

const check = process.argv.includes('--check');
const stale: string[] = [];
mkdirSync(SCHEMAS_DIR, { recursive: true });
for (const { file, schema } of buildSchemas(getCheckCatalog())) {
  const path = join(SCHEMAS_DIR, file);
  const text = formatSchemaJson(schema);
  const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (current === text) continue;
  if (check) stale.push(file);
  else {
    writeFileSync(path, text);
    console.log(`wrote schemas/${file} (${Math.round(text.length / 1024)} KiB)`);
  }
}
if (stale.length > 0) {
  console.error(`schemas out of date (run npm run schemas): ${stale.join(', ')}`);
  process.exitCode = 1;
}
