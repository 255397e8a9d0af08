import { canonicalJson } from '../../diff/contentHash.js';
import { diffDesired } from '../../diff/diffDesired.js';
import { partitionColumnOf, plannedChecksOfTable, type PlannedCheck } from '../../jobs/checkRun/plannedChecks.js';
import type { DesiredState } from '../../manifest/desiredState.js';
import { dictionaryReference, isJsonObject, type DesiredObject, type JsonObject, type JsonValue, type ObjectKind } from '../../model/index.js';
import { isPolicyKind } from '../../policy/blastRadius.js';
import { compilePolicies, tableRefOf, type CompiledPolicies } from '../../policy/index.js';
import type { PreviewDefinition, PreviewDefinitions, PreviewRequestCheck, PreviewTable } from './previewRequest.js';

/**
 * The checks a change between two revisions adds or modifies, with the head's settings: the EFFECTIVE checks
 * (a table's own and what its policies give it) of the head compared with the base's, check by check, so a
 * policy change shows on every table the policy reaches. A check is `added` when the base did not run it
 * (absent or disabled), `modified` when its spec, or what its sensor reads (the table's filter, data grouping,
 * partition column), differs, or the custom code that measures and judges it: the custom rule of its rule's
 * name (its `.dqorule.yaml` or its `.py`, also one added or removed over a built-in rule), the custom sensor of
 * its sensor's name (definition, provider files, template), the dictionaries its parameters expand, the check
 * definition that names its sensor and rule. So a changed `.py` alone modifies every check that uses the rule.
 * Pure: two desired states in, tables with their changed checks out.
 *
 * Only the tables that can differ are compared: those whose file changed, or all of them when a policy, a
 * connection (its labels and grouping feed its tables' checks) or a custom definition changed.
 */
