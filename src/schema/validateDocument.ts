/**
 * Validates one parsed YAML document against the schema of its kind and returns every violation at once
 * (empty when valid). Pure apart from compiling the schema file on the first call per kind; the catalog is read
 * only when a check-related key needs explaining.
 */
import { getCheckCatalog } from '../catalog/index.js';
import { validatorFor } from './schemaCompiler.js';
import type { DocumentKind } from './schemaFiles.js';
import type { SchemaViolation } from './schemaViolation.js';
import { translateAjvErrors } from './translateAjvErrors.js';

export function validateDocument(kind: DocumentKind, document: unknown): SchemaViolation[] {
  const validator = validatorFor(kind);
  const { validate } = validator;
  if (validate(document)) return [];
  const violations = translateAjvErrors(validate.errors ?? [], document, { kind, catalog: getCheckCatalog, rootSchema: validator.schema });
  // A document of another kind fails on nearly every key of its spec: report only what is wrong with the envelope.
  const wrongKind = violations.some((v) => v.path.length === 1 && v.path[0] === 'kind' && v.code === 'invalid_value');
  return wrongKind ? violations.filter((v) => v.path.length <= 1) : violations;
}
