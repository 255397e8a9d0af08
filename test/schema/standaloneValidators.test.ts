import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { CORE_SCHEMA, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/catalog/packagePaths.js';
import { createSchemaAjv, readSchemaFile, SCHEMA_FILES, validatorFor, type DocumentKind } from '../../src/schema/index.js';
import { schemaTextOf } from '../../src/schema/schemaCompiler.js';
import { CODE_CACHE_SUFFIX, commonJsScript, forgetStandaloneManifest, loadStandaloneValidator, VALIDATORS_DIR } from '../../src/schema/standaloneValidators.js';
import { writeStandaloneValidators } from '../../src/schema/writeStandaloneValidators.js';
import { validDocument } from './validDocuments.js';

const KINDS = Object.keys(SCHEMA_FILES) as DocumentKind[];

/** Every YAML document of the examples and the diagnostic fixtures (valid and broken), by kind. */
function corpus(): { kind: DocumentKind; name: string; document: unknown }[] {
  const documents: { kind: DocumentKind; name: string; document: unknown }[] = [];
  const kindOf = (file: string): DocumentKind | undefined =>
    file.endsWith('.dqoconnection.yaml') ? 'source'
    : file.endsWith('.dqotable.yaml') ? 'table'
    : file.endsWith('.dqorule.yaml') ? 'rule'
    : file.endsWith('.dqotablepattern.yaml') ? 'default_table_checks'
    : file.endsWith('.dqocolumnpattern.yaml') ? 'default_column_checks'
    : file === 'dqctl.yaml' ? 'settings'
    : undefined;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const kind = kindOf(entry);
        if (!kind) continue;
        let document: unknown;
        try {
          document = load(readFileSync(path, 'utf8'), { schema: CORE_SCHEMA });
        } catch (error) {
          if ((error as Error).name === 'YAMLException') continue; // malformed YAML is the parser's business
          throw error;
        }
        documents.push({ kind, name: path, document });
      }
    }
  };
  walk('examples');
  walk('test/fixtures/diagnostics');
  for (const kind of KINDS) {
    documents.push({ kind, name: `valid ${kind}`, document: validDocument(kind) });
    const broken = validDocument(kind) as Record<string, any>;
    broken.spec.unknown_key = 1;
    broken.apiVersion = 2;
    documents.push({ kind, name: `broken ${kind}`, document: broken });
  }
  return documents;
}

/** What a validator reported, in a form that compares by value (standalone code copies the schema nodes). */
function outcome(validate: ValidateFunction, document: unknown): unknown {
  const valid = validate(document);
  const errors = (validate.errors ?? []).map((e: ErrorObject) => ({ ...e, data: undefined }));
  return { valid, errors: JSON.parse(JSON.stringify(errors)) };
}

describe('precompiled (standalone) schema validators', () => {
  let dir: string;
  beforeAll(() => {
    // Inside the package, as dist/validators is: the generated code requires ajv's runtime helpers from node_modules.
    dir = mkdtempSync(join(PACKAGE_ROOT, 'dist', 'validators-test-'));
    writeStandaloneValidators(dir);
  });
  afterAll(() => {
    forgetStandaloneManifest();
    rmSync(dir, { recursive: true, force: true });
  });

  it('report exactly what the validators compiled at run time report, on every example and fixture document', () => {
    const documents = corpus();
    expect(documents.length).toBeGreaterThan(100);
    const compiled = new Map(KINDS.map((kind) => [kind, createSchemaAjv().compile(readSchemaFile(kind))]));
    let invalid = 0;
    for (const { kind, name, document } of documents) {
      const standalone = loadStandaloneValidator(kind, schemaTextOf(kind), dir);
      expect(standalone, kind).toBeDefined();
      const expected = outcome(compiled.get(kind)!, document) as { valid: boolean };
      if (!expected.valid) invalid++;
      expect(outcome(standalone!, document), name).toEqual(expected);
    }
    expect(invalid).toBeGreaterThan(20);
  });

  it('are not used when the schema file changed since they were built', () => {
    const text = schemaTextOf('rule');
    expect(loadStandaloneValidator('rule', text, dir)).toBeDefined();
    expect(loadStandaloneValidator('rule', text.replace('"type"', '"type" '), dir)).toBeUndefined();
  });

  it('are not used when they were built by another ajv version, or the manifest is torn or missing', () => {
    const manifestPath = join(dir, 'manifest.json');
    const manifest = readFileSync(manifestPath, 'utf8');
    try {
      writeFileSync(manifestPath, manifest.replace(/"ajv": "[^"]+"/, '"ajv": "0.0.1"'));
      forgetStandaloneManifest();
      expect(loadStandaloneValidator('table', schemaTextOf('table'), dir)).toBeUndefined();
      writeFileSync(manifestPath, manifest.slice(0, 40));
      forgetStandaloneManifest();
      expect(loadStandaloneValidator('table', schemaTextOf('table'), dir)).toBeUndefined();
    } finally {
      writeFileSync(manifestPath, manifest);
      forgetStandaloneManifest();
    }
    expect(loadStandaloneValidator('table', schemaTextOf('table'), join(dir, 'missing'))).toBeUndefined();
  });

  it('load from a V8 code cache the build wrote, and the same without it or with a cache V8 rejects', () => {
    const file = join(dir, 'rule.cjs');
    const cache = readFileSync(file + CODE_CACHE_SUFFIX);
    expect(commonJsScript(file, readFileSync(file, 'utf8'), cache).cachedDataRejected).toBe(false);
    const document = validDocument('rule');
    const expected = outcome(loadStandaloneValidator('rule', schemaTextOf('rule'), dir)!, document);
    try {
      writeFileSync(file + CODE_CACHE_SUFFIX, Buffer.from('not a code cache'));
      expect(outcome(loadStandaloneValidator('rule', schemaTextOf('rule'), dir)!, document)).toEqual(expected);
      rmSync(file + CODE_CACHE_SUFFIX);
      expect(outcome(loadStandaloneValidator('rule', schemaTextOf('rule'), dir)!, document)).toEqual(expected);
    } finally {
      writeFileSync(file + CODE_CACHE_SUFFIX, cache);
    }
  });

  it('have code caches from the build that this Node.js accepts', () => {
    for (const kind of KINDS) {
      if (!existsSync(join(VALIDATORS_DIR, `${kind}.cjs`))) continue;
      const file = join(VALIDATORS_DIR, `${kind}.cjs`);
      const script = commonJsScript(file, readFileSync(file, 'utf8'), readFileSync(file + CODE_CACHE_SUFFIX));
      expect(script.cachedDataRejected, `${kind}: run npm run build`).toBe(false);
    }
  });

  it('are what the build made and validateDocument uses (npm test builds before it tests)', () => {
    for (const kind of KINDS) expect(validatorFor(kind).precompiled, `${kind}: run npm run build`).toBe(true);
  });
});
