import { isJsonObject, type JsonValue } from '../model/index.js';

/**
 * Secret values never leave dqctl: plans, logs and API responses show `(sensitive)` in their place.
 * A `${ENV_VAR}` / `${credential://…}` reference is not a secret and is shown as written.
 */
export const SENSITIVE = '(sensitive)';

const SECRET_KEY = /^(password|.*_password|.*secret.*|.*token.*|private_key.*|access_key.*|.*_key_content)$/;
const SECRET_REFERENCE = /^\$\{[^}]+\}$/;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function isSecretReference(value: JsonValue | undefined): boolean {
  return typeof value === 'string' && SECRET_REFERENCE.test(value);
}

/** The value to show for a field at `path` (the last segment is the key). */
export function redactValue(path: readonly string[], value: JsonValue | undefined): JsonValue | undefined {
  const key = path[path.length - 1];
  if (value === undefined || value === null || key === undefined) return value;
  if (isSecretKey(key) && typeof value !== 'object') return isSecretReference(value) ? value : SENSITIVE;
  if (isJsonObject(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue([...path, k], v) as JsonValue;
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => redactValue([...path.slice(0, -1), key], v) as JsonValue);
  return value;
}
