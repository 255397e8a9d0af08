import { Cron } from 'croner';
import { didYouMean, getCheckCatalog } from '../catalog/index.js';
import { CUSTOM_CATEGORY, CUSTOM_CHECKS_KEY } from '../schema/build/checkContainerSchemas.js';
import { isSecretKey, isSecretReference } from '../diff/secrets.js';
import { appendAll, checkDefinitionName, dictionaryReference, isJsonObject, type Diagnostic, type JsonObject, type JsonValue, type ObjectKind } from '../model/index.js';
import { checkAddress } from './notificationAddresses.js';
import type { ParsedYaml } from './yamlDocument.js';

/**
 * An object whose file parsed and passed its schema, as the checks across files see it: its identity, a way to
 * locate a path in its file, and what of its document those checks need (`semantics`). The document itself is
 * not needed: a file read from the persisted parse cache has only these.
 */
export interface LoadedObject {
  kind: ObjectKind;
  name: string;
  /** For sources and tables: the decoded connection folder name. */
  connection?: string;
  file: string;
  locate: ParsedYaml['locate'];
  semantics: DocumentSemantics;
}

export interface SemanticContext {
  /** Connections that have a connection file, even one with errors (so a broken connection file does not
   *  also make every table of it "unknown"). */
  declaredConnections: ReadonlySet<string>;
  /** Tables that have a file (`conn` -> `schema.table`), even one with errors, for the same reason. */
  declaredTables: ReadonlyMap<string, ReadonlySet<string>>;
  /** The dictionaries of the repository (`name.csv`, the path under dictionaries/). */
  dictionaries: ReadonlySet<string>;
}

/**
 * What the checks need of one document, as plain data, computed once when the file is parsed
 * (`documentSemantics`): its own findings (which depend on it alone) and the names it refers to, which are
 * checked against the other files on every load (`runSemanticChecks`). The persisted parse cache keeps it beside
 * each file, so a new process checks across 100,000 files without their documents.
 */
export interface DocumentSemantics {
  findings: readonly Diagnostic[];
  customChecks: readonly CustomCheckReference[];
  dictionaryReferences: readonly DictionaryReference[];
  /** A table's lineage sources (`spec.source_tables[index]`). */
  lineage?: readonly LineageReference[];
  /** A table's comparisons and the connection of each one's reference table. */
  comparisonConnections?: ReadonlyArray<{ name: string; connection: string }>;
  /** A policy's `target.connection`, as written. */
  policyConnection?: string;
  /** A check definition's (kind check) sensor and rule, when named. */
  definition?: { sensorName?: string; ruleName?: string };
}

export interface LineageReference {
  index: number;
  connection: string;
  schema?: string;
  table?: string;
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
    appendAll(out, o.semantics.findings);
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
      case 'sensor':
      case 'check':
      case 'dictionary':
      case 'default_schedules':
      case 'default_notifications':
        break;
    }
  }
  checkCustomReferences(objects, context, out);
  return out;
}

/** A document's part of the checks (see DocumentSemantics): `rawSpec` is its spec, `locate` finds a path in its file. */
export function documentSemantics(kind: ObjectKind, rawSpec: JsonObject, locate: ParsedYaml['locate']): DocumentSemantics {
  const o = { kind, rawSpec, locate };
  const out: Diagnostic[] = [];
  const semantics: DocumentSemantics = { findings: out, customChecks: [], dictionaryReferences: [] };
  switch (kind) {
    case 'source':
      checkSecrets(o, out);
      checkCronExpressions(o, out);
      if (isJsonObject(rawSpec.incident_grouping)) checkAddresses(o, rawSpec.incident_grouping.incident_notification, ['spec', 'incident_grouping', 'incident_notification'], out);
      break;
    case 'default_notifications':
      checkAddresses(o, rawSpec, ['spec'], out);
      break;
    case 'table':
      checkEachCheck(o, out);
      Object.assign(semantics, customChecksOf(o));
      checkPartitioning(o, out);
      checkComparisonReferences(o, out);
      semantics.lineage = lineageOf(rawSpec);
      semantics.comparisonConnections = comparisonConnectionsOf(rawSpec);
      break;
    case 'default_table_checks':
    case 'default_column_checks': {
      checkEachCheck(o, out);
      Object.assign(semantics, customChecksOf(o));
      const target = isJsonObject(rawSpec.target) ? rawSpec.target : undefined;
      if (typeof target?.connection === 'string') semantics.policyConnection = target.connection;
      break;
    }
    case 'default_schedules':
      checkScheduleGroups(o, rawSpec, ['spec'], out);
      break;
    case 'check':
      semantics.definition = {
        ...(typeof rawSpec.sensor_name === 'string' ? { sensorName: rawSpec.sensor_name } : {}),
        ...(typeof rawSpec.rule_name === 'string' ? { ruleName: rawSpec.rule_name } : {}),
      };
      break;
    case 'rule':
    case 'sensor':
    case 'dictionary':
      break;
  }
  return semantics;
}

