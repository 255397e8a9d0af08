/**
 * The console's API types are generated from the server's schemas (scripts/generate-console-types.ts): the
 * committed file is what the generator makes of schemas/api now, and a field renamed in a schema fails the
 * console's typecheck (run on a copy of the console with the file regenerated from the renamed schema).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CONSOLE_API_TYPES_FILE, consoleApiTypes, readApiSchemas } from '../../scripts/consoleApiTypes.js';
import { API_SCHEMAS_DIR } from '../../src/server/apiSchemas.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

describe('the console API types generated from schemas/api', () => {
  it('the committed src/console/apiTypes.generated.ts is what the generator makes of the current schemas (run npm run console-types)', () => {
    expect(readFileSync(CONSOLE_API_TYPES_FILE, 'utf8')).toBe(consoleApiTypes(readApiSchemas(API_SCHEMAS_DIR)));
  });

  it('declares each model by its $id: required properties plain, others optional, nullable, enums, $ref, open objects', () => {
    const text = consoleApiTypes([
      {
        $id: 'OrderModel',
        description: 'An order.',
        type: 'object',
        properties: {
          id: { type: 'integer' },
          note: { type: ['string', 'null'] },
          status: { type: 'string', enum: ['open', "it's done"] },
          lines: { type: 'array', items: { $ref: 'LineModel#' } },
          parent: { $ref: 'LineModel#', nullable: true },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          'odd-name': { type: 'boolean' },
          extra: {},
        },
        required: ['id', 'status'],
      },
      { $id: 'LineModel', type: 'object', properties: { sku: { type: 'string' } }, additionalProperties: true },
    ]);
    expect(text).toContain(
      [
        '/** An order. */',
        'export interface OrderModel {',
        '  id: number;',
        '  note?: string | null;',
        "  status: 'open' | 'it\\'s done';",
        '  lines?: LineModel[];',
        '  parent?: LineModel | null;',
        '  labels?: Record<string, string>;',
        "  'odd-name'?: boolean;",
        '  extra?: unknown;',
        '}',
      ].join('\n'),
    );
    expect(text).toContain('export interface LineModel {\n  sku?: string;\n}');
  });

  it('refuses what it cannot type: an unknown keyword, a $ref to no model, a schema without a model name', () => {
    expect(() => consoleApiTypes([{ $id: 'A', type: 'object', properties: { x: { oneOf: [{ type: 'string' }] } } }])).toThrow(/A\.x: .*"oneOf"/);
    expect(() => consoleApiTypes([{ $id: 'A', type: 'object', properties: { x: { $ref: 'B#' } } }])).toThrow(/unknown model B#/);
    expect(() => consoleApiTypes([{ type: 'object' }])).toThrow(/model name/);
  });

  it('a field renamed in a server schema fails the console typecheck', async () => {
    // inside node_modules/.cache so that the copy resolves preact from the package's node_modules
    const cache = join(ROOT, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const dir = await mkdtemp(join(cache, 'console-types-'));
    try {
      cpSync(join(ROOT, 'src', 'console'), dir, { recursive: true });
      const typecheck = () => run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json'), '--noEmit']);
      await typecheck(); // the copy as it is passes

      const schemas = readApiSchemas(API_SCHEMAS_DIR);
      const overview = schemas.find((s) => s.$id === 'OverviewModel')!;
      const properties = overview.properties as Record<string, unknown>;
      properties.not_synced_total = properties.not_synced_count;
      delete properties.not_synced_count;
      overview.required = (overview.required as string[]).map((k) => (k === 'not_synced_count' ? 'not_synced_total' : k));
      writeFileSync(join(dir, 'apiTypes.generated.ts'), consoleApiTypes(schemas));

      const failed = await typecheck().then(
        () => undefined,
        (error: { stdout: string }) => error.stdout,
      );
      expect(failed).toMatch(/views\/Overview\.tsx.*Property 'not_synced_count' does not exist/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
