import { getCheckCatalog } from '../../catalog/index.js';
import type { DataSources } from '../../datasource/index.js';
import type { LiveObjects } from '../../inspect/liveObjects.js';
import { liveCheckDefinitions, withCheckRules, type CheckDefinitions, type CheckRules } from '../../jobs/checkRun/checkRules.js';
import { catalogCheckOf, checkHashOf, type PlannedCheck } from '../../jobs/checkRun/plannedChecks.js';
import type { PythonRuleRunner, PythonRuleRunnerOptions } from '../../pythonrules/index.js';
import { tableKey, type JsonObject } from '../../model/index.js';
import { dataGroupingLevelsOf } from '../../policy/index.js';
import type { Store } from '../../store/store.js';
import { backtestChecks, type BacktestItem } from './backtest.js';
import { notRun, runLive } from './liveRun.js';
import type { LiveOutcome, PreviewCheck, PreviewOutcome } from './previewDocument.js';
import type { PreviewRequest, PreviewRequestCheck, PreviewTable } from './previewRequest.js';

/**
 * Evaluates a PreviewRequest against a store (the backtest) and the data sources (the live run): the same code
 * for `dqctl preview` on its own store and for a server answering POST /api/gitops/preview with its own. Reads
 * only: nothing is written to the store, and the data sources are queried read-only.
 *
 * The rules judge as in `run checks` (jobs/checkRun/checkRules: a custom rule replaces a built-in one of the
 * same path), with the custom rules, sensors and dictionaries the request carries (the head revision's: the
 * changed `.py` is what judges), else the store's. The Python workers start only when a check needs a custom
 * rule or sensor, and end with the preview.
 */
export interface PreviewContext {
  store: Pick<Store, 'backtestReadouts' | 'checkResults'>;
  /** The connections' specs, as the live store holds them (references to secrets unresolved). */
  connectionSpec(connection: string): JsonObject | undefined;
  /** The pools of the data sources; absent: nothing runs live. */
  dataSources?: DataSources;
  now: Date;
  signal: AbortSignal;
  /** Why no check may run live here (e.g. the caller's role); every live outcome is then `not_run` with it. */
  liveRefused?: string;
  /** The live objects of this store, whose custom rules, sensors and dictionaries judge when the request carries none. */
  objects?: Pick<LiveObjects, 'list'>;
  /**
   * Set when this caller may not run code of its own here (a server's viewer or operator): a rule of the request
   * whose Python differs from the store's rule of that name does not run; its checks get this reason.
   */
  storedCodeOnly?: string;
  /** A Python runner to use (kept open); else one of the preview's own, started when needed and closed after. */
  python?: PythonRuleRunner;
  pythonOptions?: PythonRuleRunnerOptions;
}

/** Tables run live at once (each on its own data source's pool). */
const TABLES_AT_ONCE = 4;

export async function previewChecks(request: PreviewRequest, context: PreviewContext): Promise<PreviewOutcome> {
  const warnings: string[] = [];
  const catalog = getCheckCatalog();
  const entries: Array<{ table: PreviewTable; check: PreviewRequestCheck; planned: PlannedCheck | undefined }> = [];
  for (const table of request.tables) {
    const ref = { connection: table.connection, schema: table.schema, table: table.table, spec: table.spec };
    const grouping = dataGroupingLevelsOf(table.spec, context.connectionSpec(table.connection));
    for (const check of table.checks) {
      const known =
        check.comparison === null
          ? catalogCheckOf(
              check.check_name,
              { ...check.spec, ...(check.sensor_name ? { sensor_name: check.sensor_name } : {}), ...(check.rule_name ? { rule_name: check.rule_name } : {}) },
              { target: check.column === null ? 'table' : 'column', checkType: check.check_type, timeScale: check.time_scale, category: check.category },
            )
          : catalog.checkByName(check.check_name);
      if (!known) warnings.push(`${tableKey(ref)}: unknown check ${check.check_name}; it is listed without backtest or live run`);
      const hashName = check.comparison === null ? check.check_name : `comparisons/${check.comparison}/${check.check_name}`;
      const planned: PlannedCheck | undefined = known && {
        table: ref,
        column: check.column,
        checkType: check.check_type,
        timeScale: check.time_scale,
        category: check.category,
        checkName: check.check_name,
        catalog: known,
        spec: check.spec,
        checkHash: checkHashOf(tableKey(ref), check.column, check.check_type, check.time_scale, hashName),
        grouping,
        ...(check.comparison === null ? {} : { comparison: { name: check.comparison, referenceColumn: check.column } }),
      };
      entries.push({ table, check, planned });
    }
  }

  const items: BacktestItem[] = [];
  const itemOf = new Map<number, number>();
  entries.forEach((entry, index) => {
    if (!entry.planned) return;
    itemOf.set(index, items.length);
    items.push({ check: entry.planned, historyCheckName: entry.check.history_check_name });
  });
  const definitions = await definitionsOf(request, context);
  const python = { ...(context.python ? { python: context.python } : {}), ...(context.pythonOptions ? { pythonOptions: context.pythonOptions } : {}) };
  const { backtests, live } = await withCheckRules(definitions.objects, python, async (loaded) => {
    const rules = withRefusedRules(loaded, definitions.refused);
    const backtests = await backtestChecks(items, { store: context.store, now: context.now, days: request.days, rules });
    const live = await liveOutcomes(request, entries, context, warnings, rules);
    return { backtests, live };
  });
  const checks: PreviewCheck[] = entries.map((entry, index) => ({
    connection: entry.table.connection,
    schema: entry.table.schema,
    table: entry.table.table,
    column: entry.check.column,
    check_type: entry.check.check_type,
    time_scale: entry.check.time_scale,
    check_name: entry.check.check_name,
    change: entry.check.change,
    source: entry.check.source,
    backtest: itemOf.has(index) ? backtests[itemOf.get(index)!].backtest : null,
    backtest_error: (itemOf.has(index) ? backtests[itemOf.get(index)!].error : undefined) ?? null,
    live: live[index],
  }));
  return { checks, warnings };
}

