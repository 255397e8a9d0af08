import { DqError, type JsonObject } from '../model/index.js';
import { validateDocument, type DocumentKind } from '../schema/index.js';

/**
 * A spec written through the API is checked as its file would be (the same schema, codes and did-you-mean), and a
 * refused body lists every violation at its place in the BODY, as a JSON pointer: `/sensor_definition_spec/fields/0/data_type`.
 */
export interface BodyViolation {
  path: string;
  message: string;
  code?: string;
  detail?: string;
  suggestions?: readonly string[];
}

function pointer(segments: readonly (string | number)[]): string {
  return segments.length === 0 ? '/' : `/${segments.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/**
 * The violations of `spec` as a file of `kind`. `bodyAt` is where the spec sits in the body
 * (`['sensor_definition_spec']`; `[]` when the body is the spec); `specAt` the part of the spec the body holds,
 * for a body that is only part of a spec (`['columns', 'id']`): paths outside it are given from the spec's root.
 */
export function specViolations(
  kind: DocumentKind,
  spec: JsonObject,
  options: { bodyAt?: readonly (string | number)[]; specAt?: readonly (string | number)[] } = {},
): BodyViolation[] {
  const violations = validateDocument(kind, { apiVersion: 'dqo/v1', kind, spec });
  const specAt = ['spec', ...(options.specAt ?? [])];
  return violations.map((v) => {
    const inside = specAt.every((segment, i) => v.path[i] === segment);
    const path = inside ? v.path.slice(specAt.length) : v.path.slice(1);
    return {
      path: pointer([...(options.bodyAt ?? []), ...path]),
      message: v.summary,
      code: v.code,
      ...(v.detail === undefined ? {} : { detail: v.detail }),
      ...(v.suggestions === undefined ? {} : { suggestions: v.suggestions }),
    };
  });
}

/** 400 BODY_INVALID naming the first violation and listing all of them; nothing when there are none. */
export function refuseViolations(violations: readonly BodyViolation[], what: string): void {
  if (violations.length === 0) return;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  throw new DqError('BODY_INVALID', `the ${what} is invalid: ${violations[0].path} ${violations[0].message}${more}`, { violations: [...violations] });
}

/** A violation of the body that no schema states (a rule of the API itself), at a body path. */
export function bodyViolation(path: readonly (string | number)[], message: string, code = 'invalid_value'): BodyViolation {
  return { path: pointer(path), message, code };
}
