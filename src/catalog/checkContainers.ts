/**
 * A check container is where a check may be written: its target (table or column), its check type and its
 * time scale. DQOps files spell it as `profiling_checks`, `monitoring_checks.daily`, `partitioned_checks.monthly`
 * (under the table spec or under a column). Every check of the catalog belongs to exactly one container.
 */
import type { CheckTarget, CheckType, TimeScale } from './catalogTypes.js';
import { CHECK_TYPES, TIME_SCALES } from '../model/index.js';

export interface CheckContainer {
  target: CheckTarget;
  checkType: CheckType;
  /** null for profiling, which has no daily/monthly level. */
  timeScale: TimeScale | null;
}

export const CHECK_TARGETS: readonly CheckTarget[] = ['table', 'column'];
export { CHECK_TYPES, TIME_SCALES } from '../model/index.js';

/** The YAML key of each check type's container. */
export const CONTAINER_KEYS: Readonly<Record<CheckType, string>> = {
  profiling: 'profiling_checks',
  monitoring: 'monitoring_checks',
  partitioned: 'partitioned_checks',
};

/** The time scales a check type has: none for profiling, daily and monthly for the others. */
export function timeScalesOf(checkType: CheckType): readonly (TimeScale | null)[] {
  return checkType === 'profiling' ? [null] : TIME_SCALES;
}

/** All containers of one target, in file order: profiling, monitoring daily/monthly, partitioned daily/monthly. */
export function containersOf(target: CheckTarget): CheckContainer[] {
  return CHECK_TYPES.flatMap((checkType) => timeScalesOf(checkType).map((timeScale) => ({ target, checkType, timeScale })));
}

/** Path of the container inside a table or column spec: `profiling_checks`, `monitoring_checks.daily`. */
export function containerPath(container: Omit<CheckContainer, 'target'>): string {
  const key = CONTAINER_KEYS[container.checkType];
  return container.timeScale === null ? key : `${key}.${container.timeScale}`;
}

/** A stable identifier, e.g. `column/monitoring/daily` or `table/profiling`. */
export function containerId(container: CheckContainer): string {
  const base = `${container.target}/${container.checkType}`;
  return container.timeScale === null ? base : `${base}/${container.timeScale}`;
}

export function sameContainer(a: CheckContainer, b: CheckContainer): boolean {
  return a.target === b.target && a.checkType === b.checkType && a.timeScale === b.timeScale;
}
