import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOADER_DIAGNOSTICS, SCHEMA_DIAGNOSTICS } from '../../src/manifest/diagnosticCodes.js';
import { ERROR_CODES } from '../../src/model/errors.js';
import { VIOLATION_CODES } from '../../src/schema/schemaViolation.js';

const REFERENCE = readFileSync(join(import.meta.dirname, '../../docs/exit-codes.md'), 'utf8');

describe('every code a user can meet is documented in docs/exit-codes.md', () => {
  it('diagnostic codes', () => {
    expect(Object.keys(SCHEMA_DIAGNOSTICS).sort()).toEqual([...VIOLATION_CODES].sort());
    for (const code of [...Object.keys(SCHEMA_DIAGNOSTICS), ...Object.keys(LOADER_DIAGNOSTICS)]) {
      expect(REFERENCE, code).toContain(`| \`${code}\` |`);
    }
  });

  it('error codes, with their exit code', () => {
    for (const [code, { exit }] of Object.entries(ERROR_CODES)) expect(REFERENCE, code).toContain(`| \`${code}\` | ${exit} |`);
  });
});
