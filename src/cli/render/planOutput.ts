import { renderPlanDocument, type PlanDocument } from '../../app/planRendering.js';
import type { CliIo } from '../io.js';
import type { PlanFormat } from '../commands/planApplyOptions.js';

export { renderApplyComplete } from '../../app/planRendering.js';

/** A plan document in the format asked for, coloured when the terminal takes colours. */
export function renderPlan(doc: PlanDocument, format: PlanFormat, io: CliIo): string {
  return renderPlanDocument(doc, format, { color: io.color });
}