/** What the checks of one document read: its kind, its spec, and where a path lies in its file. */
interface DocumentInput {
  kind: ObjectKind;
  rawSpec: JsonObject;
  locate: ParsedYaml['locate'];
}

/**
 * A custom check of a table or policy, kept per document and resolved against the repository's sensors, rules
 * and check definitions once all files are read (checkCustomReferences).
 */
export interface CustomCheckReference {
  name: string;
  target: 'table' | 'column';
  /** The check definition it would run (checks/<definition>.dqocheck.yaml). */
  definition: string;
  sensorName?: string;
  ruleName?: string;
  path: Array<string | number>;
}

/** A `${dictionary://name.csv}` element of a list parameter. */
export interface DictionaryReference {
  dictionary: string;
  path: Array<string | number>;
}

/**
 * The custom checks of a table or policy (`custom_checks` of a category, `custom` of a container), and every
 * `${dictionary://…}` element of a check's list parameters: kept for the checks across files.
 */
function customChecksOf(o: DocumentInput): { customChecks: CustomCheckReference[]; dictionaryReferences: DictionaryReference[] } {
  const references: CustomCheckReference[] = [];
  const dictionaries: DictionaryReference[] = [];
  forEachCheck(o.rawSpec, ['spec'], (check, path) => {
    if (isJsonObject(check.parameters)) {
      for (const [parameter, value] of Object.entries(check.parameters)) {
        if (!Array.isArray(value)) continue;
        value.forEach((element, index) => {
          const dictionary = dictionaryReference(element);
          if (dictionary !== undefined) dictionaries.push({ dictionary, path: [...path, 'parameters', parameter, index] });
        });
      }
    }
    const root = path[path.length - 2] === CUSTOM_CATEGORY;
    const custom = path[path.length - 2] === CUSTOM_CHECKS_KEY || root;
    if (!custom) return;
    const name = String(path[path.length - 1]);
    const target = path.includes('columns') || o.kind === 'default_column_checks' ? 'column' : 'table';
    const containerAt = path.findIndex((p) => p === 'profiling_checks' || p === 'monitoring_checks' || p === 'partitioned_checks');
    const checkType = String(path[containerAt]).slice(0, -'_checks'.length);
    const timeScale = checkType === 'profiling' ? undefined : String(path[containerAt + 1]);
    const category = root ? CUSTOM_CATEGORY : String(path[path.length - 3]);
    references.push({
      name,
      target,
      definition: checkDefinitionName({ target, checkType, timeScale, category, name }),
      sensorName: typeof check.sensor_name === 'string' ? check.sensor_name : undefined,
      ruleName: typeof check.rule_name === 'string' ? check.rule_name : undefined,
      path,
    });
  });
  return { customChecks: references, dictionaryReferences: dictionaries };
}

function lineageOf(rawSpec: JsonObject): LineageReference[] {
  const sources = rawSpec.source_tables;
  if (!Array.isArray(sources)) return [];
  const out: LineageReference[] = [];
  sources.forEach((entry, index) => {
    if (!isJsonObject(entry) || typeof entry.source_connection !== 'string') return;
    out.push({
      index,
      connection: entry.source_connection,
      ...(typeof entry.source_schema === 'string' ? { schema: entry.source_schema } : {}),
      ...(typeof entry.source_table === 'string' ? { table: entry.source_table } : {}),
    });
  });
  return out;
}

