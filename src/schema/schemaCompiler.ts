/**
 * The validators of the schema files of schemas/, each made once on first use and then cached for the life of
 * the process: loaded precompiled from the build when possible (standaloneValidators.ts), else compiled with ajv
 * (compiling the table schema takes most of a second; validating a document afterwards takes microseconds). `verbose` makes ajv attach the failing schema node to each error, which the translator needs to
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
import { loadStandaloneValidator } from './standaloneValidators.js';

/**
 * A fresh ajv configured as dqctl validates: all errors, failing schema nodes attached, our annotation known.
 * `source` keeps the generated code, for writing standalone validators (standaloneValidators.ts).
 */
export function createSchemaAjv(options: { source?: boolean } = {}): Ajv2020 {
  // ajv's code optimizer costs a third of the compile time of the table schema (~0.3 s) and saves nothing
  // measurable per document (~11 us for a medium table either way).
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, code: { optimize: false, source: options.source ?? false } });
  addFormats.default(ajv, ['date']);
  ajv.addKeyword({ keyword: ANNOTATION_KEYWORD, schemaType: 'object' });
  return ajv;
}

/** The parsed schema file of a document kind. */
export function readSchemaFile(kind: DocumentKind): Record<string, unknown> {
  return JSON.parse(schemaTextOf(kind)) as Record<string, unknown>;
}

/** The text of the schema file of a document kind. */
export function schemaTextOf(kind: DocumentKind): string {
  return readFileSync(join(SCHEMAS_DIR, SCHEMA_FILES[kind]), 'utf8');
}

let ajv: Ajv2020 | undefined;
const validators = new Map<DocumentKind, SchemaValidator>();

export interface SchemaValidator {
  validate: ValidateFunction;
  /** The parsed schema file (the root that `$ref`s resolve against); parsed on first use when precompiled. */
  readonly schema: Record<string, unknown>;
  /** Loaded from the build's standalone code rather than compiled in this process. */
  precompiled: boolean;
}

/**
 * The validator of a document kind, made on the first call for that kind: the build's precompiled one when it
 * matches the schema file, else compiled now.
 */
export function validatorFor(kind: DocumentKind): SchemaValidator {
  let entry = validators.get(kind);
  if (!entry) {
    const text = schemaTextOf(kind);
    let parsed: Record<string, unknown> | undefined;
    const schema = () => (parsed ??= JSON.parse(text) as Record<string, unknown>);
    const standalone = loadStandaloneValidator(kind, text);
    entry = {
      validate: standalone ?? (ajv ??= createSchemaAjv()).compile(schema()),
      get schema() {
        return schema();
      },
      precompiled: standalone !== undefined,
    };
    validators.set(kind, entry);
  }
  return entry;
}
