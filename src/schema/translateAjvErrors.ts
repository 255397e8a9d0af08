/**
 * Turns ajv's errors into SchemaViolations a person can act on: one per mistake, with a stable code, the path of
 * the offending key or value, and a did-you-mean where a name was misspelled. Cascades are cut: failed anyOf /
 * oneOf branches are reduced to the most specific one, and duplicates (the same check shape reached twice) are
 * reported once.
 */
import type { ErrorObject } from 'ajv';
import { didYouMean } from '../catalog/index.js';
import { describeExpectedType, describeValue, quote, quoteList } from './describeValue.js';
import { toDocumentPath } from './documentPath.js';
import { pruneBranchErrors } from './pruneBranchErrors.js';
import type { SchemaViolation } from './schemaViolation.js';
import { unknownKeyViolation, type UnknownKeyContext } from './unknownKeyViolation.js';

export type TranslateContext = UnknownKeyContext & {
  /** The root schema the errors come from (to attribute anyOf / oneOf branch errors). */
  rootSchema: unknown;
};

export function translateAjvErrors(errors: readonly ErrorObject[], document: unknown, context: TranslateContext): SchemaViolation[] {
  const violations: SchemaViolation[] = [];
  const seen = new Set<string>();
  for (const error of pruneBranchErrors(errors, context.rootSchema)) {
    const violation = translateError(error, document, context);
    if (!violation) continue;
    const id = `${violation.code}\u0000${JSON.stringify(violation.path)}\u0000${violation.summary}`;
    if (seen.has(id)) continue;
    seen.add(id);
    violations.push(violation);
  }
  return violations;
}

function translateError(error: ErrorObject, document: unknown, context: TranslateContext): SchemaViolation | undefined {
  const path = toDocumentPath(error.instancePath, document);
  const params = error.params as Record<string, unknown>;
  const name = path.length > 0 ? String(path[path.length - 1]) : 'the document';
  // a key that breaks `propertyNames` (dqctl.yaml's environment and variable names): reported once, on that key
  if (error.keyword === 'propertyNames') return undefined;
  if (error.propertyName !== undefined) {
    const rule = error.keyword === 'pattern' ? `: it must match ${String(params.pattern)}` : ` (${error.message ?? 'invalid'})`;
    return { path: [...path, error.propertyName], onKey: true, code: 'invalid_value', summary: `invalid name ${quote(error.propertyName)} in ${name}${rule}` };
  }
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      return unknownKeyViolation(key, [...path, key], error.parentSchema, context);
    }
    case 'type': {
      const violation: SchemaViolation = {
        path,
        onKey: false,
        code: 'wrong_type',
        summary: `expected ${describeExpectedType(params.type)}, got ${describeValue(error.data)}`,
      };
      if (error.data === null && String(params.type).includes('object')) {
        violation.detail = 'a key with nothing after the colon is null in YAML; write {} for an empty mapping';
      }
      return violation;
    }
    case 'required':
      return {
        path,
        onKey: false,
        code: 'missing_key',
        summary: `missing key ${quote(params.missingProperty)}${path.length > 0 ? ` in ${name}` : ''}`,
      };
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]) ?? [];
      const violation: SchemaViolation = {
        path,
        onKey: false,
        code: 'invalid_value',
        summary: `invalid value ${quote(error.data)} for ${name}; expected ${quoteList(allowed)}`,
      };
      if (typeof error.data === 'string') {
        const suggestions = didYouMean(error.data, allowed.filter((v): v is string => typeof v === 'string'));
        if (suggestions.length > 0) {
          violation.summary = `invalid value ${quote(error.data)} for ${name}; did you mean ${quoteList(suggestions)}?`;
          violation.detail = `allowed values: ${quoteList(allowed)}`;
          violation.suggestions = suggestions;
        }
      }
      return violation;
    }
    case 'const':
      return {
        path,
        onKey: false,
        code: 'invalid_value',
        summary: `${name} must be ${quote(params.allowedValue)}, not ${quote(error.data)}`,
      };
    case 'format':
      return {
        path,
        onKey: false,
        code: 'invalid_value',
        summary: `${quote(error.data)} is not a valid ${String(params.format)}${params.format === 'date' ? ' (YYYY-MM-DD)' : ''}`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        path,
        onKey: false,
        code: 'invalid_value',
        summary: `${name} must be ${String(params.comparison)} ${String(params.limit)}, got ${describeValue(error.data)}`,
      };
    case 'pattern':
      return {
        path,
        onKey: false,
        code: 'invalid_value',
        summary: `invalid value ${quote(error.data)} for ${name}: it must match ${String(params.pattern)}`,
      };
    case 'minLength':
      return { path, onKey: false, code: 'invalid_value', summary: `${name} must not be shorter than ${String(params.limit)} characters` };
    case 'oneOf':
      return { path, onKey: false, code: 'invalid_value', summary: `${name} matches more than one of the allowed forms` };
    case 'anyOf':
      // Only when no branch could be singled out.
      return { path, onKey: false, code: 'invalid_value', summary: `${name} matches none of the allowed forms` };
    default:
      return { path, onKey: false, code: 'invalid_value', summary: `${name} ${error.message ?? 'is invalid'}` };
  }
}
