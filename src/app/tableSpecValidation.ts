import { DqError, type JsonObject } from '../model/index.js';
import { validateDocument } from '../schema/index.js';

/**
 * Validates a (partial) table spec as a table file would be, and refuses it with 400 BODY_INVALID listing the
 * violations. `bodyAt` is where the request body sits in the spec (e.g. `['columns', 'id']`); violation paths
 * are given relative to the body, as JSON pointers.
 */
export function refuseInvalidTableSpec(spec: JsonObject, bodyAt: readonly (string | number)[] = [], what = 'table spec'): void {
  const violations = validateDocument('table', { apiVersion: 'dqo/v1', kind: 'table', spec });
  if (violations.length === 0) return;
  const prefix = ['spec', ...bodyAt];
  const listed = violations.map((v) => {
    const inside = prefix.every((segment, i) => v.path[i] === segment);
    const path = inside ? v.path.slice(prefix.length) : v.path.slice(1);
    return {
      path: path.length === 0 ? '/' : `/${path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
      message: v.summary,
      code: v.code,
      ...(v.detail === undefined ? {} : { detail: v.detail }),
      ...(v.suggestions === undefined ? {} : { suggestions: v.suggestions }),
    };
  });
  const more = listed.length > 1 ? ` (and ${listed.length - 1} more)` : '';
  throw new DqError('BODY_INVALID', `the ${what} is invalid: ${listed[0].path} ${listed[0].message}${more}`, { violations: listed });
}

