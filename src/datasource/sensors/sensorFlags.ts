/**
 * The PostgreSQL capability flags of the catalog's sensors (`postgresql_flags` in catalog/check-catalog.json),
 * which the typed catalog view does not carry: whether a sensor's value can be split by data grouping and by
 * partition, and whether it must run in a query of its own. Read once (from the catalog's one parse), kept for the
 * life of the process.
 */
import { checkCatalogJson } from '../../catalog/index.js';

export interface SensorFlags {
  supportsGrouping: boolean;
  supportsPartitionedChecks: boolean;
  disableMergingQueries: boolean;
}

let cached: ReadonlyMap<string, SensorFlags> | undefined;

export function sensorFlagsOf(sensorName: string): SensorFlags | undefined {
  cached ??= readFlags();
  return cached.get(sensorName);
}

function readFlags(): ReadonlyMap<string, SensorFlags> {
  const json = checkCatalogJson() as { sensors: Record<string, { postgresql_flags?: Record<string, unknown> }> };
  const flags = new Map<string, SensorFlags>();
  for (const [name, sensor] of Object.entries(json.sensors)) {
    const raw = sensor.postgresql_flags ?? {};
    flags.set(name, {
      supportsGrouping: raw.supports_grouping !== false,
      supportsPartitionedChecks: raw.supports_partitioned_checks !== false,
      disableMergingQueries: raw.disable_merging_queries === true,
    });
  }
  return flags;
}