function comparisonConnectionsOf(rawSpec: JsonObject): Array<{ name: string; connection: string }> {
  const defined = isJsonObject(rawSpec.table_comparisons) ? rawSpec.table_comparisons : {};
  const out: Array<{ name: string; connection: string }> = [];
  for (const [name, comparison] of Object.entries(defined)) {
    if (isJsonObject(comparison) && typeof comparison.reference_table_connection_name === 'string') out.push({ name, connection: comparison.reference_table_connection_name });
  }
  return out;
}

/**
 * Across files: a custom check runs the sensor and rule it names, else those of its check definition
 * (checks/<target>/<type>[/<scale>]/<category>/<name>.dqocheck.yaml) or of the built-in check of its name; the
 * sensor must be one of its target (built-in or sensors/ of the repository), the rule built-in or of rules/. A
 * check definition's own sensor_name and rule_name are checked the same way. A dictionary reference must name
 * a dictionaries/ file.
 */
function checkCustomReferences(objects: readonly LoadedObject[], context: SemanticContext, out: Diagnostic[]): void {
  const catalog = getCheckCatalog();
  const customSensors = new Set(objects.filter((o) => o.kind === 'sensor').map((o) => o.name));
  const sensors = new Set([...catalog.sensors.keys(), ...customSensors]);
  const rules = new Set([...catalog.rules.keys(), ...objects.filter((o) => o.kind === 'rule').map((o) => o.name)]);
  const definitions = new Map(objects.filter((o) => o.kind === 'check').map((o) => [o.name, o]));
  const quoted = (names: string[]) => names.map((x) => JSON.stringify(x)).join(', ');
  const sensorFinding = (o: LoadedObject, sensorName: string, target: 'table' | 'column', path: Array<string | number>): void => {
    const known = sensors.has(sensorName);
    const sensorTarget = sensorName.split('/')[0];
    if (known && sensorTarget === target) return;
    const candidates = [...sensors].filter((name) => name.startsWith(`${target}/`));
    const suggestions = didYouMean(sensorName, candidates);
    out.push({
      severity: 'error',
      code: 'unknown_sensor',
      summary: known
        ? `sensor ${JSON.stringify(sensorName)} is a ${sensorTarget} sensor; a ${target} check needs a ${target}/… sensor`
        : `unknown sensor ${JSON.stringify(sensorName)}${suggestions.length > 0 ? `; did you mean ${quoted(suggestions)}?` : ''}`,
      detail: 'A sensor is a built-in DQOps sensor (table/volume/row_count) or a custom one: sensors/<target>/<category>/<name>/sensordefinition.dqosensor.yaml.',
      range: o.locate(path),
    });
  };
  const ruleFinding = (o: LoadedObject, ruleName: string, path: Array<string | number>): void => {
    if (rules.has(ruleName)) return;
    const suggestions = didYouMean(ruleName, rules);
    out.push({
      severity: 'error',
      code: 'unknown_rule',
      summary: `unknown rule ${JSON.stringify(ruleName)}${suggestions.length > 0 ? `; did you mean ${quoted(suggestions)}?` : ''}`,
      detail: 'A rule is a built-in DQOps rule (comparison/min_count) or a custom one: rules/<name>.dqorule.yaml with rules/<name>.py.',
      range: o.locate(path),
    });
  };
  for (const o of objects) {
    if (o.kind === 'check') {
      const target = o.name.startsWith('column/') ? 'column' : 'table';
      const { sensorName, ruleName } = o.semantics.definition ?? {};
      if (sensorName !== undefined) sensorFinding(o, sensorName, target, ['spec', 'sensor_name']);
      if (ruleName !== undefined) ruleFinding(o, ruleName, ['spec', 'rule_name']);
      const missing = [sensorName !== undefined ? undefined : 'sensor_name', ruleName !== undefined ? undefined : 'rule_name'].filter(Boolean);
      if (missing.length > 0) {
        out.push({
          severity: 'error',
          code: 'custom_check_incomplete',
          summary: `check definition ${JSON.stringify(o.name)} names no ${missing.join(' and ')}`,
          detail: 'A check definition runs the sensor and the rule it names.',
          range: o.locate(['spec'], true),
        });
      }
      continue;
    }
    for (const reference of o.semantics.customChecks) {
      const definition = definitions.get(reference.definition);
      const builtIn = catalog.checkByName(reference.name);
      if ((!reference.sensorName || !reference.ruleName) && !definition && !builtIn) {
        const missing = [!reference.sensorName ? 'sensor_name' : undefined, !reference.ruleName ? 'rule_name' : undefined].filter(Boolean).join(' and ');
        const similar = didYouMean(reference.definition, [...definitions.keys()]);
        out.push({
          severity: 'error',
          code: 'custom_check_incomplete',
          summary: `custom check ${JSON.stringify(reference.name)} names no ${missing}${similar.length > 0 ? `; did you mean the check definition ${quoted(similar)}?` : ''}`,
          detail: `A custom check runs the sensor and the rule it names, else those of its check definition, here checks/${reference.definition}.dqocheck.yaml, which the repository does not have; e.g. sensor_name: table/volume/row_count, rule_name: myrules/my_rule.`,
          range: o.locate(reference.path, true),
        });
      }
      if (reference.sensorName) sensorFinding(o, reference.sensorName, reference.target, [...reference.path, 'sensor_name']);
      if (reference.ruleName) ruleFinding(o, reference.ruleName, [...reference.path, 'rule_name']);
    }
    for (const reference of o.semantics.dictionaryReferences) {
      if (context.dictionaries.has(reference.dictionary)) continue;
      const suggestions = didYouMean(reference.dictionary, context.dictionaries);
      out.push({
        severity: 'error',
        code: 'unknown_dictionary',
        summary: `unknown dictionary ${JSON.stringify(reference.dictionary)}${suggestions.length > 0 ? `; did you mean ${quoted(suggestions)}?` : ''}`,
        detail: 'A dictionary is a file dictionaries/<name>.csv of the repository, referenced as ${dictionary://<name>.csv}.',
        range: o.locate(reference.path),
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
      range: o.locate([]),
    });
  }
}

function checkTableConnection(o: LoadedObject, context: SemanticContext, out: Diagnostic[]): void {
  if (o.connection && !context.declaredConnections.has(o.connection)) {
    out.push({
      severity: 'error',
      code: 'unknown_connection',
      summary: `table ${JSON.stringify(o.name)} belongs to connection ${JSON.stringify(o.connection)}, which has no sources/${o.file.split('/')[1]}/connection.dqoconnection.yaml`,
      range: o.locate([]),
    });
  }
}

function checkLineage(o: LoadedObject, context: SemanticContext, out: Diagnostic[]): void {
  for (const { index, connection, schema, table } of o.semantics.lineage ?? []) {
    if (!context.declaredConnections.has(connection)) {
      out.push({
        severity: 'error',
        code: 'lineage_unknown_connection',
        summary: `lineage source connection ${JSON.stringify(connection)} does not exist in the repository`,
        range: o.locate(['spec', 'source_tables', index, 'source_connection']),
      });
      continue;
    }
    const known = context.declaredTables.get(connection);
    if (typeof schema === 'string' && typeof table === 'string' && !known?.has(`${schema}.${table}`)) {
      out.push({
        severity: 'warning',
        code: 'lineage_unknown_table',
        summary: `lineage source table ${schema}.${table} is not among the tables of connection ${JSON.stringify(connection)} in the repository`,
        range: o.locate(['spec', 'source_tables', index, 'source_table']),
      });
    }
  }
}


function checkSecrets(o: DocumentInput, out: Diagnostic[]): void {
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
        range: o.locate(['spec', block, key], true),
      });
    }
  }
}

