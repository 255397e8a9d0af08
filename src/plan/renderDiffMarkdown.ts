import { appendAll } from '../model/index.js';
import type { Diagnostic } from '../model/index.js';
import type { NameDelta, ReachComparison } from '../policy/blastRadius.js';
import type { BlastRadiusDocument, DiffChangeDocument, DiffDocument } from './diffDocument.js';
import { flattenFields, formatValue } from './flattenFields.js';
import { MARKDOWN_LIMIT } from './renderMarkdown.js';
import { NO_DIFF, revision } from './renderDiffText.js';

/**
 * `dqctl diff` as a pull-request comment, as the plan's markdown is built: the summary and the blast radius
 * of policy changes first, the list of changed objects next, every object's fields in a collapsible block,
 * and never more than `limit` characters (GitHub refuses comments over 65,536): what does not fit is counted.
 */
const ICON = { added: '➕', changed: '🔄', removed: '🗑️' } as const;

export function renderDiffMarkdown(doc: DiffDocument, limit = MARKDOWN_LIMIT): string {
  const s = doc.summary;
  const empty = doc.changes.length === 0 && doc.settings.length === 0;
  const head: string[] = [
    (empty ? '### dqctl diff: no changes' : `### dqctl diff: ${s.added} added, ${s.changed} changed, ${s.removed} removed`) +
      (doc.environment ? ` (environment \`${escapeCode(doc.environment)}\`)` : ''),
    '',
    `\`${escapeCode(revision(doc.base))}\` → \`${escapeCode(revision(doc.head))}\`${doc.live ? `; blast radius also counted on the ${doc.live.engine} store (revision ${doc.live.revision})` : ''}`,
    '',
  ];
  for (const w of doc.warnings) head.push(`> **Warning:** ${escapeInline(w)}`, '');
  if (empty) head.push(NO_DIFF, '');
  if (doc.settings.length > 0) head.push(`**dqctl.yaml changed:** ${doc.settings.map((f) => `\`${escapeCode(f.path)}\``).join(', ')}`, '');

  const footer = `\n<sub>dqctl diff, format ${doc.format_version}</sub>\n`;
  const reserve = 400 + footer.length;
  let out = head.join('\n');

  // 1. Blast radius: the one thing a reviewer cannot see in the file diff. Up to a third of the budget.
  if (doc.blast_radius.length > 0) {
    const withLive = doc.live !== null;
    out += `\n**Blast radius of ${doc.blast_radius.length} policy change${doc.blast_radius.length === 1 ? '' : 's'}** (what the policy reaches, before → after)\n\n`;
    out += `| policy | change | repository | reaches now | no longer reaches |${withLive ? ' live store |' : ''}\n`;
    out += `|---|---|---|---|---|${withLive ? '---|' : ''}\n`;
    let shown = 0;
    for (const b of doc.blast_radius) {
      const row = blastRadiusRow(b, withLive);
      if (out.length + row.length + 1 > limit / 3) break;
      out += row + '\n';
      shown++;
    }
    if (shown < doc.blast_radius.length) out += `\n…and ${doc.blast_radius.length - shown} more policy change(s) not listed.\n`;
    out += '\n';
  }

  // 2. One row per changed object, up to half of the budget.
  if (doc.changes.length > 0) {
    out += '| change | kind | name | file |\n|---|---|---|---|\n';
    let shown = 0;
    for (const c of doc.changes) {
      const file = c.file.head ?? c.file.base;
      const row = `| ${ICON[c.action]} ${c.action} | ${c.kind} | \`${escapeCell(c.name)}\` | ${file ? `\`${escapeCell(file)}\`` : ''} |`;
      if (out.length + row.length + 1 > limit / 2) break;
      out += row + '\n';
      shown++;
    }
    if (shown < doc.changes.length) out += `\n…and ${doc.changes.length - shown} more change(s) not listed.\n`;
    out += '\n';
  }

  // 3. Details, collapsible, while they fit (one too big to fit is skipped, the smaller ones after it still shown).
  const sections: string[] = [];
  if (doc.settings.length > 0) sections.push(details('🔄 <code>dqctl.yaml</code>', doc.settings.map(fieldLine)));
  for (const c of doc.changes) sections.push(detailsOf(c));
  let shownSections = 0;
  for (const section of sections) {
    if (out.length + section.length + reserve > limit) continue;
    out += section + '\n';
    shownSections++;
  }
  if (shownSections < sections.length) {
    out += `\n_Details of ${sections.length - shownSections} more object(s) left out to stay under ${limit.toLocaleString('en-US')} characters; run \`dqctl diff --format json\` for all of them._\n`;
  }
  return out + footer;
}

