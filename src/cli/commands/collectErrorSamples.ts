import { EXIT } from '../exitCodes.js';
import { collectErrorSamplesInProcess } from '../../app/inProcessJobs/collectErrorSamplesInProcess.js';
import type { CollectErrorSamplesParameters, CollectErrorSamplesRun, TableSamplesOutcome } from '../../app/types.js';
import { DqError, type CheckType, type TimeScale } from '../../model/index.js';
import { checkFiltersOf, withDataSources, type DataSourceFlags } from '../dataSourceOptions.js';
import type { CliIo } from '../io.js';
import type { StoreFlags } from '../storeOptions.js';

export interface CollectErrorSamplesOptions extends StoreFlags, DataSourceFlags {
  connection?: string;
  table?: string;
  column?: string;
  checkType?: CheckType;
  timeScale?: TimeScale;
  category?: string;
  check?: string;
  limit?: string;
  withGrouping?: boolean;
  format: 'text' | 'json';
}

const MAX_LIMIT = 100_000;

/**
 * `dqctl collect error-samples [--connection C] [--table 'schema.t*'] [--column c] [--check name]`: runs the
 * collect-error-samples job in this process (the same function as POST /api/jobs/collecterrorsamples) and
 * stores the samples in the live store. A progress line on a terminal, a summary at the end; exit 1 when an
 * error sampler failed (its reason is shown; nothing is stored for it).
 */
export async function collectErrorSamplesCommand(options: CollectErrorSamplesOptions, io: CliIo): Promise<number> {
  let limit: number | undefined;
  if (options.limit !== undefined) {
    limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new DqError('INVALID_ARGUMENT', `--limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  const parameters: CollectErrorSamplesParameters = { check_search_filters: checkFiltersOf(options), data_scope: options.withGrouping ? 'data_group' : 'table' };
  const progress = io.interactive && options.format === 'text';
  const started = Date.now();
  const { run, failure } = await withDataSources(options, io, 'collect error samples', ({ store, dataSources, signal }) =>
    collectErrorSamplesInProcess(store, dataSources, parameters, {
      signal,
      limit,
      onTable: progress ? (outcome, done, total) => io.stderr(`\r\x1b[K[${done}/${total}] ${outcome.name} ${failedOf(outcome) === 0 ? 'ok' : 'FAILED'}`) : undefined,
    }),
  );
  if (progress && run.tables.length > 0) io.stderr('\r\x1b[K');
  if (options.format === 'json') io.stdout(JSON.stringify(runJson(run), null, 2) + '\n');
  else io.stdout(renderRun(run, Date.now() - started));
  if (failure !== null) {
    io.stderr(`Error: ${failure}\n`);
    return EXIT.couldNotRun;
  }
  return EXIT.ok;
}

function failedOf(outcome: TableSamplesOutcome): number {
  return outcome.samplers.filter((s) => s.error).length;
}

function runJson(run: CollectErrorSamplesRun) {
  return {
    result: run.result,
    tables: run.tables.map((t) => ({
      table: t.name,
      duration_ms: t.durationMs,
      samplers: t.samplers.map((s) => ({
        check: s.check.checkName,
        column: s.check.column,
        samples: s.samples,
        ...(s.error ? { error: { code: s.error.code, message: s.error.message } } : {}),
        ...(s.note !== undefined ? { note: s.note } : {}),
      })),
    })),
  };
}

function renderRun(run: CollectErrorSamplesRun, elapsedMs: number): string {
  if (run.tables.length === 0) return 'No check with error samples matched the filters: nothing collected.\n';
  const lines: string[] = [];
  for (const table of run.tables) {
    const failed = failedOf(table);
    const samples = table.samplers.reduce((n, s) => n + s.samples, 0);
    lines.push(`  ${failed === 0 ? 'ok    ' : 'FAILED'}  ${table.name}  ${table.samplers.length} checks, ${samples} samples${failed > 0 ? `, ${failed} failed` : ''}`);
    for (const sampler of table.samplers) {
      const where = sampler.check.column === null ? sampler.check.checkName : `${sampler.check.column}: ${sampler.check.checkName}`;
      if (sampler.error) lines.push(`      FAILED ${where}: ${sampler.error.message}`);
      else if (sampler.note !== undefined) lines.push(`      ${where}: no sampler (${sampler.note})`);
      else lines.push(`      ${where}: ${sampler.samples} sample${sampler.samples === 1 ? '' : 's'}`);
    }
  }
  const r = run.result;
  lines.push(
    '',
    `Error samples of ${run.tables.length} table${run.tables.length === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)}s: ` +
      `${r.executed_error_samplers} samplers on ${r.columns_analyzed} columns (${r.columns_successfully_analyzed} fully analyzed), ` +
      `${r.total_error_samples_collected} samples stored, ${r.total_error_samplers_failed} samplers failed.`,
  );
  return lines.join('\n') + '\n';
}