const ADDRESS_FIELDS = ['incident_opened_addresses', 'incident_acknowledged_addresses', 'incident_resolved_addresses', 'incident_muted_addresses'];

/** Every address of a notification spec and of its filtered notifications' targets is a URL or an e-mail address. */
function checkAddresses(o: DocumentInput, notification: JsonValue | undefined, path: Array<string | number>, out: Diagnostic[]): void {
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
          range: o.locate([...at, field]),
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
function checkCronExpressions(o: DocumentInput, out: Diagnostic[]): void {
  if (isJsonObject(o.rawSpec.schedules)) checkScheduleGroups(o, o.rawSpec.schedules, ['spec', 'schedules'], out);
  const autoImport = isJsonObject(o.rawSpec.auto_import_tables) ? o.rawSpec.auto_import_tables : {};
  if (isJsonObject(autoImport.schedule)) checkCronExpression(o, autoImport.schedule.cron_expression, ['spec', 'auto_import_tables', 'schedule', 'cron_expression'], out);
}

/** `{profiling: {cron_expression}, monitoring_daily: …}`: a connection's schedules or the default schedules. */
function checkScheduleGroups(o: DocumentInput, schedules: JsonObject, path: string[], out: Diagnostic[]): void {
  for (const [name, schedule] of Object.entries(schedules)) {
    checkCronExpression(o, isJsonObject(schedule) ? schedule.cron_expression : undefined, [...path, name, 'cron_expression'], out);
  }
}

function checkCronExpression(o: DocumentInput, expression: JsonValue | undefined, path: Array<string | number>, out: Diagnostic[]): void {
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
      range: o.locate(path),
    });
  }
}

