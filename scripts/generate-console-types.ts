/**
 * Writes src/console/apiTypes.generated.ts from schemas/api/*.json (`npm run console-types`). The file is
 * committed so the console builds without this step; `--check` writes nothing and fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { API_SCHEMAS_DIR } from '../src/server/apiSchemas.js';
import { CONSOLE_API_TYPES_FILE, consoleApiTypes, readApiSchemas } from './consoleApiTypes.js';

const text = consoleApiTypes(readApiSchemas(API_SCHEMAS_DIR));
let current: string | undefined;
try {
  current = readFileSync(CONSOLE_API_TYPES_FILE, 'utf8');
} catch {
  current = undefined;
}
if (current === text) console.log('src/console/apiTypes.generated.ts is up to date');
else if (process.argv.includes('--check')) {
  console.error('src/console/apiTypes.generated.ts is out of date (run npm run console-types)');
  process.exitCode = 1;
} else {
  writeFileSync(CONSOLE_API_TYPES_FILE, text);
  console.log(`wrote src/console/apiTypes.generated.ts (${Math.round(text.length / 1024)} KiB)`);
}
