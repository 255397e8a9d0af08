import { flattenFields, formatValue } from './flattenFields.js';
import { fieldOriginText, type PlanChangeDocument, type PlanDocument } from './planDocument.js';
import { environmentLine, NO_CHANGES } from './renderText.js';

/**
 * A plan as a pull-request comment: the summary and counts first, every object's details collapsible, and
 * never more than `limit` characters (GitHub refuses comments over 65,536): past the budget, details are
 * dropped and counted.
 */
export const MARKDOWN_LIMIT = 60_000;

const ICON = { create: '➕', update: '🔄', delete: '🗑️' } as const;

export function renderPlanMarkdown(plan: PlanDocument, limit = MARKDOWN_LIMIT): string {
  const head: string[] = [];
  const title =
    plan.changes.length === 0
      ? '### dqctl plan: no changes'
      : `### dqctl plan: ${plan.summary.add} to add, ${plan.summary.change} to change, ${plan.summary.destroy} to destroy`;
  head.push(title, '');
  head.push(
    `Repository \`${plan.repository.path}\`${plan.repository.commit ? ` @ \`${plan.repository.commit.slice(0, 12)}\`` : ''} → ${plan.store.engine} store, revision ${plan.store.revision}, namespace \`${plan.namespace}\``,
    '',
  );
  const environment = environmentLine(plan);
  if (environment) head.push(environment.replace(/^Environment: (\S+)/, 'Environment: `$1`'), '');
  for (const f of plan.findings) head.push(`> **${f.severity === 'error' ? 'Error' : 'Warning'}:** ${escapeInline(f.message)}`, '');
  if (plan.changes.length === 0) head.push(NO_CHANGES, '');
  if (plan.drift.length > 0) head.push(`**${plan.drift.length}** object(s) changed outside git since the last apply.`, '');

  const rows = plan.changes.map((c) => `| ${ICON[c.actions[0]]} ${c.actions[0]} | ${c.kind} | \`${escapeCell(c.name)}\` | ${escapeCell(c.reason)} |`);
  const tableHeader = ['| action | kind | name | why |', '|---|---|---|---|'];

  const sections: string[] = [];
  for (const change of plan.changes) sections.push(detailsOf(change));
  if (plan.drift.length > 0) {
    const driftLines = plan.drift.map(
      (d) =>
        `- \`${escapeCell(d.name)}\` (${d.kind}): ${d.restored ? 'apply restores the repository version' : 'kept'}; ${d.fields.length} field(s): ${d.fields
          .map((f) => `\`${escapeCell(f.path)}\`${f.origin === 'both' ? ' (changed in git too)' : ''}`)
          .join(', ')}`,
    );
    sections.push(`<details><summary>Changed outside git (${plan.drift.length})</summary>\n\n${driftLines.join('\n')}\n\n</details>\n`);
  }
  if (plan.kept.length > 0) {
    const keptLines = plan.kept.map((k) => `- \`${escapeCell(k.name)}\` (${k.kind}): ${escapeInline(k.reason)}`);
    sections.push(`<details><summary>Left alone (${plan.kept.length})</summary>\n\n${keptLines.join('\n')}\n\n</details>\n`);
  }

  const footer = `\n<sub>plan fingerprint \`${plan.fingerprint.plan.slice(0, 16)}\`</sub>\n`;
  let out = head.join('\n');
  const reserve = 400 + footer.length;
  let shownRows = 0;
  if (rows.length > 0) {
    out += '\n' + tableHeader.join('\n') + '\n';
    for (const row of rows) {
      if (out.length + row.length + 1 > limit / 2) break;
      out += row + '\n';
      shownRows++;
    }
    if (shownRows < rows.length) out += `\n…and ${rows.length - shownRows} more change(s) not listed.\n`;
    out += '\n';
  }
  let shownSections = 0;
  for (const section of sections) {
    if (out.length + section.length + reserve > limit) break;
    out += section + '\n';
    shownSections++;
  }
  if (shownSections < sections.length) {
    out += `\n_Details of ${sections.length - shownSections} more object(s) left out to stay under ${limit.toLocaleString('en-US')} characters; run \`dqctl plan --format json\` for all of them._\n`;
  }
  return out + footer;
}

function detailsOf(change: PlanChangeDocument): string {
  const action = change.actions[0];
  const lines: string[] = [];
  if (action === 'create') for (const [path, value] of flattenFields(change.after)) lines.push(`+ ${path} = ${formatValue(value)}`);
  if (action === 'update') {
    for (const f of change.fields) {
      const origin = fieldOriginText(f);
      const note = origin ? `  # ${origin}` : '';
      if (f.kept) lines.push(`  ${f.path} = ${formatValue(f.before)}${note}`);
      else if (f.before === null) lines.push(`+ ${f.path} = ${formatValue(f.after)}${note}`);
      else if (f.after === null) lines.push(`- ${f.path} = ${formatValue(f.before)}${note}`);
      else lines.push(`! ${f.path} = ${formatValue(f.before)} -> ${formatValue(f.after)}${note}`);
    }
    if (change.fields.length === 0) lines.push('# no field changes; ownership moves to the repository');
  }
  if (action === 'delete') lines.push(`- ${change.address}${change.file ? ` (was ${change.file})` : ''}`);
  const body = lines.join('\n').replace(/```/g, "'''");
  return `<details><summary>${ICON[action]} <code>${escapeHtml(change.address)}</code>: ${escapeHtml(change.reason)}</summary>\n\n\`\`\`diff\n${body}\n\`\`\`\n\n</details>\n`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/`/g, "'").replace(/\n/g, ' ');
}

function escapeInline(text: string): string {
  return text.replace(/\n/g, ' ');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
