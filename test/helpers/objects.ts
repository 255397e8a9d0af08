import { contentHash } from '../../src/diff/contentHash.js';
import { normalizeSpec } from '../../src/diff/normalizeSpec.js';
import type { DesiredObject, JsonObject, LiveObject, ObjectKind } from '../../src/model/index.js';

/** Plain values for the pure stages: a desired object and its live twin. */
export function desired(kind: ObjectKind, name: string, spec: JsonObject, file = `${kind}/${name}.yaml`): DesiredObject {
  const normalized = normalizeSpec(kind, spec);
  return { kind, name, spec: normalized, attachments: {}, hash: contentHash(normalized, {}), origin: { file } };
}

export function live(
  kind: ObjectKind,
  name: string,
  spec: JsonObject,
  overrides: Partial<LiveObject> = {},
): LiveObject {
  const normalized = normalizeSpec(kind, spec);
  const hash = contentHash(normalized, {});
  return {
    kind,
    name,
    spec: normalized,
    attachments: {},
    contentHash: hash,
    appliedHash: hash,
    managedBy: 'git',
    owner: 'default',
    originFile: `${kind}/${name}.yaml`,
    originCommit: null,
    revision: 1,
    applied: { spec: normalized, attachments: {} },
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A live object changed through the API after the last apply: content moved, applied hash stayed. */
export function drifted(base: LiveObject, spec: JsonObject): LiveObject {
  const normalized = normalizeSpec(base.kind, spec);
  return { ...base, spec: normalized, contentHash: contentHash(normalized, {}), appliedHash: base.contentHash, applied: { spec: base.spec, attachments: base.attachments } };
}