async function liveOutcomes(
  request: PreviewRequest,
  entries: ReadonlyArray<{ table: PreviewTable; check: PreviewRequestCheck; planned: PlannedCheck | undefined }>,
  context: PreviewContext,
  warnings: string[],
  rules: CheckRules,
): Promise<LiveOutcome[]> {
  const outcomes: LiveOutcome[] = entries.map(() => notRun('live runs were not asked for (--no-live)'));
  if (!request.live) return outcomes;
  const dataSources = context.dataSources;
  if (context.liveRefused || !dataSources) return entries.map(() => notRun(context.liveRefused ?? 'no data sources here'));

  // by table, in the request's order; the first `live_limit` tables run
  const byTable = new Map<PreviewTable, number[]>();
  entries.forEach((entry, index) => {
    const list = byTable.get(entry.table) ?? [];
    list.push(index);
    byTable.set(entry.table, list);
  });
  const tables = [...byTable.entries()];
  const limit = Math.max(0, request.live_limit);
  if (tables.length > limit) {
    warnings.push(`live checks ran on ${limit} of ${tables.length} tables (--live-limit ${limit}); the checks of the others are not run`);
    for (const [, indexes] of tables.slice(limit)) {
      for (const index of indexes) outcomes[index] = notRun(`beyond the live limit of ${limit} table${limit === 1 ? '' : 's'} (--live-limit)`);
    }
  }
  const work = tables.slice(0, limit);
  let next = 0;
  const worker = async () => {
    while (next < work.length) {
      context.signal.throwIfAborted();
      const [table, indexes] = work[next++];
      const spec = context.connectionSpec(table.connection);
      const runnable: PlannedCheck[] = [];
      for (const index of indexes) {
        const planned = entries[index].planned;
        if (!planned) outcomes[index] = notRun('unknown check');
        else if (!spec) outcomes[index] = notRun(`connection ${JSON.stringify(table.connection)} does not exist`);
        else if (planned.comparison) outcomes[index] = notRun('table comparisons are not run live by a preview');
        else runnable.push(planned);
      }
      if (!spec || runnable.length === 0) continue;
      const dataSource = dataSources.get(table.connection, spec);
      // a rule that looks back reads the same readouts as the backtest: for a new check, those of the check that stands for it
      const historyNames = new Map<string, string>();
      for (const index of indexes) {
        const { check } = entries[index];
        if (check.history_check_name !== null) historyNames.set(historyKey(check.column, check.check_type, check.check_name), check.history_check_name);
      }
      const store: Pick<Store, 'checkResults'> = {
        checkResults: (filter) =>
          context.store.checkResults({
            ...filter,
            checkName: filter.checkName && (historyNames.get(historyKey(filter.columnName ?? null, filter.checkType, filter.checkName)) ?? filter.checkName),
          }),
      };
      const byHash = await runLive(runnable, { store, dataSource, signal: context.signal, now: context.now, rules });
      for (const index of indexes) {
        const planned = entries[index].planned;
        const outcome = planned && byHash.get(planned.checkHash);
        if (outcome) outcomes[index] = outcome;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(TABLES_AT_ONCE, work.length) }, worker));
  return outcomes;
}

const historyKey = (column: string | null, checkType: string | undefined, checkName: string): string => JSON.stringify([column, checkType ?? null, checkName]);

const NO_DEFINITIONS: CheckDefinitions = { rules: [], sensors: [], dictionaries: [] };

/**
 * The custom definitions that judge: the request's (the head revision's), else the store's. With
 * `storedCodeOnly`, the request's rules whose Python is not the store's are named in `refused`.
 */
async function definitionsOf(request: PreviewRequest, context: PreviewContext): Promise<{ objects: CheckDefinitions; refused: Map<string, string> }> {
  const refused = new Map<string, string>();
  const stored = () => (context.objects ? liveCheckDefinitions(context.objects) : Promise.resolve(NO_DEFINITIONS));
  if (!request.definitions) return { objects: await stored(), refused };
  if (context.storedCodeOnly !== undefined && request.definitions.rules.length > 0) {
    const storedCode = new Map((await stored()).rules.map((rule) => [rule.name, rule.attachments.python_module]));
    for (const rule of request.definitions.rules) {
      if (storedCode.get(rule.name) !== rule.attachments.python_module) refused.set(rule.name, context.storedCodeOnly);
    }
  }
  return { objects: request.definitions, refused };
}

function withRefusedRules(rules: CheckRules, refused: ReadonlyMap<string, string>): CheckRules {
  if (refused.size === 0) return rules;
  const custom = new Map(rules.custom);
  for (const [name, reason] of refused) {
    const rule = custom.get(name);
    if (rule) custom.set(name, { ...rule, unavailable: reason });
  }
  return { ...rules, custom };
}
