import type { ApplyResult } from '../apply/applyPlan.js';
import { blockingFindings } from '../plan/plan.js';
import type { PlanDocument } from '../plan/planDocument.js';
import { renderPlanMarkdown } from '../plan/renderMarkdown.js';
import { renderPlanText } from '../plan/renderText.js';

/**
 * The one place a plan document is turned into what a person or a program reads: local, `--server`, saved and
 * pending plans (the CLI and the server's `?format=text`) all go through here.
 */
export type PlanFormat = 'text' | 'json' | 'markdown';

export function renderPlanDocument(doc: PlanDocument, format: PlanFormat, options: { color: boolean } = { color: false }): string {
  switch (format) {
    case 'json':
      return JSON.stringify(doc, null, 2) + '\n';
    case 'markdown':
      return renderPlanMarkdown(doc);
    case 'text':
      return renderPlanText(doc, options);
  }
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
