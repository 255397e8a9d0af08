import { canonicalJson } from '../../diff/contentHash.js';
import { diffDesired } from '../../diff/diffDesired.js';
import { partitionColumnOf, plannedChecksOfTable, type PlannedCheck } from '../../jobs/checkRun/plannedChecks.js';
import type { DesiredState } from '../../manifest/desiredState.js';
import { isJsonObject, type DesiredObject, type JsonObject, type JsonValue } from '../../model/index.js';
import { isPolicyKind } from '../../policy/blastRadius.js';
import { compilePolicies, tableRefOf, type CompiledPolicies } from '../../policy/index.js';
import type { PreviewRequestCheck, PreviewTable } from './previewRequest.js';

/**
 * The checks a change between two revisions adds or modifies, with the head's settings: the EFFECTIVE checks
 * (a table's own and what its policies give it) of the head compared with the base's, check by check, so a
 * policy change shows on every table the policy reaches. A check is `added` when the base did not run it
 * (absent or disabled), `modified` when its spec, or what its sensor reads (the table's filter, data grouping,
 * partition column), differs. Pure: two desired states in, tables with their changed checks out.
 *
 * Only the tables that can differ are compared: those whose file changed, or all of them when a policy or a
 * connection changed (a connection's labels and grouping feed its tables' checks).
 */
export function changedChecks(base: DesiredState, head: DesiredState): PreviewTable[] {
  const diff = diffDesired(base, head);
  const changedTables = new Set<string>();
  let everyTable = false;
  for (const change of diff.changes) {
    if (change.key.kind === 'table') changedTables.add(change.key.name);
    else if (isPolicyKind(change.key.kind) || change.key.kind === 'source') everyTable = true;
  }
  if (!everyTable && changedTables.size === 0) return [];

  const baseSide = sideOf(base);
  const headSide = sideOf(head);
  const tables: PreviewTable[] = [];
  for (const object of head.objects) {
    if (object.kind !== 'table' || (!everyTable && !changedTables.has(object.name))) continue;
    const ref = tableRefOf(object.name, object.spec);
    if (!ref) continue;
    const headChecks = plannedChecksOfTable(ref, headSide.sources.get(ref.connection), headSide.policies, {}, headSide.checkDefinitions);
    if (headChecks.length === 0) continue;
    const baseObject = baseSide.tables.get(object.name);
    const baseRef = baseObject && tableRefOf(baseObject.name, baseObject.spec);
    const baseChecks = baseRef ? plannedChecksOfTable(baseRef, baseSide.sources.get(baseRef.connection), baseSide.policies, {}, baseSide.checkDefinitions) : [];
    const baseByHash = new Map(baseChecks.map((check) => [check.checkHash, check]));
    const checks: PreviewRequestCheck[] = [];
    for (const check of headChecks) {
      const before = baseByHash.get(check.checkHash);
      if (before && fingerprintOf(before) === fingerprintOf(check)) continue;
      checks.push({
        column: check.column,
        check_type: check.checkType,
        time_scale: check.timeScale,
        category: check.category,
        check_name: check.checkName,
        comparison: check.comparison?.name ?? null,
        spec: check.spec,
        change: before ? 'modified' : 'added',
        source: sourceOf(check, object, headSide),
        history_check_name: historyOf(check, before, baseChecks),
      });
    }
    if (checks.length > 0) tables.push({ connection: ref.connection, schema: ref.schema, table: ref.table, spec: object.spec, checks });
  }
  return tables;
}

interface Side {
  sources: Map<string, JsonObject>;
  tables: Map<string, DesiredObject>;
  policies: CompiledPolicies;
  /** Policy name → its file (a table and a column policy may share a name: both files are kept). */
  policyFiles: Map<string, string>;
  /** The check definitions of the revision (checks/), which custom checks may run. */
  checkDefinitions: Map<string, JsonObject>;
}

function sideOf(state: DesiredState): Side {
  const sources = new Map<string, JsonObject>();
  const tables = new Map<string, DesiredObject>();
  const policies: DesiredObject[] = [];
  const policyFiles = new Map<string, string>();
  const checkDefinitions = new Map<string, JsonObject>();
  for (const object of state.objects) {
    if (object.kind === 'check') checkDefinitions.set(object.name, object.spec);
    else if (object.kind === 'source') sources.set(object.name, object.spec);
    else if (object.kind === 'table') tables.set(object.name, object);
    else if (isPolicyKind(object.kind)) {
      policies.push(object);
      const known = policyFiles.get(object.name);
      policyFiles.set(object.name, known && known !== object.origin.file ? `${known}, ${object.origin.file}` : object.origin.file);
    }
  }
  return { sources, tables, policies: compilePolicies(policies), policyFiles, checkDefinitions };
}

/** What decides a check's outcome: its spec, and what its sensor reads of the table. */
function fingerprintOf(check: PlannedCheck): string {
  const spec = check.table.spec;
  return canonicalJson({
    spec: check.spec,
    filter: typeof spec.filter === 'string' ? spec.filter : null,
    grouping: check.grouping.map((level): JsonValue => ('column' in level ? ['column', level.column] : ['tag', level.tag])),
    partition: partitionColumnOf(spec) ?? null,
  });
}

function sourceOf(check: PlannedCheck, table: DesiredObject, side: Side): string {
  const origin = check.origin;
  if (origin?.source === 'policy') return side.policyFiles.get(origin.policyName) ?? `policy ${origin.policyName}`;
  return table.origin.file;
}

const parametersOf = (check: PlannedCheck): string => canonicalJson(isJsonObject(check.spec.parameters) ? check.spec.parameters : {});

/**
 * The check whose stored readouts stand for this one's: its own when its sensor parameters did not change;
 * else a check of the base on the same target, check type and time scale with the same sensor and the same
 * parameters (its own name first); else none.
 */
function historyOf(check: PlannedCheck, before: PlannedCheck | undefined, baseChecks: readonly PlannedCheck[]): string | null {
  const parameters = parametersOf(check);
  if (before && parametersOf(before) === parameters) return check.checkName;
  const donor = baseChecks.find(
    (other) =>
      other.column === check.column &&
      other.checkType === check.checkType &&
      other.timeScale === check.timeScale &&
      (other.comparison?.name ?? null) === (check.comparison?.name ?? null) &&
      other.catalog.sensor === check.catalog.sensor &&
      parametersOf(other) === parameters,
  );
  return donor?.checkName ?? null;
}
