/** Schema validation of dqctl's file kinds, with errors translated into coded, located violations. */
export { validateDocument } from './validateDocument.js';
export { coerceQuotedScalars, type QuotedScalar } from './coerceQuotedScalars.js';
export { VIOLATION_CODES, type DocumentPath, type SchemaViolation, type ViolationCode } from './schemaViolation.js';
export { SCHEMA_FILES, type DocumentKind } from './schemaFiles.js';
export { createSchemaAjv, readSchemaFile, validatorFor } from './schemaCompiler.js';
export { formatPath } from './documentPath.js';
