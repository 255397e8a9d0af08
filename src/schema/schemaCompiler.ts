/**
 * Compiles the schema files of schemas/ with ajv, each once on first use and then cached for the life of the
 * process (compiling the table schema takes most of a second; validating a document afterwards takes
 * microseconds). `verbose` makes ajv attach the failing schema node to each error, which the translator needs to
 * name unknown checks and parameters.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { SCHEMAS_DIR } from '../catalog/packagePaths.js';
import { ANNOTATION_KEYWORD } from './schemaAnnotation.js';
import { SCHEMA_FILES, type DocumentKind } from './schemaFiles.js';

/** A fresh ajv configured as dqctl validates: all errors, failing schema nodes attached, our annotation known. */
export function createSchemaAjv(): Ajv2020 {
  // ajv's code optimizer costs a third of the compile time of the table schema (~0.3 s) and saves nothing
  // measurable per document (~11 us for a medium table either way).
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, code: { optimize: false } });
  addFormats.default(ajv, ['date']);
  ajv.addKeyword({ keyword: ANNOTATION_KEYWORD, schemaType: 'object' });
  return ajv;
}

/** The parsed schema file of a document kind. */
export function readSchemaFile(kind: DocumentKind): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMAS_DIR, SCHEMA_FILES[kind]), 'utf8')) as Record<string, unknown>;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<DocumentKind, ValidateFunction>();

/** The compiled validator of a document kind; compiled on the first call for that kind. */
export function validatorFor(kind: DocumentKind): ValidateFunction {
  let validate = validators.get(kind);
  if (!validate) {
    ajv ??= createSchemaAjv();
    validate = ajv.compile(readSchemaFile(kind));
    validators.set(kind, validate);
  }
  return validate;
}
