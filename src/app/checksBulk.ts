import { CONTAINER_KEYS, didYouMean, getCheckCatalog, type CatalogCheck } from '../catalog/index.js';
import type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
import {
  DqError,
  isJsonObject,
  parseTableKey,
  RULE_SEVERITIES,
  tableKeyPrefix,
  type CheckType,
  type JsonObject,
  type JsonValue,
  type LiveObject,
  type TimeScale,
} from '../model/index.js';
import { checkSpecFromModel, type CheckModel } from '../policy/index.js';
import { validateDocument } from '../schema/index.js';

export type { CheckModel };

/**
 * Bulk activation and deactivation of ONE named check of the catalog on a connection. The check's name fixes
 * where it may live (table or column; profiling, monitoring or partitioned; daily or monthly; its category), so
 * the filters only choose the tables and columns: a filter that contradicts the check (checkType `profiling`
 * for `daily_row_count`) selects nothing. All selected tables are written in ONE transaction (all or nothing);
 * tables that would not change are not written. The CheckModel patch means what it means in the check editors
 * (policy/applyCheckContainerModel): a severity is set when `configured: true` and not disabled. Without
 * override_conflicts, a location where the check is configured already keeps its configuration; with it, the
 * patch is applied on top of that configuration (what the patch leaves out is kept).
 *
 * Filters we cannot apply (tags, qualityDimension, tableComparisonName, maxResults) are refused with 400
 * rather than ignored: ignoring a filter widens a bulk write.
 */
export interface CheckSearchFilters {
  connection?: string;
  fullTableName?: string;
  enabled?: boolean;
  tags?: string[];
  labels?: string[];
  maxResults?: number;
  column?: string;
  columnDataType?: string;
  columnNullable?: boolean;
  checkTarget?: 'table' | 'column';
  checkType?: CheckType;
  timeScale?: TimeScale;
  checkCategory?: string;
  qualityDimension?: string;
  tableComparisonName?: string;
  checkName?: string;
  sensorName?: string;
  checkConfigured?: boolean;
}

const UNSUPPORTED_FILTERS = ['tags', 'qualityDimension', 'tableComparisonName', 'maxResults'] as const;

