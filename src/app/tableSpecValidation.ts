import type { JsonObject } from '../model/index.js';
import { refuseViolations, specViolations } from './specValidation.js';

/**
 * Validates a (partial) table spec as a table file would be, and refuses it with 400 BODY_INVALID listing the
 * violations. `bodyAt` is where the request body sits in the spec (e.g. `['columns', 'id']`); violation paths
 * are given relative to the body, as JSON pointers.
 */
export function refuseInvalidTableSpec(spec: JsonObject, bodyAt: readonly (string | number)[] = [], what = 'table spec'): void {
  refuseViolations(specViolations('table', spec, { specAt: bodyAt }), what);
}
