import { didYouMean, getCheckCatalog } from '../catalog/index.js';
import { plannedChecksOfTable } from '../jobs/checkRun/plannedChecks.js';
import { DqError, isJsonObject, type JsonObject } from '../model/index.js';
import { compileNamePattern, compilePolicies, tableRefOf, type TableRef } from '../policy/index.js';
import type { StoreReader } from '../store/store.js';

/**
 * A typo in a filter must not pass as "nothing matched" (a green CI job that checked nothing): every item of a
 * `--connection`, `--table`, `--column` or `--check` filter (comma lists, `*` wildcards) must name something the
 * live store holds, else UNKNOWN_NAME with the closest names. Names are checked against the configuration (the
 * applied connections and tables, their columns, their effective checks and the check catalog), never against
 * what happens to have results, so a correct name on a table without results yet is not refused.
 */
export interface NameFilters {
  connection?: string;
  table?: string;
  /** One pattern, or several (`collect statistics --column a --column b`). */
  column?: string | readonly string[];
  check?: string;
}

export interface FilterNameOptions {
  /** Commands that run something refuse a store where nothing was applied (NOTHING_APPLIED); reads do not. */
  requireApplied?: boolean;
}

export async function refuseUnknownFilterNames(store: StoreReader, filters: NameFilters, options: FilterNameOptions = {}): Promise<void> {
  const [connections, tableObjects] = await Promise.all([store.listSummaries({ kind: 'source' }), store.listObjects({ kind: 'table' })]);
  if (options.requireApplied && tableObjects.length === 0) {
    throw new DqError(
      'NOTHING_APPLIED',
      connections.length === 0
        ? 'the live store holds no connection and no table: nothing was applied to it. Apply a repository first: dqctl apply <dir>'
        : 'the live store holds no table: nothing to run. Add table files to the repository and apply it (or import tables: dqctl import tables)',
    );
  }
  const connectionNames = connections.map((c) => c.name);
  const connection = requireEachItem('--connection', 'connection', filters.connection, connectionNames);

  const tables = tableObjects
    .map((t) => tableRefOf(t.name, t.spec))
    .filter((t): t is TableRef => t !== undefined && (!connection || connection.matches(t.connection)));
  const table = requireEachItem('--table', 'table', filters.table, tables.map((t) => `${t.schema}.${t.table}`), connectionNote(filters));
  const selected = tables.filter((t) => !table || table.matches(`${t.schema}.${t.table}`));

  const columnFilters = typeof filters.column === 'string' ? [filters.column] : (filters.column ?? []);
  const columnNames = selected.flatMap((t) => (isJsonObject(t.spec.columns) ? Object.keys(t.spec.columns) : []));
  for (const column of columnFilters) requireEachItem('--column', 'column', column, columnNames, ' in the selected tables');

  if (filters.check !== undefined) {
    const configured = await configuredCheckNames(store, selected);
    const known = [...configured, ...getCheckCatalog().checks.map((c) => c.checkName)];
    requireEachItem('--check', 'check', filters.check, known);
  }
}

/** Each comma-separated item must match one of `names`; the error names the first that does not, with suggestions. */
/**
 * The names of a job's filters, as the jobs take them: DQOps's CheckSearchFilters (`connection`, `fullTableName`,
 * `column`, `checkName`: run checks, collect error samples) or a statistics collector's filter (`connection`,
 * `fullTableName`; columns are not checked, statistics describe the data source's columns).
 */
export function checkSearchNames(filters: JsonObject): NameFilters {
  return { connection: textOf(filters.connection), table: textOf(filters.fullTableName), column: textOf(filters.column), check: textOf(filters.checkName) };
}

export function statisticsFilterNames(filters: JsonObject): NameFilters {
  return { connection: textOf(filters.connection), table: textOf(filters.fullTableName) };
}

/** The filter's text, when it is one (the search filters are JSON). */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function requireEachItem(flag: string, what: string, filter: string | undefined, names: readonly string[], where = '') {
  const pattern = compileNamePattern(filter);
  if (!pattern || filter === undefined) return pattern;
  for (const item of filter.split(',').map((i) => i.trim()).filter((i) => i !== '')) {
    const itemPattern = compileNamePattern(item);
    if (!itemPattern || itemPattern.matchesAny(names)) continue;
    if (item.includes('*')) throw new DqError('UNKNOWN_NAME', `${flag} ${JSON.stringify(item)} matches no ${what}${where}`);
    const suggestions = didYouMean(item, new Set(names));
    throw new DqError(
      'UNKNOWN_NAME',
      `${flag}: no ${what} named ${JSON.stringify(item)}${where}` + (suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => JSON.stringify(s)).join(' or ')}?` : ''),
      { flag, name: item, suggestions },
    );
  }
  return pattern;
}

function connectionNote(filters: NameFilters): string {
  return filters.connection ? ` of connection ${JSON.stringify(filters.connection)}` : '';
}

/** The names of the checks the selected tables run: their own and their policies', on the table and its columns. */
async function configuredCheckNames(store: StoreReader, tables: readonly TableRef[]): Promise<Set<string>> {
  const [connections, tablePolicies, columnPolicies] = await Promise.all([
    store.listObjects({ kind: 'source' }),
    store.listObjects({ kind: 'default_table_checks' }),
    store.listObjects({ kind: 'default_column_checks' }),
  ]);
  const specOf = new Map<string, JsonObject>(connections.map((c) => [c.name, c.spec]));
  const policies = compilePolicies([...tablePolicies, ...columnPolicies]);
  const names = new Set<string>();
  for (const table of tables) {
    for (const enabled of [true, false]) {
      for (const check of plannedChecksOfTable(table, specOf.get(table.connection), policies, { enabled })) names.add(check.checkName);
    }
  }
  return names;
}
