import { createColors } from 'picocolors';
import { appendAll } from '../model/index.js';
import { fieldOriginText, type PlanChangeDocument, type PlanDocument, type PlanFieldDocument } from './planDocument.js';
import { flattenFields, formatValue } from './flattenFields.js';

/**
 * Terraform's conventions: `+` create, `~` update, `-` destroy, a `# … will be …` line with the reason, field
 * lines `old -> new`, then `Plan: X to add, Y to change, Z to destroy.` and the objects affected.
 */
export interface TextOptions {
  color: boolean;
}

type Color = 'green' | 'yellow' | 'red' | 'bold' | 'dim';

export const NO_CHANGES = 'No changes. The live state matches the repository.';

export function renderPlanText(plan: PlanDocument, options: TextOptions = { color: false }): string {
  return [...planTextChunks(plan, options)].join('');
}

/** Lines a plan's text holds before they are handed on: a plan of 100,000 creates is millions of lines. */
const LINES_PER_CHUNK = 2_000;

/**
 * renderPlanText in pieces (their concatenation is its text), each change's lines built as it is reached: a plan of
 * every object of a large repository is printed without its whole text (or every create's spec) in memory at once.
 */
export function* planTextChunks(plan: PlanDocument, options: TextOptions = { color: false }): Generator<string> {
  // picocolors with colours on or off as the caller decided (io.color: NO_COLOR, FORCE_COLOR, a terminal)
  const colors = createColors(options.color);
  const c = (color: Color, text: string) => colors[color](text);
  const lines: string[] = [];
  const symbol = { create: c('green', '+'), update: c('yellow', '~'), delete: c('red', '-') };
  const verb = { create: 'will be created', update: 'will be updated in-place', delete: 'will be destroyed' };

  lines.push(`Repository: ${plan.repository.path}${plan.repository.commit ? ` @ ${plan.repository.commit.slice(0, 12)}` : ''}`);
  lines.push(`Live store: ${plan.store.location} (revision ${plan.store.revision}), namespace ${plan.namespace}`);
  const environment = environmentLine(plan);
  if (environment) lines.push(environment);
  lines.push('');
  // an environment switch is said first: every change below may come from it
  const switching = plan.findings.filter((f) => f.code === 'ENVIRONMENT_SWITCH');
  for (const f of switching) lines.push(c('yellow', 'Warning:') + ' ' + f.message, '');

  if (plan.changes.length > 0) {
    lines.push('dqctl will perform the following actions:');
    lines.push('');
    for (const change of plan.changes) {
      appendAll(lines, renderChange(change, symbol, verb, c)).push('');
      if (lines.length >= LINES_PER_CHUNK) yield flush();
    }
  }

  if (plan.drift.length > 0) {
    lines.push(c('bold', 'Objects changed outside git since the last apply:'));
    lines.push('');
    for (const d of plan.drift) {
      lines.push(`  ${symbol.update} ${d.address}: changed through the API; ${d.restored ? 'apply restores the repository version' : 'kept as it is (--keep-drift)'}`);
      for (const f of d.fields) {
        // drift fields go from the repository's value (before) to the live one (after)
        const conflict = f.origin === 'both' ? '  # changed in git too: apply writes the repository value' : '';
        lines.push(`      ${f.path}: ${formatValue(f.after)} (live) vs ${formatValue(f.before)} (repository)${conflict}`);
      }
    }
    lines.push('');
  }

  if (plan.kept.length > 0) {
    lines.push(c('bold', 'Left alone:'));
    for (const k of plan.kept) lines.push(`  ${k.address}: ${k.reason}`);
    lines.push('');
  }

  const findings = plan.findings.filter((f) => f.code !== 'ENVIRONMENT_SWITCH');
  for (const f of findings) {
    lines.push(`${f.severity === 'error' ? c('red', 'Error:') : c('yellow', 'Warning:')} ${f.message}`);
  }
  if (findings.length > 0) lines.push('');

  if (plan.changes.length === 0) {
    lines.push(c('green', NO_CHANGES));
    yield flush();
    return;
  }
  lines.push(c('bold', `Plan: ${plan.summary.add} to add, ${plan.summary.change} to change, ${plan.summary.destroy} to destroy.`));
  for (const change of plan.changes) {
    lines.push(`  ${symbol[change.actions[0]]} ${change.address}`);
    if (lines.length >= LINES_PER_CHUNK) yield flush();
  }
  if (lines.length > 0) yield flush();

  /** The lines so far as text (each ends with a newline: the pieces concatenate to lines.join('\n') + '\n'). */
  function flush(): string {
    const text = lines.join('\n') + '\n';
    lines.length = 0;
    return text;
  }
}

/** `Environment: prod` (and the store's, when another): absent for repositories without environments. */
export function environmentLine(plan: Pick<PlanDocument, 'environment'>): string | null {
  const { name, live } = plan.environment ?? { name: null, live: null };
  if (name === null && live === null) return null;
  const own = name === null ? 'none (no --env)' : name;
  if (live === null) return `Environment: ${own} (the live store has none recorded; apply records it)`;
  return `Environment: ${own}${live !== name ? ` (the live store was applied with ${live})` : ''}`;
}

function originNote(f: PlanFieldDocument): string {
  const text = fieldOriginText(f);
  return text ? `  # ${text}` : '';
}

function renderChange(
  change: PlanChangeDocument,
  symbol: Record<'create' | 'update' | 'delete', string>,
  verb: Record<'create' | 'update' | 'delete', string>,
  c: (color: 'dim', text: string) => string,
): string[] {
  const action = change.actions[0];
  const out = [`  # ${change.address} ${verb[action]}`, c('dim', `  # (${change.reason})`)];
  switch (action) {
    case 'create': {
      out.push(`  ${symbol.create} ${change.address} {`);
      for (const [path, value] of flattenFields(change.after)) out.push(`      ${symbol.create} ${path} = ${formatValue(value)}`);
      out.push('    }');
      break;
    }
    case 'update': {
      out.push(`  ${symbol.update} ${change.address} {`);
      if (change.fields.length === 0) out.push('      # (no field changes; ownership moves to the repository)');
      for (const f of change.fields) {
        const note = c('dim', originNote(f));
        if (f.kept) out.push(`      ${f.path} = ${formatValue(f.before)}${note}`);
        else if (f.before === null) out.push(`      ${symbol.create} ${f.path} = ${formatValue(f.after)}${note}`);
        else if (f.after === null) out.push(`      ${symbol.delete} ${f.path} = ${formatValue(f.before)} -> null${note}`);
        else out.push(`      ${symbol.update} ${f.path} = ${formatValue(f.before)} -> ${formatValue(f.after)}${note}`);
      }
      out.push('    }');
      break;
    }
    case 'delete':
      out.push(`  ${symbol.delete} ${change.address}${change.file ? ` (was ${change.file})` : ''}`);
      break;
  }
  return out;
}