/** `*` matches any run of characters; everything else literally; case-sensitive. */
function wildcard(pattern: string): (value: string) => boolean {
  if (!pattern.includes('*')) return (value) => value === pattern;
  const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[\\^$.|?+()[\]{}]/g, '\\$&')).join('.*')}$`, 's');
  return (value) => regex.test(value);
}

const matchesOptional = (pattern: string | undefined, value: string) => pattern === undefined || pattern === '' || wildcard(pattern)(value);

/** Does the check itself pass the check-level filters? (Filters that contradict it select nothing.) */
function checkPasses(check: CatalogCheck, filters: CheckSearchFilters): boolean {
  if (filters.checkTarget !== undefined && filters.checkTarget !== check.target) return false;
  if (filters.checkType !== undefined && filters.checkType !== check.checkType) return false;
  if (filters.timeScale !== undefined && filters.timeScale !== check.timeScale) return false;
  if (!matchesOptional(filters.checkCategory, check.category)) return false;
  if (!matchesOptional(filters.checkName, check.checkName)) return false;
  if (!matchesOptional(filters.sensorName, check.sensor)) return false;
  // column filters select columns: a table check is on no column
  if (check.target === 'table' && (filters.column || filters.columnDataType || filters.columnNullable !== undefined)) return false;
  return true;
}

/** `schema.table` filter → a test of (schema, table); without a dot, the table name in any schema. */
function tableNameFilter(fullTableName: string | undefined): (schema: string, table: string) => boolean {
  if (fullTableName === undefined || fullTableName === '') return () => true;
  const dot = fullTableName.indexOf('.');
  if (dot < 0) {
    const table = wildcard(fullTableName);
    return (_schema, name) => table(name);
  }
  const schema = wildcard(fullTableName.slice(0, dot));
  const table = wildcard(fullTableName.slice(dot + 1));
  return (s, t) => schema(s) && table(t);
}

const labelsOf = (spec: JsonValue | undefined): string[] =>
  isJsonObject(spec) && Array.isArray(spec.labels) ? spec.labels.filter((l): l is string => typeof l === 'string') : [];

/** Every label of the filter matches a label of the connection, the table or (for column checks) the column. */
function labelsPass(filters: CheckSearchFilters, labels: string[]): boolean {
  return (filters.labels ?? []).every((pattern) => labels.some(wildcard(pattern)));
}

/** The enabled filter: true (the default) selects what is not disabled, false only what is. */
function enabledPasses(filters: CheckSearchFilters, disabled: boolean): boolean {
  return (filters.enabled ?? true) ? !disabled : disabled;
}

/** The path of the check's node inside a table spec (or inside a column spec). */
function checkPath(check: CatalogCheck): string[] {
  const container = CONTAINER_KEYS[check.checkType];
  return check.timeScale === null ? [container, check.category, check.checkName] : [container, check.timeScale, check.category, check.checkName];
}

function getAt(root: JsonObject, path: readonly string[]): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const key of path) {
    if (!isJsonObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Sets (value) or removes (undefined) the node at `path`, creating the objects on the way. */
function setAt(root: JsonObject, path: readonly string[], value: JsonValue | undefined): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (!isJsonObject(node[key])) {
      if (value === undefined) return;
      node[key] = {};
    }
    node = node[key] as JsonObject;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
}

/** What to do with the check's node at one selected location: the new node, or undefined to remove it. */
type Edit = (existing: JsonValue | undefined) => JsonValue | undefined;

interface Selection {
  check: CatalogCheck;
  filters: CheckSearchFilters;
  connection: LiveObject;
}

/**
 * The table spec with `edit` applied at every selected location (the table itself for a table check, each
 * selected column for a column check), or undefined when the table is not selected or nothing changes.
 */
function editTable(table: LiveObject, selection: Selection, edit: Edit): JsonObject | undefined {
  const { check, filters, connection } = selection;
  const identity = parseTableKey(table.name);
  if (!identity || !tableNameFilter(filters.fullTableName)(identity.schema, identity.table)) return undefined;
  const tableDisabled = table.spec.disabled === true;
  const tableLabels = [...labelsOf(connection.spec), ...labelsOf(table.spec)];
  const path = checkPath(check);
  const spec = structuredClone(table.spec);
  let changed = false;
  const apply = (owner: JsonObject) => {
    const existing = getAt(owner, path);
    if (filters.checkConfigured !== undefined && filters.checkConfigured !== (existing !== undefined)) return;
    const next = edit(existing);
    if (next === existing) return;
    setAt(owner, path, next);
    changed = true;
  };

  if (check.target === 'table') {
    if (!enabledPasses(filters, tableDisabled) || !labelsPass(filters, tableLabels)) return undefined;
    apply(spec);
  } else {
    const columns = isJsonObject(spec.columns) ? spec.columns : {};
    const columnName = filters.column ? wildcard(filters.column) : () => true;
    const columnType = filters.columnDataType ? wildcard(filters.columnDataType) : () => true;
    for (const [name, column] of Object.entries(columns)) {
      if (!isJsonObject(column) || !columnName(name)) continue;
      const snapshot = isJsonObject(column.type_snapshot) ? column.type_snapshot : {};
      if (filters.columnDataType && !(typeof snapshot.column_type === 'string' && columnType(snapshot.column_type))) continue;
      if (filters.columnNullable !== undefined && snapshot.nullable !== filters.columnNullable) continue;
      if (!enabledPasses(filters, tableDisabled || column.disabled === true)) continue;
      if (!labelsPass(filters, [...tableLabels, ...labelsOf(column)])) continue;
      apply(column);
    }
  }
  return changed ? spec : undefined;
}

/** Refuses (400, located in the body) a check spec that a table file could not hold. */
function validateCheckSpec(check: CatalogCheck, checkSpec: JsonObject): void {
  const path = checkPath(check);
  const owner: JsonObject = {};
  setAt(owner, path, checkSpec);
  const spec: JsonObject = check.target === 'table' ? owner : { columns: { column: owner } };
  const violations = validateDocument('table', { apiVersion: 'dqo/v1', kind: 'table', spec });
  if (violations.length === 0) return;
  const depth = (check.target === 'table' ? 1 : 3) + path.length;
  const listed = violations.map((v) => {
    const [part, ...rest] = v.path.slice(depth).map(String);
    const where =
      part === 'parameters'
        ? '/check_model_patch/sensor_parameters'
        : (RULE_SEVERITIES as readonly string[]).includes(part)
          ? `/check_model_patch/rule/${part}/rule_parameters`
          : '/check_model_patch';
    return { path: where, message: v.summary, code: v.code, ...(rest.length > 0 ? { field: rest.join('.') } : {}), ...(v.suggestions ? { suggestions: v.suggestions } : {}) };
  });
  throw new DqError('BODY_INVALID', `the check configuration is invalid: ${listed[0].message}`, { violations: listed });
}

/** The catalog check of that name: 400 with a did-you-mean when the catalog has none. */
function catalogCheckOf(name: string): CatalogCheck {
  const catalog = getCheckCatalog();
  const check = catalog.checkByName(name);
  if (check) return check;
  const suggestions = didYouMean(name, catalog.checks.map((c) => c.checkName));
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => JSON.stringify(s)).join(' or ')}?` : '';
  throw new DqError('INVALID_ARGUMENT', `unknown check ${JSON.stringify(name)}${hint}`, suggestions.length > 0 ? { suggestions } : undefined);
}

