import { DqError, isJsonObject, type JsonObject } from '../model/index.js';
import { validateDocument, type SchemaViolation } from '../schema/index.js';
import { refuseInvalidAddresses } from './incidentSettings.js';
import { jsonPointer as pointer } from './jsonPointer.js';

/**
 * Refuses a spec a connection file could not hold: 400 BODY_INVALID with every violation located by a JSON
 * pointer into the request body. `part` is the path in the spec of what the body replaced (its violations are
 * reported relative to the body); violations elsewhere are reported at `/spec/...`.
 */
export function validateConnectionSpec(spec: JsonObject, part?: readonly string[]): JsonObject {
  const violations = validateDocument('source', { apiVersion: 'dqo/v1', kind: 'source', spec });
  if (violations.length === 0) {
    const grouping = isJsonObject(spec.incident_grouping) ? spec.incident_grouping : {};
    refuseInvalidAddresses(grouping.incident_notification, part?.[0] === 'incident_grouping' ? '/incident_notification' : '/incident_grouping/incident_notification');
    return spec;
  }
  const listed = violations.map((v: SchemaViolation) => {
    const inSpec = v.path[0] === 'spec' ? v.path.slice(1) : v.path;
    const inPart = part !== undefined && part.every((segment, i) => inSpec[i] === segment);
    const path = part === undefined ? pointer(inSpec) : inPart ? pointer(inSpec.slice(part.length)) : `/spec${pointer(inSpec)}`;
    return {
      path,
      message: v.summary,
      code: v.code,
      ...(v.detail ? { detail: v.detail } : {}),
      ...(v.suggestions ? { suggestions: v.suggestions } : {}),
    };
  });
  throw new DqError('BODY_INVALID', `the connection is invalid: ${listed[0].path}: ${listed[0].message}`, { violations: listed });
}

