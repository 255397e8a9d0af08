import type { ApplyResult } from '../../apply/applyPlan.js';
import type { PlanDocument } from '../../plan/planDocument.js';
import { renderPlanMarkdown } from '../../plan/renderMarkdown.js';
import { renderPlanText } from '../../plan/renderText.js';
import type { CliIo } from '../io.js';
import type { PlanFormat } from '../commands/planApplyOptions.js';

/** A plan document in the format asked for: the same renderers for local, `--server` and saved plans. */
export function renderPlan(doc: PlanDocument, format: PlanFormat, io: CliIo): string {
  switch (format) {
    case 'json':
      return JSON.stringify(doc, null, 2) + '\n';
    case 'markdown':
      return renderPlanMarkdown(doc);
    case 'text':
      return renderPlanText(doc, { color: io.color });
  }
}

/** The closing line of a text apply (Terraform's wording). */
export function renderApplyComplete(result: ApplyResult): string {
  const { add, change, destroy } = result.applied;
  return `\nApply complete! Objects: ${add} added, ${change} changed, ${destroy} destroyed. Store revision ${result.storeRevision}.\n`;
}
