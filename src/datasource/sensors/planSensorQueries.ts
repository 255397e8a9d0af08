/**
 * Splits the sensors of one table, check type and time scale into the fewest queries: the merged scan of every
 * aggregate sensor (grouped and partitioned as asked); a second, ungrouped scan for aggregate sensors that do
 * not support data grouping; a query of its own for each sensor that cannot be merged (subquery and custom
 * sensors, the catalog's disable_merging_queries, an aggregate whose check filter cannot be a FILTER clause);
 * one catalog query for all schema sensors; one availability probe. Custom (template) sensors join the merged
 * scan or merge among themselves as DQOps merges rendered queries (templateQueries.ts). Sensors that cannot be built at all are
 * returned as rejected with the reason (the runner records each as an execution error).
 */
import { acceptsCheckFilter, buildScan, whyNotMergeable } from './buildTableQuery.js';
import { prepareSensor, type PreparedSensor } from './prepareSensor.js';
import { hasDataGrouping } from './rowSource.js';
import { checkFilterOf } from './scanContext.js';
import { SensorBuildError } from './sensorDefinition.js';
import { buildAvailabilityQuery, buildCustomQuery, buildMetadataQuery, buildSubquery } from './separateQueries.js';
import { planTemplateSensors } from './templateQueries.js';
import type { RejectedSensor, SensorQuery, SensorQueryPlan, TableQueryRequest } from './sensorTypes.js';

export function planSensorQueries(request: TableQueryRequest): SensorQueryPlan {
  const rejected: RejectedSensor[] = [];
  const reject = (sensor: { id: string; sensorName: string }, error: unknown): void => {
    if (!(error instanceof SensorBuildError)) throw error;
    rejected.push({ id: sensor.id, sensorName: sensor.sensorName, reason: error.message });
  };

  const merged: PreparedSensor[] = [];
  const ungrouped: PreparedSensor[] = [];
  const metadata: PreparedSensor[] = [];
  const availability: PreparedSensor[] = [];
  const alone: Array<() => SensorQuery> = [];
  const ids = new Set<string>();
  const grouped = hasDataGrouping(request);

  const templated = request.sensors.filter((s) => s.template !== undefined);
  const templates = planTemplateSensors(request, templated);
  for (const sensor of templated) ids.add(sensor.id);
  for (const sensor of request.sensors) {
    if (sensor.template !== undefined) continue;
    try {
      if (ids.has(sensor.id)) throw new SensorBuildError(`duplicate sensor id ${JSON.stringify(sensor.id)}`);
      ids.add(sensor.id);
      const prepared = prepareSensor(sensor, request);
      const { definition } = prepared;
      switch (definition.kind) {
        case 'aggregate': {
          // Built alone first: a sensor that cannot be built must not break the merged query.
          const filter = acceptsCheckFilter(prepared) ? undefined : checkFilterOf(sensor);
          const single = buildScan(request, [prepared], { grouping: prepared.flags.supportsGrouping, ...(filter === undefined ? {} : { checkFilterInWhere: filter }) });
          if (prepared.flags.disableMergingQueries || filter !== undefined) alone.push(() => single);
          else if (grouped && whyNotMergeable(prepared, request, 2) !== undefined) ungrouped.push(prepared);
          else merged.push(prepared);
          break;
        }
        case 'subquery': {
          const query = buildSubquery(request, prepared);
          alone.push(() => query);
          break;
        }
        case 'custom': {
          const query = buildCustomQuery(request, prepared);
          alone.push(() => query);
          break;
        }
        case 'metadata':
          metadata.push(prepared);
          break;
        case 'availability':
          availability.push(prepared);
          break;
        default: {
          const unreachable: never = definition;
          throw new SensorBuildError(`unknown sensor kind ${JSON.stringify(unreachable)}`);
        }
      }
    } catch (error) {
      reject(sensor, error);
    }
  }

  const queries: SensorQuery[] = [];
  if (merged.length > 0 || templates.scan.length > 0) queries.push(buildScan(request, merged, { grouping: true, templateColumns: templates.scan }));
  if (ungrouped.length > 0 || templates.ungroupedScan.length > 0) queries.push(buildScan(request, ungrouped, { grouping: false, templateColumns: templates.ungroupedScan }));
  queries.push(...alone.map((build) => build()), ...templates.queries);
  if (metadata.length > 0) queries.push(buildMetadataQuery(request, metadata));
  if (availability.length > 0) queries.push(buildAvailabilityQuery(request, availability));
  return { queries, rejected };
}
