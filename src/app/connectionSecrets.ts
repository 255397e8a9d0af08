import { isSecretKey, redactValue, SENSITIVE } from '../diff/secrets.js';
import { DqError, isJsonObject, type JsonObject, type JsonValue } from '../model/index.js';
import { jsonPointer } from './jsonPointer.js';

/**
 * Secrets of a connection through the API: a response never carries one (a literal secret value reads
 * `(sensitive)`, a `${…}` reference is shown as written), and a `(sensitive)` sent back in an update keeps the
 * stored value, so a client may PUT what it GOT.
 */

/** A spec as a response may show it: secrets redacted at any depth. */
export function redactSpec(spec: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(spec)) out[key] = redactValue([key], value) as JsonValue;
  return out;
}

/** A part of a spec (`[key]` its place) as a response may show it. */
export function redactPart(key: string, value: JsonValue): JsonValue {
  return redactValue([key], value) as JsonValue;
}

/**
 * A `(sensitive)` placeholder sent back for a secret keeps the stored value; with no stored value it is refused
 * (storing the placeholder as a password would break the connection silently). `at` is where `incoming` sits
 * in the request body, for the error.
 */
function restoreSecrets(incoming: JsonValue, current: JsonValue | undefined, at: (string | number)[]): JsonValue {
  if (Array.isArray(incoming)) {
    return incoming.map((item, i) => restoreSecrets(item, Array.isArray(current) ? current[i] : undefined, [...at, i]));
  }
  if (!isJsonObject(incoming)) return incoming;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(incoming)) {
    const stored = isJsonObject(current) ? current[key] : undefined;
    if (value === SENSITIVE && isSecretKey(key)) {
      if (stored === undefined || stored === null) {
        const where = jsonPointer([...at, key]);
        throw new DqError('BODY_INVALID', `${where}: "${SENSITIVE}" stands for a stored secret, and none is stored here; send the value or a \${ENV_VAR} reference`, {
          violations: [{ path: where, message: `"${SENSITIVE}" is not a value`, code: 'invalid_value' }],
        });
      }
      out[key] = stored;
      continue;
    }
    out[key] = restoreSecrets(value, stored, [...at, key]);
  }
  return out;
}

/** A spec sent in a body with its secret placeholders replaced by the stored values. */
export function withSecrets(incoming: JsonObject, current: JsonObject | undefined): JsonObject {
  return restoreSecrets(incoming, current, []) as JsonObject;
}

