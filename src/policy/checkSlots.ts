/**
 * The five check containers of a table, column or policy spec (profiling, monitoring daily/monthly,
 * partitioned daily/monthly) and a flat list of the checks a spec writes in them. Policies are flattened once
 * when compiled, so applying a policy to a table is a loop over its checks, not a walk of its spec.
 * Checks written as null (not configured), the `comparisons` category (a different shape, see
 * effectiveChecks) and names that cannot be plain object keys (`__proto__`) are not listed.
 */
import { isJsonObject, type JsonObject } from '../model/index.js';
import type { CheckType, TimeScale } from '../catalog/index.js';
import type { CheckOrigin } from './checkOrigin.js';

export const COMPARISONS_CATEGORY = 'comparisons';
/** A category's map of custom checks (DQOps's `custom_checks`). */
export const CUSTOM_CHECKS_KEY = 'custom_checks';

export interface CheckSlot {
  readonly index: number;
  readonly checkType: CheckType;
  readonly timeScale: TimeScale | null;
  /** Partitioned checks of policies apply only to tables with a partition_by_column. */
  readonly partitioned: boolean;
  read(spec: JsonObject): JsonObject | undefined;
}

export const CHECK_SLOTS: readonly CheckSlot[] = [
  { index: 0, checkType: 'profiling', timeScale: null, partitioned: false, read: (s) => objectAt(s.profiling_checks) },
  { index: 1, checkType: 'monitoring', timeScale: 'daily', partitioned: false, read: (s) => objectAt(objectAt(s.monitoring_checks)?.daily) },
  { index: 2, checkType: 'monitoring', timeScale: 'monthly', partitioned: false, read: (s) => objectAt(objectAt(s.monitoring_checks)?.monthly) },
  { index: 3, checkType: 'partitioned', timeScale: 'daily', partitioned: true, read: (s) => objectAt(objectAt(s.partitioned_checks)?.daily) },
  { index: 4, checkType: 'partitioned', timeScale: 'monthly', partitioned: true, read: (s) => objectAt(objectAt(s.partitioned_checks)?.monthly) },
];

/** An effective check: its spec and where it comes from. Frozen: a policy's are shared by every table. */
export interface EffectiveCheck {
  readonly spec: JsonObject;
  readonly origin: CheckOrigin;
}

export interface FlatCheck {
  /** The place's number (see checkPlaces); -1 when unnumbered. */
  readonly id: number;
  readonly slot: number;
  readonly partitioned: boolean;
  readonly category: string;
  readonly checkName: string;
  readonly effective: EffectiveCheck;
}

/** Numbers a place; -1 when it has no number. */
export type PlaceNumbering = (slot: number, category: string, checkName: string) => number;

/** The checks a spec writes, container by container, in the spec's order, with the origin to record. */
export function flattenChecks(ownerSpec: JsonObject, origin: CheckOrigin, numbering?: PlaceNumbering): FlatCheck[] {
  const flat: FlatCheck[] = [];
  for (const slot of CHECK_SLOTS) {
    const container = slot.read(ownerSpec);
    if (container === undefined) continue;
    for (const category of Object.keys(container)) {
      if (category === COMPARISONS_CATEGORY || category === '__proto__') continue;
      const checks = container[category];
      if (!isJsonObject(checks)) continue;
      const add = (checkName: string, spec: JsonObject) => {
        const effective = Object.freeze({ spec, origin });
        const id = numbering === undefined ? -1 : numbering(slot.index, category, checkName);
        flat.push({ id, slot: slot.index, partitioned: slot.partitioned, category, checkName, effective });
      };
      for (const checkName of Object.keys(checks)) {
        const spec = checks[checkName];
        // A check written as null is not configured (the same as a missing key).
        if (!isJsonObject(spec) || checkName === '__proto__') continue;
        if (checkName !== CUSTOM_CHECKS_KEY) {
          add(checkName, spec);
          continue;
        }
        // a category's custom checks are checks of that category (the root `custom:` map is a category itself)
        for (const customName of Object.keys(spec)) {
          const custom = spec[customName];
          if (isJsonObject(custom) && customName !== '__proto__') add(customName, custom);
        }
      }
    }
  }
  return flat;
}

function objectAt(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}
