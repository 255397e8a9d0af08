import { Cron } from 'croner';
import { didYouMean, getCheckCatalog } from '../catalog/index.js';
import { CUSTOM_CATEGORY, CUSTOM_CHECKS_KEY } from '../schema/build/checkContainerSchemas.js';
import { isSecretKey, isSecretReference } from '../diff/secrets.js';
import { appendAll, isJsonObject, type Diagnostic, type JsonObject, type JsonValue, type ObjectKind } from '../model/index.js';
import { checkAddress } from './notificationAddresses.js';
import type { ParsedYaml } from './yamlDocument.js';

/** An object whose file parsed and passed its schema: the input of the checks that span files. */
export interface LoadedObject {
  kind: ObjectKind;
  name: string;
  /** For sources and tables: the decoded connection folder name. */
  connection?: string;
  file: string;
  rawSpec: JsonObject;
  parsed: ParsedYaml;
}

export interface SemanticContext {
  /** Connections that have a connection file, even one with errors (so a broken connection file does not
   *  also make every table of it "unknown"). */
  declaredConnections: ReadonlySet<string>;
  /** Tables that have a file (`conn` -> `schema.table`), even one with errors, for the same reason. */
  declaredTables: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Checks that a JSON Schema cannot express: across files (duplicates, dangling connections and lineage) and
 * within values (threshold order, literal secrets, policies targeting connections that do not exist).
 * (An unknown data_type_category in a policy target is the schema's enum violation, reported there.)
 */
export function runSemanticChecks(objects: readonly LoadedObject[], context: SemanticContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  checkDuplicates(objects, out);
  for (const o of objects) {
    appendAll(out, documentFindings(o));
    switch (o.kind) {
      case 'table':
        checkTableConnection(o, context, out);
        checkLineage(o, context, out);
        checkComparisonConnections(o, context, out);
        break;
      case 'default_table_checks':
      case 'default_column_checks':
        checkPolicyTarget(o, context, out);
        break;
      case 'source':
      case 'rule':
      case 'default_schedules':
      case 'default_notifications':
        break;
    }
  }
  checkCustomRuleReferences(objects, out);
  return out;
}

/**
 * What depends on one document alone, kept per parsed object: the reconcile loop reuses the LoadedObject of
 * every unchanged file, so a pass walks the checks of the changed files only, not the 40,000 checks of all.
 */
const findingsOfDocument = new WeakMap<LoadedObject, readonly Diagnostic[]>();

function documentFindings(o: LoadedObject): readonly Diagnostic[] {
  let found = findingsOfDocument.get(o);
  if (found) return found;
  const out: Diagnostic[] = [];
  switch (o.kind) {
    case 'source':
      checkSecrets(o, out);
      checkCronExpressions(o, out);
      if (isJsonObject(o.rawSpec.incident_grouping)) checkAddresses(o, o.rawSpec.incident_grouping.incident_notification, ['spec', 'incident_grouping', 'incident_notification'], out);
      break;
    case 'default_notifications':
      checkAddresses(o, o.rawSpec, ['spec'], out);
      break;
    case 'table':
      checkEachCheck(o, out);
      checkCustomChecks(o, out);
      checkPartitioning(o, out);
      checkComparisonReferences(o, out);
      break;
    case 'default_table_checks':
    case 'default_column_checks':
      checkEachCheck(o, out);
      checkCustomChecks(o, out);
      break;
    case 'default_schedules':
      checkScheduleGroups(o, o.rawSpec, ['spec'], out);
      break;
    case 'rule':
    case 'default_notifications':
      break;
  }
  found = Object.freeze(out.map((d) => Object.freeze(d)));
  findingsOfDocument.set(o, found);
  return found;
}

/**
 * What depends on one document alone (its findings, the rule names its custom checks use), as plain data: the
 * persisted parse cache keeps it beside the parsed file, so that a new process walks the checks of the changed
 * files only. Undefined until runSemanticChecks has seen the object.
 */
export interface DocumentSemantics {
  findings: readonly Diagnostic[];
  ruleReferences: readonly RuleReference[];
}

export function documentSemanticsOf(o: LoadedObject): DocumentSemantics | undefined {
  const findings = findingsOfDocument.get(o);
  return findings ? { findings, ruleReferences: ruleReferencesOfDocument.get(o) ?? [] } : undefined;
}

/** Gives `o` what an earlier process found in the same document with the same code (see DocumentSemantics). */
export function restoreDocumentSemantics(o: LoadedObject, semantics: DocumentSemantics): void {
  findingsOfDocument.set(o, semantics.findings);
  ruleReferencesOfDocument.set(o, semantics.ruleReferences);
}

/** A custom check's `rule_name`, checked against the repository's rules once all files are read. */
export interface RuleReference {
  ruleName: string;
  path: Array<string | number>;
}

const ruleReferencesOfDocument = new WeakMap<LoadedObject, readonly RuleReference[]>();

/**
 * The custom checks of a table or policy (`custom_checks` of a category, `custom` of a container): each names a
 * built-in sensor of its target and a rule (unless its name is a built-in check's, which gives both); the rule
 * names are kept for checkCustomRuleReferences.
 */
function checkCustomChecks(o: LoadedObject, out: Diagnostic[]): void {
  const references: RuleReference[] = [];
  const catalog = getCheckCatalog();
  forEachCheck(o.rawSpec, ['spec'], (check, path) => {
    const custom = path[path.length - 2] === CUSTOM_CHECKS_KEY || path[path.length - 2] === CUSTOM_CATEGORY;
    if (!custom) return;
    const name = String(path[path.length - 1]);
    const target = path.includes('columns') || o.kind === 'default_column_checks' ? 'column' : 'table';
    const sensorName = typeof check.sensor_name === 'string' ? check.sensor_name : undefined;
    const ruleName = typeof check.rule_name === 'string' ? check.rule_name : undefined;
    const builtIn = catalog.checkByName(name);
    if ((!sensorName || !ruleName) && !builtIn) {
      const missing = [!sensorName ? 'sensor_name' : undefined, !ruleName ? 'rule_name' : undefined].filter(Boolean).join(' and ');
      out.push({
        severity: 'error',
        code: 'custom_check_incomplete',
        summary: `custom check ${JSON.stringify(name)} names no ${missing}`,
        detail: 'A custom check runs the sensor and the rule it names (custom check definitions in checks/ are not supported yet); e.g. sensor_name: table/volume/row_count, rule_name: myrules/my_rule.',
        range: o.parsed.locate(path, true),
      });
    }
    if (sensorName) {
      const sensor = catalog.sensors.get(sensorName);
      if (!sensor || sensor.target !== target) {
        const candidates = [...catalog.sensors.values()].filter((s) => s.target === target).map((s) => s.name);
        const suggestions = didYouMean(sensorName, candidates);
        out.push({
          severity: 'error',
          code: 'unknown_sensor',
          summary: sensor
            ? `sensor ${JSON.stringify(sensorName)} is a ${sensor.target} sensor; a ${target} check needs a ${target}/… sensor`
            : `unknown sensor ${JSON.stringify(sensorName)}${suggestions.length > 0 ? `; did you mean ${suggestions.map((x) => JSON.stringify(x)).join(', ')}?` : ''}`,
          detail: 'A custom check runs a built-in sensor (custom sensors in sensors/ are not supported yet).',
          range: o.parsed.locate([...path, 'sensor_name']),
        });
      }
    }
    if (ruleName) references.push({ ruleName, path: [...path, 'rule_name'] });
  });
  ruleReferencesOfDocument.set(o, references);
}

/** Every `rule_name` of a custom check must be a built-in rule or a rule of the repository. */
function checkCustomRuleReferences(objects: readonly LoadedObject[], out: Diagnostic[]): void {
  const catalog = getCheckCatalog();
  const customRules = objects.filter((o) => o.kind === 'rule').map((o) => o.name);
  const known = new Set([...catalog.rules.keys(), ...customRules]);
  for (const o of objects) {
    for (const reference of ruleReferencesOfDocument.get(o) ?? []) {
      if (known.has(reference.ruleName)) continue;
      const suggestions = didYouMean(reference.ruleName, known);
      out.push({
        severity: 'error',
        code: 'unknown_rule',
        summary: `unknown rule ${JSON.stringify(reference.ruleName)}${suggestions.length > 0 ? `; did you mean ${suggestions.map((x) => JSON.stringify(x)).join(', ')}?` : ''}`,
        detail: 'A rule is a built-in DQOps rule (comparison/min_count) or a custom one: rules/<name>.dqorule.yaml with rules/<name>.py.',
        range: o.parsed.locate(reference.path),
      });
    }
  }
}

function checkDuplicates(objects: readonly LoadedObject[], out: Diagnostic[]): void {
  const seen = new Map<string, LoadedObject>();
  for (const o of objects) {
    const id = `${o.kind}:${o.name}`;
    const first = seen.get(id);
    if (!first) {
      seen.set(id, o);
      continue;
    }
    out.push({
      severity: 'error',
      code: 'duplicate_object',
      summary: `${o.kind} ${JSON.stringify(o.name)} is defined twice: in ${first.file} and in ${o.file}`,
      detail: 'Both file names decode to the same object name; keep one of them.',
      range: o.parsed.locate([]),
    });
  }
}

function checkTableConnection(o: LoadedObject, context: SemanticContext, out: Diagnostic[]): void {
  if (o.connection && !context.declaredConnections.has(o.connection)) {
    out.push({
      severity: 'error',
      code: 'unknown_connection',
      summary: `table ${JSON.stringify(o.name)} belongs to connection ${JSON.stringify(o.connection)}, which has no sources/${o.file.split('/')[1]}/connection.dqoconnection.yaml`,
      range: o.parsed.locate([]),
    });
  }
}

function checkLineage(o: LoadedObject, context: SemanticContext, out: Diagnostic[]): void {
  const sources = o.rawSpec.source_tables;
  if (!Array.isArray(sources)) return;
  sources.forEach((entry, index) => {
    if (!isJsonObject(entry)) return;
    const connection = entry.source_connection;
    if (typeof connection !== 'string') return;
    if (!context.declaredConnections.has(connection)) {
      out.push({
        severity: 'error',
        code: 'lineage_unknown_connection',
        summary: `lineage source connection ${JSON.stringify(connection)} does not exist in the repository`,
        range: o.parsed.locate(['spec', 'source_tables', index, 'source_connection']),
      });
      return;
    }
    const schema = entry.source_schema;
    const table = entry.source_table;
    const known = context.declaredTables.get(connection);
    if (typeof schema === 'string' && typeof table === 'string' && !known?.has(`${schema}.${table}`)) {
      out.push({
        severity: 'warning',
        code: 'lineage_unknown_table',
        summary: `lineage source table ${schema}.${table} is not among the tables of connection ${JSON.stringify(connection)} in the repository`,
        range: o.parsed.locate(['spec', 'source_tables', index, 'source_table']),
      });
    }
  });
}


function checkSecrets(o: LoadedObject, out: Diagnostic[]): void {
  for (const [block, value] of Object.entries(o.rawSpec)) {
    if (!isJsonObject(value)) continue;
    for (const [key, secret] of Object.entries(value)) {
      if (!isSecretKey(key) || typeof secret !== 'string' || secret === '' || isSecretReference(secret)) continue;
      out.push({
        severity: 'warning',
        code: 'plaintext_secret',
        summary: `${block}.${key} holds a literal secret; use a reference such as \${PG_PASSWORD} or \${credential://file}`,
        detail: 'The value is committed to git in clear text. dqctl never shows it (plans print (sensitive)), but anyone who can read the repository can.',
        // the key, not the value: the snippet under the caret must not print the secret
        range: o.parsed.locate(['spec', block, key], true),
      });
    }
  }
}

const ADDRESS_FIELDS = ['incident_opened_addresses', 'incident_acknowledged_addresses', 'incident_resolved_addresses', 'incident_muted_addresses'];

/** Every address of a notification spec and of its filtered notifications' targets is a URL or an e-mail address. */
function checkAddresses(o: LoadedObject, notification: JsonValue | undefined, path: Array<string | number>, out: Diagnostic[]): void {
  if (!isJsonObject(notification)) return;
  const checkFields = (holder: JsonObject, at: Array<string | number>) => {
    for (const field of ADDRESS_FIELDS) {
      const list = holder[field];
      if (typeof list !== 'string') continue;
      for (const address of list.split(',').map((a) => a.trim())) {
        if (address === '') continue;
        const checked = checkAddress(address);
        if (!('invalid' in checked)) continue;
        out.push({
          severity: 'error',
          code: 'invalid_address',
          summary: `${field}: ${checked.invalid}`,
          detail: 'Write comma-separated http(s) webhook URLs (generic JSON, Slack or Microsoft Teams incoming webhooks) or e-mail addresses; ${ENV_VAR} references are resolved when sending.',
          range: o.parsed.locate([...at, field]),
        });
      }
    }
  };
  checkFields(notification, path);
  const filtered = isJsonObject(notification.filtered_notifications) ? notification.filtered_notifications : {};
  for (const [name, spec] of Object.entries(filtered)) {
    if (isJsonObject(spec) && isJsonObject(spec.target)) checkFields(spec.target, [...path, 'filtered_notifications', name, 'target']);
  }
}

/** A connection's schedules (and its auto import's) must be cron expressions the scheduler can run. */
function checkCronExpressions(o: LoadedObject, out: Diagnostic[]): void {
  if (isJsonObject(o.rawSpec.schedules)) checkScheduleGroups(o, o.rawSpec.schedules, ['spec', 'schedules'], out);
  const autoImport = isJsonObject(o.rawSpec.auto_import_tables) ? o.rawSpec.auto_import_tables : {};
  if (isJsonObject(autoImport.schedule)) checkCronExpression(o, autoImport.schedule.cron_expression, ['spec', 'auto_import_tables', 'schedule', 'cron_expression'], out);
}

/** `{profiling: {cron_expression}, monitoring_daily: …}`: a connection's schedules or the default schedules. */
function checkScheduleGroups(o: LoadedObject, schedules: JsonObject, path: string[], out: Diagnostic[]): void {
  for (const [name, schedule] of Object.entries(schedules)) {
    checkCronExpression(o, isJsonObject(schedule) ? schedule.cron_expression : undefined, [...path, name, 'cron_expression'], out);
  }
}

function checkCronExpression(o: LoadedObject, expression: JsonValue | undefined, path: Array<string | number>, out: Diagnostic[]): void {
  if (typeof expression !== 'string' || expression.trim() === '') return;
  try {
    new Cron(expression.trim(), { paused: true });
  } catch (error) {
    out.push({
      // a warning, as in DQOps: the file loads; only this schedule never runs
      severity: 'warning',
      code: 'invalid_cron',
      summary: `${JSON.stringify(expression)} is not a cron expression: ${(error as Error).message.replace(/^CronPattern: /, '')}`,
      detail: 'The schedule never runs. Five fields: minute hour day-of-month month day-of-week, e.g. "0 6 * * *" for 06:00 every day.',
      range: o.parsed.locate(path),
    });
  }
}

/**
 * What is checked on every check node of a table file or a policy, in ONE walk (41,000 checks in a
 * 10,000-table repository): the order of the severity thresholds, and the cron of a `schedule_override`.
 */
function checkEachCheck(o: LoadedObject, out: Diagnostic[]): void {
  forEachCheck(o.rawSpec, ['spec'], (check, path) => {
    checkThresholdOrder(o, check, path, out);
    if (isJsonObject(check.schedule_override)) checkCronExpression(o, check.schedule_override.cron_expression, [...path, 'schedule_override', 'cron_expression'], out);
  });
}

/** Severity thresholds must tighten from fatal to warning: a warning fires first, a fatal only on big problems. */
function checkThresholdOrder(o: LoadedObject, check: JsonObject, path: Array<string | number>, out: Diagnostic[]): void {
  const warning = isJsonObject(check.warning) ? check.warning : undefined;
  const error = isJsonObject(check.error) ? check.error : undefined;
  const fatal = isJsonObject(check.fatal) ? check.fatal : undefined;
  const pairs: Array<[string, JsonObject | undefined, string, JsonObject | undefined]> = [
    ['warning', warning, 'error', error],
    ['error', error, 'fatal', fatal],
    ['warning', warning, 'fatal', fatal],
  ];
  for (const [lowName, low, highName, high] of pairs) {
    if (!low || !high) continue;
    for (const parameter of Object.keys(low)) {
      const a = low[parameter];
      const b = high[parameter];
      if (typeof a !== 'number' || typeof b !== 'number') continue;
      // warning vs fatal only when the error does not stand between them (then the pairs above report it)
      if (lowName === 'warning' && highName === 'fatal' && typeof error?.[parameter] === 'number') continue;
      const looser = parameter.startsWith('max_') ? a > b : parameter.startsWith('min_') ? a < b : false;
      if (!looser) continue;
      out.push({
        severity: 'warning',
        code: 'threshold_order',
        summary: `${path[path.length - 1]}: the ${lowName} threshold ${parameter}=${a} is looser than the ${highName} threshold ${parameter}=${b}`,
        detail: `${lowName === "warning" ? "A warning" : "An error"} should fire before ${highName === 'error' ? 'an error' : 'a fatal'}: for ${parameter} use ${parameter.startsWith('max_') ? `${lowName} <= ${highName}` : `${lowName} >= ${highName}`}.`,
        range: o.parsed.locate([...path, lowName, parameter]),
      });
    }
  }
}

function checkPartitioning(o: LoadedObject, out: Diagnostic[]): void {
  const timestamps = isJsonObject(o.rawSpec.timestamp_columns) ? o.rawSpec.timestamp_columns : {};
  if (typeof timestamps.partition_by_column === 'string' && timestamps.partition_by_column !== '') return;
  const locations: Array<Array<string | number>> = [];
  if (hasChecks(o.rawSpec.partitioned_checks)) locations.push(['spec', 'partitioned_checks']);
  const columns = isJsonObject(o.rawSpec.columns) ? o.rawSpec.columns : {};
  for (const [name, column] of Object.entries(columns)) {
    if (isJsonObject(column) && hasChecks(column.partitioned_checks)) locations.push(['spec', 'columns', name, 'partitioned_checks']);
  }
  for (const path of locations) {
    out.push({
      severity: 'warning',
      code: 'partitioned_without_partition_column',
      summary: 'partitioned checks need timestamp_columns.partition_by_column; without it they never run',
      range: o.parsed.locate(path, true),
    });
  }
}

/** A table comparison's reference connection must exist (the run would only find out at the data source). */
function checkComparisonConnections(o: LoadedObject, context: SemanticContext, out: Diagnostic[]): void {
  const defined = isJsonObject(o.rawSpec.table_comparisons) ? o.rawSpec.table_comparisons : {};
  for (const [name, comparison] of Object.entries(defined)) {
    if (!isJsonObject(comparison)) continue;
    const connection = comparison.reference_table_connection_name;
    if (typeof connection === 'string' && !context.declaredConnections.has(connection)) {
      out.push({
        severity: 'error',
        code: 'comparison_unknown_connection',
        summary: `table comparison ${JSON.stringify(name)}: the reference connection ${JSON.stringify(connection)} does not exist in the repository`,
        range: o.parsed.locate(['spec', 'table_comparisons', name, 'reference_table_connection_name']),
      });
    }
  }
}

/** The comparisons blocks of the checks must name a comparison of spec.table_comparisons. */
function checkComparisonReferences(o: LoadedObject, out: Diagnostic[]): void {
  const defined = isJsonObject(o.rawSpec.table_comparisons) ? o.rawSpec.table_comparisons : {};
  const reported = new Set<string>();
  forEachCheck(o.rawSpec, ['spec'], (_check, path) => {
    const at = path.lastIndexOf('comparisons');
    if (at < 0 || path.length !== at + 3) return;
    const name = String(path[at + 1]);
    const comparisonPath = path.slice(0, at + 2);
    const key = JSON.stringify(comparisonPath);
    if (Object.hasOwn(defined, name) || reported.has(key)) return;
    reported.add(key);
    const known = Object.keys(defined);
    out.push({
      severity: 'error',
      code: 'comparison_unknown',
      summary: `comparison checks name the table comparison ${JSON.stringify(name)}, which spec.table_comparisons does not define`,
      detail: known.length > 0 ? `Defined: ${known.map((k) => JSON.stringify(k)).join(', ')}.` : 'Define it under spec.table_comparisons with its reference table.',
      range: o.parsed.locate(comparisonPath, true),
    });
  });
}

function checkPolicyTarget(o: LoadedObject, context: SemanticContext, out: Diagnostic[]): void {
  const target = isJsonObject(o.rawSpec.target) ? o.rawSpec.target : undefined;
  if (!target) return;
  const connection = target.connection;
  if (typeof connection === 'string' && connection !== '') {
    const names = connection.split(',').map((s) => s.trim());
    if (names.every((n) => !n.includes('*') && !context.declaredConnections.has(n))) {
      out.push({
        severity: 'warning',
        code: 'policy_target_unknown_connection',
        summary:
          names.length === 1
            ? `the policy targets connection ${JSON.stringify(connection)}, which is not in the repository`
            : `the policy targets connections ${names.map((n) => JSON.stringify(n)).join(', ')}, none of which is in the repository`,
        range: o.parsed.locate(['spec', 'target', 'connection']),
      });
    }
  }
}

function hasChecks(container: JsonValue | undefined): boolean {
  return isJsonObject(container) && Object.values(container).some((v) => isJsonObject(v) && Object.keys(v).length > 0);
}

/** Visits every check node of a table or policy spec, with its path from the document root. */
export function forEachCheck(
  spec: JsonObject,
  prefix: Array<string | number>,
  visit: (check: JsonObject, path: Array<string | number>) => void,
): void {
  const visitContainer = (container: JsonValue | undefined, path: Array<string | number>, timeScaled: boolean) => {
    if (!isJsonObject(container)) return;
    const levels: Array<[JsonValue | undefined, Array<string | number>]> = timeScaled
      ? Object.entries(container).map(([scale, v]) => [v, [...path, scale]])
      : [[container, path]];
    for (const [level, levelPath] of levels) {
      if (!isJsonObject(level)) continue;
      for (const [category, checks] of Object.entries(level)) {
        if (!isJsonObject(checks)) continue;
        for (const [name, check] of Object.entries(checks)) {
          if (!isJsonObject(check)) continue;
          if (name === CUSTOM_CHECKS_KEY && category !== 'comparisons' && category !== CUSTOM_CATEGORY) {
            // a category's custom checks: one more level, the custom check's name
            for (const [customName, custom] of Object.entries(check)) {
              if (isJsonObject(custom)) visit(custom, [...levelPath, category, name, customName]);
            }
            continue;
          }
          if (category !== 'comparisons') {
            visit(check, [...levelPath, category, name]);
            continue;
          }
          // comparisons: the table comparison's name, then its checks (and a column's reference_column)
          for (const [checkName, comparisonCheck] of Object.entries(check)) {
            if (isJsonObject(comparisonCheck)) visit(comparisonCheck, [...levelPath, category, name, checkName]);
          }
        }
      }
    }
  };
  const visitChecksOf = (node: JsonObject, path: Array<string | number>) => {
    visitContainer(node.profiling_checks, [...path, 'profiling_checks'], false);
    visitContainer(node.monitoring_checks, [...path, 'monitoring_checks'], true);
    visitContainer(node.partitioned_checks, [...path, 'partitioned_checks'], true);
  };
  visitChecksOf(spec, prefix);
  if (isJsonObject(spec.columns)) {
    for (const [name, column] of Object.entries(spec.columns)) {
      if (isJsonObject(column)) visitChecksOf(column, [...prefix, 'columns', name]);
    }
  }
}