/**
 * What is checked on every check node of a table file or a policy, in ONE walk (41,000 checks in a
 * 10,000-table repository): the order of the severity thresholds, and the cron of a `schedule_override`.
 */
function checkEachCheck(o: DocumentInput, out: Diagnostic[]): void {
  forEachCheck(o.rawSpec, ['spec'], (check, path) => {
    checkThresholdOrder(o, check, path, out);
    if (isJsonObject(check.schedule_override)) checkCronExpression(o, check.schedule_override.cron_expression, [...path, 'schedule_override', 'cron_expression'], out);
  });
}

/** Severity thresholds must tighten from fatal to warning: a warning fires first, a fatal only on big problems. */
function checkThresholdOrder(o: DocumentInput, check: JsonObject, path: Array<string | number>, out: Diagnostic[]): void {
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
        range: o.locate([...path, lowName, parameter]),
      });
    }
  }
}

function checkPartitioning(o: DocumentInput, out: Diagnostic[]): void {
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
      range: o.locate(path, true),
    });
  }
}

/** A table comparison's reference connection must exist (the run would only find out at the data source). */
function checkComparisonConnections(o: LoadedObject, context: SemanticContext, out: Diagnostic[]): void {
  for (const { name, connection } of o.semantics.comparisonConnections ?? []) {
    if (!context.declaredConnections.has(connection)) {
      out.push({
        severity: 'error',
        code: 'comparison_unknown_connection',
        summary: `table comparison ${JSON.stringify(name)}: the reference connection ${JSON.stringify(connection)} does not exist in the repository`,
        range: o.locate(['spec', 'table_comparisons', name, 'reference_table_connection_name']),
      });
    }
  }
}

/** The comparisons blocks of the checks must name a comparison of spec.table_comparisons. */
function checkComparisonReferences(o: DocumentInput, out: Diagnostic[]): void {
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
      range: o.locate(comparisonPath, true),
    });
  });
}

function checkPolicyTarget(o: LoadedObject, context: SemanticContext, out: Diagnostic[]): void {
  const connection = o.semantics.policyConnection;
  if (connection !== undefined && connection !== '') {
    const names = connection.split(',').map((s) => s.trim());
    if (names.every((n) => !n.includes('*') && !context.declaredConnections.has(n))) {
      out.push({
        severity: 'warning',
        code: 'policy_target_unknown_connection',
        summary:
          names.length === 1
            ? `the policy targets connection ${JSON.stringify(connection)}, which is not in the repository`
            : `the policy targets connections ${names.map((n) => JSON.stringify(n)).join(', ')}, none of which is in the repository`,
        range: o.locate(['spec', 'target', 'connection']),
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