export function changedChecks(base: DesiredState, head: DesiredState): PreviewTable[] {
  const diff = diffDesired(base, head);
  const changedTables = new Set<string>();
  let everyTable = false;
  for (const change of diff.changes) {
    if (change.key.kind === 'table') changedTables.add(change.key.name);
    else if (isPolicyKind(change.key.kind) || change.key.kind === 'source' || DEFINITION_KINDS.has(change.key.kind)) everyTable = true;
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
      if (before && fingerprintOf(before, baseSide) === fingerprintOf(check, headSide)) continue;
      checks.push({
        column: check.column,
        check_type: check.checkType,
        time_scale: check.timeScale,
        category: check.category,
        check_name: check.checkName,
        sensor_name: check.catalog.sensor,
        rule_name: check.catalog.rule,
        comparison: check.comparison?.name ?? null,
        spec: check.spec,
        change: before ? 'modified' : 'added',
        source: sourceOf(check, object, headSide),
        history_check_name: historyOf(check, before, baseChecks, baseSide, headSide),
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
  /** The custom rules, sensors and dictionaries of the revision, by name. */
  rules: Map<string, DesiredObject>;
  sensors: Map<string, DesiredObject>;
  dictionaries: Map<string, DesiredObject>;
}

/** The kinds whose change can change what any table's checks measure or how they are judged. */
const DEFINITION_KINDS: ReadonlySet<ObjectKind> = new Set<ObjectKind>(['rule', 'sensor', 'check', 'dictionary']);

function sideOf(state: DesiredState): Side {
  const sources = new Map<string, JsonObject>();
  const tables = new Map<string, DesiredObject>();
  const policies: DesiredObject[] = [];
  const policyFiles = new Map<string, string>();
  const checkDefinitions = new Map<string, JsonObject>();
  const rules = new Map<string, DesiredObject>();
  const sensors = new Map<string, DesiredObject>();
  const dictionaries = new Map<string, DesiredObject>();
  for (const object of state.objects) {
    if (object.kind === 'check') checkDefinitions.set(object.name, object.spec);
    else if (object.kind === 'rule') rules.set(object.name, object);
    else if (object.kind === 'sensor') sensors.set(object.name, object);
    else if (object.kind === 'dictionary') dictionaries.set(object.name, object);
    else if (object.kind === 'source') sources.set(object.name, object.spec);
    else if (object.kind === 'table') tables.set(object.name, object);
    else if (isPolicyKind(object.kind)) {
      policies.push(object);
      const known = policyFiles.get(object.name);
      policyFiles.set(object.name, known && known !== object.origin.file ? `${known}, ${object.origin.file}` : object.origin.file);
    }
  }
  return { sources, tables, policies: compilePolicies(policies), policyFiles, checkDefinitions, rules, sensors, dictionaries };
}

/**
 * What decides a check's outcome: its spec, what its sensor reads of the table, what measures it (readoutKeyOf)
 * and the rule that judges it (a custom rule's content; null: the built-in rule of that name).
 */
function fingerprintOf(check: PlannedCheck, side: Side): string {
  const spec = check.table.spec;
  return canonicalJson({
    spec: check.spec,
    filter: typeof spec.filter === 'string' ? spec.filter : null,
    grouping: check.grouping.map((level): JsonValue => ('column' in level ? ['column', level.column] : ['tag', level.tag])),
    partition: partitionColumnOf(spec) ?? null,
    readout: readoutKeyOf(check, side),
    rule: check.catalog.rule,
    custom_rule: side.rules.get(check.catalog.rule)?.hash ?? null,
  });
}

/**
 * What a check's readouts are made of: its sensor (a custom sensor's content, null for the built-in one of that
 * name), its parameters, and the content of the dictionaries those expand. Readouts stored under one key stand
 * for another check's only when the keys are equal.
 */
function readoutKeyOf(check: PlannedCheck, side: Side): string {
  const parameters = isJsonObject(check.spec.parameters) ? check.spec.parameters : {};
  const dictionaries: JsonObject = {};
  for (const name of dictionaryNamesOf(parameters)) dictionaries[name] = side.dictionaries.get(name)?.hash ?? null;
  return canonicalJson({ sensor: check.catalog.sensor, custom_sensor: side.sensors.get(check.catalog.sensor)?.hash ?? null, parameters, dictionaries });
}

/** The dictionaries (`${dictionary://name.csv}`) the list parameters of a check refer to. */
function dictionaryNamesOf(parameters: JsonObject): string[] {
  const names = new Set<string>();
  for (const value of Object.values(parameters)) {
    if (!Array.isArray(value)) continue;
    for (const element of value) {
      const name = dictionaryReference(element);
      if (name !== undefined) names.add(name);
    }
  }
  return [...names].sort();
}

/**
 * The head revision's custom rules, sensors and dictionaries that the changed checks use: what the evaluator
 * judges and measures them with (a request carries them, so a server runs the pull request's code, not its own).
 */
export function headDefinitions(head: DesiredState, tables: readonly PreviewTable[]): PreviewDefinitions {
  const side = sideOf(head);
  const rules = new Map<string, PreviewDefinition>();
  const sensors = new Map<string, PreviewDefinition>();
  const dictionaries = new Map<string, PreviewDefinition>();
  const take = (from: Map<string, DesiredObject>, to: Map<string, PreviewDefinition>, name: string | undefined) => {
    const object = name === undefined ? undefined : from.get(name);
    if (object && !to.has(object.name)) to.set(object.name, { name: object.name, spec: object.spec, attachments: object.attachments });
  };
  for (const table of tables) {
    for (const check of table.checks) {
      take(side.rules, rules, check.rule_name);
      take(side.sensors, sensors, check.sensor_name);
      for (const name of dictionaryNamesOf(isJsonObject(check.spec.parameters) ? check.spec.parameters : {})) take(side.dictionaries, dictionaries, name);
    }
  }
  const sorted = (map: Map<string, PreviewDefinition>) => [...map.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { rules: sorted(rules), sensors: sorted(sensors), dictionaries: sorted(dictionaries) };
}

function sourceOf(check: PlannedCheck, table: DesiredObject, side: Side): string {
  const origin = check.origin;
  if (origin?.source === 'policy') return side.policyFiles.get(origin.policyName) ?? `policy ${origin.policyName}`;
  return table.origin.file;
}

/**
 * The check whose stored readouts stand for this one's: its own when what makes its readouts (sensor, its
 * custom definition, parameters, their dictionaries) did not change; else a check of the base on the same
 * target, check type and time scale whose readouts were made the same way; else none (a changed custom
 * sensor's old readouts do not stand for the new one's).
 */
function historyOf(check: PlannedCheck, before: PlannedCheck | undefined, baseChecks: readonly PlannedCheck[], baseSide: Side, headSide: Side): string | null {
  const readout = readoutKeyOf(check, headSide);
  if (before && readoutKeyOf(before, baseSide) === readout) return check.checkName;
  const donor = baseChecks.find(
    (other) =>
      other.column === check.column &&
      other.checkType === check.checkType &&
      other.timeScale === check.timeScale &&
      (other.comparison?.name ?? null) === (check.comparison?.name ?? null) &&
      readoutKeyOf(other, baseSide) === readout,
  );
  return donor?.checkName ?? null;
}
