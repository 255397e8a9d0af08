import type { LiveObjects } from '../inspect/liveObjects.js';
import { isJsonObject, tableKey, type JsonObject } from '../model/index.js';
import type { IncidentIssueRow, IncidentRecord, Store } from '../store/store.js';

/**
 * DQOps's `disable_checks_for_incident`: `disabled: true` on every check that failed in the incident, written to
 * its table's spec as an API write (so it shows as drift until the repository says the same).
 */
export async function disableIncidentChecks(deps: { store: Store; objects: LiveObjects }, incident: IncidentRecord, caller: string): Promise<void> {
  const issues = await deps.store.incidents.issues(incident);
  const name = tableKey({ connection: incident.connection, schema: incident.schema, table: incident.table });
  await deps.objects.update('table', name, { caller }, (current) => {
    const spec = structuredClone(current.spec);
    for (const issue of issues) disableCheck(spec, issue);
    return { spec };
  });
}

/** Sets `disabled: true` on the check of a failed result, at its place in the table spec (created when a policy supplied it). */
function disableCheck(spec: JsonObject, issue: IncidentIssueRow): void {
  const child = (holder: JsonObject, key: string): JsonObject => {
    if (!isJsonObject(holder[key])) holder[key] = {};
    return holder[key] as JsonObject;
  };
  let holder: JsonObject = issue.columnName !== null ? child(child(spec, 'columns'), issue.columnName) : spec;
  const scale = issue.timeGradient.startsWith('month') ? 'monthly' : 'daily';
  if (issue.checkType === 'profiling') holder = child(holder, 'profiling_checks');
  else holder = child(child(holder, issue.checkType === 'monitoring' ? 'monitoring_checks' : 'partitioned_checks'), scale);
  if (issue.tableComparison !== null) holder = child(child(holder, 'comparisons'), issue.tableComparison);
  else holder = child(holder, issue.checkCategory);
  child(holder, issue.checkName).disabled = true;
}