function filtersOf(searchFilters: JsonObject | undefined, connection: string): CheckSearchFilters {
  const filters = (searchFilters ?? {}) as CheckSearchFilters;
  for (const key of UNSUPPORTED_FILTERS) {
    if (filters[key] !== undefined) {
      throw new DqError('INVALID_ARGUMENT', `check_search_filters.${key} is not supported by bulk activation; leave it out`);
    }
  }
  if (filters.connection !== undefined && filters.connection !== '' && !wildcard(filters.connection)(connection)) {
    throw new DqError('INVALID_ARGUMENT', `check_search_filters.connection ${JSON.stringify(filters.connection)} does not match the connection of the path, ${JSON.stringify(connection)}`);
  }
  return filters;
}

/** Applies `edit` at every selected location of the connection, in one transaction. Returns the tables written. */
async function bulkEdit(objects: LiveObjects, writer: WriteContext, selection: Omit<Selection, 'connection'> & { connectionName: string }, edit: Edit): Promise<number> {
  const connection = await objects.get('source', selection.connectionName);
  if (!connection) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(selection.connectionName)} not found`);
  if (!checkPasses(selection.check, selection.filters)) return 0;
  const full: Selection = { check: selection.check, filters: selection.filters, connection };
  const nameFilter = tableNameFilter(selection.filters.fullTableName);
  const keys = (await objects.list('table', tableKeyPrefix(connection.name)))
    .filter((table) => {
      const identity = parseTableKey(table.name);
      return identity !== undefined && nameFilter(identity.schema, identity.table);
    })
    .map((table) => ({ kind: table.kind, name: table.name }));
  return objects.updateMany(keys, writer, (current) => {
    const spec = editTable(current, full, edit);
    return spec ? { spec } : undefined;
  });
}

/** One check of the catalog on the selected tables or columns of one connection. */
export interface BulkCheckSelection {
  connection: string;
  checkName: string;
  /** DQOps's CheckSearchFilters as the body holds them (unchecked: refused here when they cannot be applied). */
  filters?: JsonObject;
  writer: WriteContext;
}

/**
 * Writes the check into every selected location: where it is absent, the patch's configuration; where it is
 * configured, that configuration is kept, or (overrideConflicts) the patch is applied on top of it. Returns the
 * number of tables written.
 */
export async function bulkActivateCheck(objects: LiveObjects, selection: BulkCheckSelection & { patch: CheckModel; overrideConflicts: boolean }): Promise<number> {
  const check = catalogCheckOf(selection.checkName);
  const filters = filtersOf(selection.filters, selection.connection);
  const catalog = getCheckCatalog();
  // what a location without the check gets; validated once, before anything is written
  const fresh = checkSpecFromModel(catalog, selection.patch, check, undefined);
  validateCheckSpec(check, fresh);
  return bulkEdit(objects, selection.writer, { check, filters, connectionName: selection.connection }, (existing) => {
    if (existing === undefined) return structuredClone(fresh);
    if (!selection.overrideConflicts) return existing;
    // the patch on top of the configuration there (a severity the patch leaves out is kept)
    const patched = checkSpecFromModel(catalog, selection.patch, check, isJsonObject(existing) ? existing : {});
    validateCheckSpec(check, patched);
    return patched;
  });
}

/** Removes the check from every selected location. Returns the number of tables written. */
export async function bulkDeactivateCheck(objects: LiveObjects, selection: BulkCheckSelection): Promise<number> {
  const check = catalogCheckOf(selection.checkName);
  const filters = filtersOf(selection.filters, selection.connection);
  return bulkEdit(objects, selection.writer, { check, filters, connectionName: selection.connection }, () => undefined);
}
