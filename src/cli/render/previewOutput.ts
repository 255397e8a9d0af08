import type { LiveOutcome, PreviewCheck, PreviewDocument, SeverityCounts } from '../../app/preview/previewDocument.js';
import { createColors } from 'picocolors';

/**
 * `dqctl preview` as text (a terminal) and as markdown (one pull-request comment: at most 60,000 characters,
 * the checks with the largest effects first, the rest counted in one line). Both read the JSON document only.
 */
export const MARKDOWN_LIMIT = 60_000;

const ALERTS = ['warning', 'error', 'fatal'] as const;

const alertsOf = (counts: SeverityCounts): number => counts.warning + counts.error + counts.fatal;

/** How much a check's change moves its outcomes: alerts appearing or going away in the backtest, then failing now. */
function effectOf(check: PreviewCheck): number {
  const backtest = check.backtest;
  const moved = backtest ? ALERTS.reduce((sum, s) => sum + Math.abs(backtest.after[s] - backtest.before[s]), 0) : 0;
  const live = check.live?.status === 'ran' ? { valid: 0, warning: 1, error: 2, fatal: 3 }[check.live.severity ?? 'valid'] : 0;
  return moved * 10 + live;
}

export function byEffect(checks: readonly PreviewCheck[]): PreviewCheck[] {
  return checks
    .map((check, index) => ({ check, index, effect: effectOf(check) }))
    .sort((a, b) => b.effect - a.effect || a.index - b.index)
    .map((entry) => entry.check);
}

/** Live severity error or fatal: what `--detailed-exitcode` exits 2 for. */
export function wouldFailNow(check: PreviewCheck): boolean {
  return check.live?.status === 'ran' && (check.live.severity === 'error' || check.live.severity === 'fatal');
}

function targetOf(check: PreviewCheck): string {
  return `${check.connection}.${check.schema}.${check.table}${check.column === null ? '' : `.${check.column}`}`;
}

function kindOf(check: PreviewCheck): string {
  return check.time_scale ? `${check.check_type} ${check.time_scale}` : check.check_type;
}

function backtestText(check: PreviewCheck, days: number): string {
  const backtest = check.backtest;
  if (check.backtest_error) return `not backtested: ${check.backtest_error}`;
  if (!backtest) return `no history in the last ${days} days`;
  const moves = ALERTS.filter((s) => backtest.before[s] !== 0 || backtest.after[s] !== 0).map((s) => `${s} ${backtest.before[s]} → ${backtest.after[s]}`);
  const before = alertsOf(backtest.before);
  const after = alertsOf(backtest.after);
  const plural = (n: number) => `${n} alert${n === 1 ? '' : 's'}`;
  return `${backtest.readouts} readout${backtest.readouts === 1 ? '' : 's'}: ${before === after ? `${plural(after)}, no change` : `${plural(before)} → ${plural(after)}`}${moves.length > 0 ? ` (${moves.join(', ')})` : ''}`;
}

function liveText(live: LiveOutcome | null): string {
  if (!live) return 'not run';
  if (live.status === 'not_run') return `not run: ${live.reason ?? 'unknown reason'}`;
  const value = live.actual_value === null ? 'no value' : formatNumber(live.actual_value);
  const expected = live.expected_value === null ? '' : `, expected ${formatNumber(live.expected_value)}`;
  const partitions = live.partitions
    ? `; partitions: ${(['valid', 'warning', 'error', 'fatal'] as const).filter((s) => live.partitions![s] > 0).map((s) => `${live.partitions![s]} ${s}`).join(', ') || 'none'}`
    : '';
  return `${live.severity ?? 'no verdict'}: ${value}${expected}${partitions}`;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
}

interface Totals {
  added: number;
  modified: number;
  before: number;
  after: number;
  noHistory: number;
  /** Checks whose backtest failed (the rule raised, could not load, may not run). */
  notBacktested: number;
  failing: number;
  notRun: number;
}

