import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import { SCHEMAS_DIR } from '../../src/catalog/packagePaths.js';
import { buildSchemas } from '../../src/schema/build/buildSchemas.js';
import { formatSchemaJson } from '../../src/schema/build/formatSchemaJson.js';
import { SCHEMA_FILES } from '../../src/schema/index.js';

const files = readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'));

describe('schemas/', () => {
  it('holds one schema per document kind', () => {
    expect(files.sort()).toEqual(Object.values(SCHEMA_FILES).sort());
  });

  it.each(files)('%s compiles with a fresh Ajv (strict mode off), as an editor would load it', (file) => {
    const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8'));
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    expect(typeof validate).toBe('function');
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(`https://dqctl.dev/schemas/${file}`);
    expect(schema.title).toEqual(expect.any(String));
    expect(schema.description).toEqual(expect.any(String));
    // Self-contained: every reference points into the file itself.
    const refs = JSON.stringify(schema).match(/"\$ref":\s*"[^"]*"/g) ?? [];
    expect(refs.filter((r) => !r.includes('"#/$defs/'))).toEqual([]);
  });

  it('is what `npm run schemas` generates from the code and the catalog (run it after changing either)', () => {
    for (const { file, schema } of buildSchemas(getCheckCatalog())) {
      expect(readFileSync(join(SCHEMAS_DIR, file), 'utf8'), file).toBe(formatSchemaJson(schema));
    }
  });

  it('closes every object with named properties, except the free maps', () => {
    const open: string[] = [];
    for (const file of files) {
      walk(JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8')), file, (node, where) => {
        if (node.properties && node.additionalProperties !== false && !OPEN_ON_PURPOSE.some((s) => where.endsWith(s))) open.push(where);
      });
    }
    expect(open).toEqual([]);
  });

  it('has a check under each container for every check of the catalog', () => {
    const table = JSON.parse(readFileSync(join(SCHEMAS_DIR, SCHEMA_FILES.table), 'utf8'));
    const checkNames = new Set<string>();
    for (const [name, def] of Object.entries<any>(table.$defs)) {
      if (!name.endsWith('_checks')) continue;
      for (const [category, categorySchema] of Object.entries<any>(def.properties)) {
        if (category === 'custom') continue; // the container's map of custom checks
        const checks = category === 'comparisons' ? categorySchema.additionalProperties.properties : categorySchema.properties;
        for (const check of Object.keys(checks)) if (check !== 'reference_column' && check !== 'custom_checks') checkNames.add(check);
      }
    }
    expect(checkNames.size).toBe(getCheckCatalog().checks.length);
  });
});

/** Objects that accept more keys than they name: the owner map (free text fields) and the shared check settings. */
const OPEN_ON_PURPOSE = ['/properties/spec/properties/owner', '/$defs/check_settings'];

/** Visits every schema node (not the maps of properties or defs themselves, nor enum / default values). */
function walk(node: unknown, where: string, visit: (node: Record<string, any>, where: string) => void): void {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
  const schema = node as Record<string, any>;
  visit(schema, where);
  for (const key of ['properties', '$defs']) {
    for (const [name, child] of Object.entries<unknown>(schema[key] ?? {})) walk(child, `${where}/${key}/${name}`, visit);
  }
  for (const key of ['items', 'additionalProperties']) walk(schema[key], `${where}/${key}`, visit);
  for (const key of ['allOf', 'anyOf', 'oneOf']) (schema[key] ?? []).forEach((child: unknown, i: number) => walk(child, `${where}/${key}/${i}`, visit));
}