/**
 * The comment for a head that does not validate: the errors (file:line:col, code, summary) instead of a
 * diff, within the same size limit.
 */
export function renderInvalidHeadMarkdown(ref: string, diagnostics: readonly Diagnostic[], limit = MARKDOWN_LIMIT): string {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  let out = `### dqctl diff: \`${escapeCode(ref)}\` does not validate (${errors.length} error${errors.length === 1 ? '' : 's'})\n\nNothing can be planned from it. Fix these files:\n\n`;
  const reserve = 300;
  let shown = 0;
  for (const d of errors) {
    const where = d.range ? `\`${escapeCode(`${d.range.filename}:${d.range.start.line}:${d.range.start.column}`)}\` ` : '';
    const line = `- ${where}**${d.code}**: ${escapeInline(d.summary)}\n`;
    if (out.length + line.length + reserve > limit) break;
    out += line;
    shown++;
  }
  if (shown < errors.length) out += `\n…and ${errors.length - shown} more error(s); run \`dqctl validate\` for all of them.\n`;
  return out;
}

function blastRadiusRow(b: BlastRadiusDocument, withLive: boolean): string {
  const kind = b.kind === 'default_table_checks' ? 'table policy' : 'column policy';
  const state = b.disabled.after === true ? ' (disabled)' : b.action === 'added' ? ' (new)' : b.action === 'removed' ? ' (removed)' : '';
  const cells = [
    `\`${escapeCell(b.name)}\` ${kind}`,
    `${ICON[b.action]} ${b.action}${state}`,
    counts(b.repository),
    names(b.repository.tables_gained, b.repository.columns_gained),
    names(b.repository.tables_lost, b.repository.columns_lost),
  ];
  if (withLive) cells.push(b.live ? counts(b.live) : '');
  return `| ${cells.join(' | ')} |`;
}

function counts(r: ReachComparison): string {
  const tables = `${r.before?.tables ?? 0} → **${r.after?.tables ?? 0}** tables`;
  return r.columns_gained !== null ? `${tables}, ${r.before?.columns ?? 0} → **${r.after?.columns ?? 0}** columns` : tables;
}

function names(tables: NameDelta, columns: NameDelta | null): string {
  const part = (d: NameDelta, what: string) => {
    const more = d.count > d.first.length ? ` +${d.count - d.first.length} more` : '';
    return `${d.count} ${what}${d.count === 1 ? '' : 's'}: ${d.first.map((n) => `\`${escapeCell(n)}\``).join(', ')}${more}`;
  };
  const parts: string[] = [];
  if (tables.count > 0) parts.push(part(tables, 'table'));
  if (columns && columns.count > 0) parts.push(part(columns, 'column'));
  return parts.length > 0 ? parts.join('<br>') : '–';
}

function detailsOf(change: DiffChangeDocument): string {
  const lines: string[] = [];
  if (change.action === 'added') for (const [path, value] of flattenFields(change.body)) lines.push(`+ ${path} = ${formatValue(value)}`);
  if (change.action === 'changed') appendAll(lines, change.fields.map(fieldLine));
  if (change.action === 'removed') lines.push(`- ${change.address} (was ${change.file.base})`);
  const what = change.action === 'changed' ? `${change.fields.length} field${change.fields.length === 1 ? '' : 's'}` : change.action;
  return details(`${ICON[change.action]} <code>${escapeHtml(change.address)}</code>: ${what}`, lines);
}

function fieldLine(f: { path: string; before: unknown; after: unknown }): string {
  const before = f.before as Parameters<typeof formatValue>[0];
  const after = f.after as Parameters<typeof formatValue>[0];
  if (before === null) return `+ ${f.path} = ${formatValue(after)}`;
  if (after === null) return `- ${f.path} = ${formatValue(before)}`;
  return `! ${f.path} = ${formatValue(before)} -> ${formatValue(after)}`;
}

function details(summary: string, lines: string[]): string {
  const body = lines.join('\n').replace(/```/g, "'''");
  return `<details><summary>${summary}</summary>\n\n\`\`\`diff\n${body}\n\`\`\`\n\n</details>\n`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/`/g, "'").replace(/\n/g, ' ');
}

function escapeCode(text: string): string {
  return text.replace(/`/g, "'");
}

function escapeInline(text: string): string {
  return text.replace(/\n/g, ' ');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