function totalsOf(doc: PreviewDocument): Totals {
  const totals: Totals = { added: 0, modified: 0, before: 0, after: 0, noHistory: 0, notBacktested: 0, failing: 0, notRun: 0 };
  for (const check of doc.checks) {
    totals[check.change]++;
    if (check.backtest) {
      totals.before += alertsOf(check.backtest.before);
      totals.after += alertsOf(check.backtest.after);
    } else if (check.backtest_error) totals.notBacktested++;
    else totals.noHistory++;
    if (wouldFailNow(check)) totals.failing++;
    if (check.live?.status !== 'ran') totals.notRun++;
  }
  return totals;
}

function summaryLine(doc: PreviewDocument, totals: Totals): string {
  const n = doc.checks.length;
  return (
    `${n} check${n === 1 ? '' : 's'} changed (${totals.added} added, ${totals.modified} modified); ` +
    `backtest of ${doc.days} days: ${totals.before} → ${totals.after} alerts${backtestGaps(totals)}; ` +
    `live: ${totals.failing} would fail now${totals.notRun > 0 ? `, ${totals.notRun} not run` : ''}`
  );
}

function backtestGaps(totals: Totals): string {
  const gaps = [
    ...(totals.noHistory > 0 ? [`${totals.noHistory} without history`] : []),
    ...(totals.notBacktested > 0 ? [`${totals.notBacktested} not backtested`] : []),
  ];
  return gaps.length > 0 ? ` (${gaps.join(', ')})` : '';
}

export function renderPreviewText(doc: PreviewDocument, options: { color: boolean }): string {
  const c = createColors(options.color);
  const lines = [`Preview of ${doc.base.slice(0, 12)}..${doc.head.slice(0, 12)}`, ''];
  if (doc.checks.length === 0) lines.push('The change adds or modifies no check.');
  for (const check of byEffect(doc.checks)) {
    const mark = check.change === 'added' ? c.green('+') : c.yellow('~');
    lines.push(`  ${mark} ${c.bold(targetOf(check))}  ${check.check_name} (${kindOf(check)}, ${check.change}; ${check.source})`);
    lines.push(`      backtest: ${backtestText(check, doc.days)}`);
    const live = liveText(check.live);
    lines.push(`      live:     ${wouldFailNow(check) ? c.red(live) : live}`);
  }
  for (const warning of doc.warnings) lines.push('', `Warning: ${warning}`);
  lines.push('', summaryLine(doc, totalsOf(doc)), '');
  return lines.join('\n');
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;

export function renderPreviewMarkdown(doc: PreviewDocument): string {
  const totals = totalsOf(doc);
  const head = [
    `### dqctl preview: ${summaryLine(doc, totals)}`,
    '',
    `base ${code(doc.base.slice(0, 12))} → head ${code(doc.head.slice(0, 12))}; the backtest judges the stored readouts of the last ${doc.days} days with the head's settings, the live run queries the data now and stores nothing.`,
  ];
  if (doc.checks.length === 0) return [...head, '', '_The change adds or modifies no check._', ''].join('\n');
  const warnings = doc.warnings.map((w) => `> ${cell(w)}`);
  const table = ['| check | on | change | backtest | live now |', '|---|---|---|---|---|'];
  const sorted = byEffect(doc.checks);
  let length = [...head, ...warnings, ...table].join('\n').length + 500;
  let shown = 0;
  for (const check of sorted) {
    const row = `| ${code(check.check_name)} (${kindOf(check)}) | ${code(targetOf(check))} | ${check.change}<br><sub>${cell(check.source)}</sub> | ${cell(backtestText(check, doc.days))} | ${wouldFailNow(check) ? '**' : ''}${cell(liveText(check.live))}${wouldFailNow(check) ? '**' : ''} |`;
    if (length + row.length + 1 > MARKDOWN_LIMIT) break;
    table.push(row);
    length += row.length + 1;
    shown++;
  }
  const rest = sorted.slice(shown);
  const out = [...head, ''];
  if (warnings.length > 0) out.push(...warnings, '');
  out.push(...table);
  if (rest.length > 0) {
    const moved = rest.filter((check) => effectOf(check) > 0).length;
    out.push(
      '',
      `_… and ${rest.length} more check${rest.length === 1 ? '' : 's'} (${moved} with an effect, ${rest.filter((c) => !c.backtest && !c.backtest_error).length} without history) that do not fit in one comment; run \`dqctl preview\` for all of them._`,
    );
  }
  out.push('');
  return out.join('\n');
}
