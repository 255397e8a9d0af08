import { createColors } from 'picocolors';
import { appendAll } from '../model/index.js';
import type { NameDelta, ReachComparison } from '../policy/blastRadius.js';
import type { BlastRadiusDocument, DiffChangeDocument, DiffDocument } from './diffDocument.js';
import { flattenFields, formatValue } from './flattenFields.js';
import type { PlanFieldDocument } from './planDocument.js';
import type { TextOptions } from './renderText.js';

/**
 * `dqctl diff` for people, in the plan's conventions: `+` added, `~` changed, `-` removed, field lines
 * `old -> new`; then the blast radius of every policy change; then one summary line.
 */
type Color = 'green' | 'yellow' | 'red' | 'bold' | 'dim';

export const NO_DIFF = 'No changes: base and head hold the same objects.';

export function renderDiffText(doc: DiffDocument, options: TextOptions = { color: false }): string {
  // picocolors with colours on or off as the caller decided (io.color: NO_COLOR, FORCE_COLOR, a terminal)
  const colors = createColors(options.color);
  const c = (color: Color, text: string) => colors[color](text);
  const symbol = { added: c('green', '+'), changed: c('yellow', '~'), removed: c('red', '-') };
  const lines: string[] = [];
  lines.push(`Repository: ${doc.repository}`);
  lines.push(`Base: ${revision(doc.base)}${doc.base.valid ? '' : ` (${doc.base.error_count} validation errors)`}`);
  lines.push(`Head: ${revision(doc.head)}`);
  if (doc.environment) lines.push(`Environment: ${doc.environment} (its effective values are compared)`);
  if (doc.live) lines.push(`Live store: ${doc.live.location} (revision ${doc.live.revision})`);
  lines.push('');
  for (const w of doc.warnings) lines.push(`${c('yellow', 'Warning:')} ${w}`, '');

  for (const change of doc.changes) appendAll(lines, renderChange(change, symbol)).push('');
  if (doc.settings.length > 0) {
    lines.push(`  ${symbol.changed} settings (dqctl.yaml) {`);
    appendAll(lines, fieldLines(doc.settings, symbol)).push('    }', '');
  }

  if (doc.blast_radius.length > 0) {
    lines.push(c('bold', 'Blast radius of the policy changes (what the policy reaches before -> after):'), '');
    for (const b of doc.blast_radius) appendAll(lines, renderBlastRadius(b, symbol, doc.live !== null)).push('');
  }

  if (doc.changes.length === 0 && doc.settings.length === 0) {
    lines.push(c('green', NO_DIFF));
    return lines.join('\n') + '\n';
  }
  lines.push(c('bold', summaryLine(doc)));
  for (const change of doc.changes) lines.push(`  ${symbol[change.action]} ${change.address}`);
  return lines.join('\n') + '\n';
}

export function summaryLine(doc: DiffDocument): string {
  const s = doc.summary;
  const parts = [`${s.added} added`, `${s.changed} changed`, `${s.removed} removed`];
  const extra = [
    s.policies_changed > 0 ? `${s.policies_changed} polic${s.policies_changed === 1 ? 'y' : 'ies'} with a blast radius` : '',
    s.settings_changed ? 'dqctl.yaml changed' : '',
  ].filter((p) => p !== '');
  return `Diff: ${parts.join(', ')}${extra.length > 0 ? `; ${extra.join('; ')}` : ''}.`;
}

export function revision(side: { ref: string; commit: string | null }): string {
  return side.commit ? `${side.ref} (${side.commit.slice(0, 12)})` : side.ref;
}

function renderChange(change: DiffChangeDocument, symbol: Record<DiffChangeDocument['action'], string>): string[] {
  switch (change.action) {
    case 'added': {
      const out = [`  ${symbol.added} ${change.address} {  # ${change.file.head}`];
      for (const [path, value] of flattenFields(change.body)) out.push(`      ${symbol.added} ${path} = ${formatValue(value)}`);
      out.push('    }');
      return out;
    }
    case 'changed': {
      const moved = change.file.base !== change.file.head ? `  # ${change.file.base} -> ${change.file.head}` : `  # ${change.file.head}`;
      return [`  ${symbol.changed} ${change.address} {${moved}`, ...fieldLines(change.fields, symbol), '    }'];
    }
    case 'removed':
      return [`  ${symbol.removed} ${change.address}  # was ${change.file.base}`];
  }
}

function fieldLines(fields: PlanFieldDocument[], symbol: Record<DiffChangeDocument['action'], string>): string[] {
  return fields.map((f) => {
    if (f.before === null) return `      ${symbol.added} ${f.path} = ${formatValue(f.after)}`;
    if (f.after === null) return `      ${symbol.removed} ${f.path} = ${formatValue(f.before)} -> null`;
    return `      ${symbol.changed} ${f.path} = ${formatValue(f.before)} -> ${formatValue(f.after)}`;
  });
}

function renderBlastRadius(b: BlastRadiusDocument, symbol: Record<BlastRadiusDocument['action'], string>, withLive: boolean): string[] {
  const state = b.action === 'added' ? ' (new policy)' : b.action === 'removed' ? ' (policy removed)' : '';
  const disabled = b.disabled.after === true ? ' (disabled at head: reaches nothing)' : b.disabled.before === true ? ' (enabled by this change)' : '';
  const out = [`  ${symbol[b.action]} ${b.address}${state}${disabled}`];
  appendAll(out, reachLines('repository', b.repository));
  if (withLive && b.live) appendAll(out, reachLines('live store', b.live));
  return out;
}

/** `repository: 3 -> 7 tables, 10 -> 25 columns` and the gained and lost names. */
export function reachLines(label: string, r: ReachComparison): string[] {
  const out = [`      ${label}: ${reachCounts(r)}`];
  const names = (verb: string, what: string, d: NameDelta | null) => {
    if (!d || d.count === 0) return;
    const more = d.count > d.first.length ? ` and ${d.count - d.first.length} more` : '';
    out.push(`        ${verb} ${d.count} ${what}${d.count === 1 ? '' : 's'}: ${d.first.join(', ')}${more}`);
  };
  names('+ reaches', 'table', r.tables_gained);
  names('- no longer reaches', 'table', r.tables_lost);
  names('+ reaches', 'column', r.columns_gained);
  names('- no longer reaches', 'column', r.columns_lost);
  return out;
}

export function reachCounts(r: ReachComparison): string {
  const tables = `${r.before?.tables ?? 0} -> ${r.after?.tables ?? 0} tables`;
  const isColumn = r.columns_gained !== null;
  return isColumn ? `${tables}, ${r.before?.columns ?? 0} -> ${r.after?.columns ?? 0} columns` : tables;
}
