import type { ApplyResult } from '../apply/applyPlan.js';
import { blockingFindings } from '../plan/plan.js';
import type { PlanDocument } from '../plan/planDocument.js';
import { renderPlanMarkdown } from '../plan/renderMarkdown.js';
import { planTextChunks } from '../plan/renderText.js';

/**
 * The one place a plan document is turned into what a person or a program reads: local, `--server`, saved and
 * pending plans (the CLI and the server's `?format=text`) all go through here.
 */
export type PlanFormat = 'text' | 'json' | 'markdown';

export function renderPlanDocument(doc: PlanDocument, format: PlanFormat, options: { color: boolean } = { color: false }): string {
  return [...planDocumentChunks(doc, format, options)].join('');
}

/**
 * renderPlanDocument in pieces whose concatenation is its text, for a writer that hands each on (a terminal, a
 * pipe, a file): a plan of 100,000 creates is hundreds of megabytes of text, never held whole. The markdown form is
 * bounded (a PR comment's limit) and comes as one piece.
 */
export function* planDocumentChunks(doc: PlanDocument, format: PlanFormat, options: { color: boolean } = { color: false }): Generator<string> {
  switch (format) {
    case 'json':
      yield* planJsonChunks(doc);
      return;
    case 'markdown':
      yield renderPlanMarkdown(doc);
      return;
    case 'text':
      yield* planTextChunks(doc, options);
      return;
  }
}

/**
 * JSON.stringify(doc, null, 2) + '\n' in pieces, a change at a time (the same text: a value's own lines indented as
 * its depth in the document; JSON text has no raw newline inside a string, so indenting after each one is exact).
 */
export function* planJsonChunks(doc: PlanDocument): Generator<string> {
  const entries = Object.entries(doc).filter(([, value]) => value !== undefined && typeof value !== 'function');
  yield '{\n';
  for (let i = 0; i < entries.length; i++) {
    const [key, value] = entries[i]!;
    const comma = i < entries.length - 1 ? ',' : '';
    if (key === 'changes' && Array.isArray(value) && value.length > 0) {
      yield `  ${JSON.stringify(key)}: [\n`;
      for (let j = 0; j < value.length; j++) yield `    ${indented(JSON.stringify(value[j], null, 2), '    ')}${j < value.length - 1 ? ',' : ''}\n`;
      yield `  ]${comma}\n`;
    } else yield `  ${JSON.stringify(key)}: ${indented(JSON.stringify(value, null, 2), '  ')}${comma}\n`;
  }
  yield '}\n';
}

/**
 * JSON.stringify({ plan, applied }, null, 2) + '\n' (what `apply --format json` prints) in pieces, the plan's as
 * planJsonChunks gives them: an apply of every object of a large repository is never held as one text.
 */
export function* applyOutcomeJsonChunks(outcome: { plan: PlanDocument; applied: ApplyResult | null }): Generator<string> {
  yield '{\n  "plan": ';
  let first = true;
  // each piece of the plan ends with a newline: the newline goes before the next piece, with its indentation
  for (const chunk of planJsonChunks(outcome.plan)) {
    yield `${first ? '' : '\n  '}${indented(chunk.slice(0, -1), '  ')}`;
    first = false;
  }
  yield `,\n  "applied": ${indented(JSON.stringify(outcome.applied, null, 2), '  ')}\n}\n`;
}

function indented(json: string, pad: string): string {
  return json.replaceAll('\n', `\n${pad}`);
}

/** A plan with an error finding (mass delete, ownership conflict): apply refuses it, `plan` exits 1. */
export function isBlocked(doc: Pick<PlanDocument, 'findings'>): boolean {
  return blockingFindings(doc).length > 0;
}

/** The closing line of a text apply (Terraform's wording). */
export function renderApplyComplete(result: ApplyResult): string {
  const { add, change, destroy } = result.applied;
  return `\nApply complete! Objects: ${add} added, ${change} changed, ${destroy} destroyed. Store revision ${result.storeRevision}.\n`;
}

export type { ApplyResult, PlanDocument };
