import { applyOutcomeJsonChunks, planDocumentChunks, renderPlanDocument, type PlanDocument } from '../../app/planRendering.js';
import type { CliIo } from '../io.js';
import type { PlanFormat } from '../commands/planApplyOptions.js';

export { renderApplyComplete } from '../../app/planRendering.js';

/** A plan document in the format asked for, coloured when the terminal takes colours. */
export function renderPlan(doc: PlanDocument, format: PlanFormat, io: CliIo): string {
  return renderPlanDocument(doc, format, { color: io.color });
}

/**
 * A plan document in the format asked for, in pieces of about 64 KiB (their concatenation is renderPlan's text):
 * what the commands write, so that a plan of every object of a large repository is never held as one text.
 */
export function* planPieces(doc: PlanDocument, format: PlanFormat, io: Pick<CliIo, 'color'>): Generator<string> {
  yield* inPieces(planDocumentChunks(doc, format, { color: io.color }));
}

/** `apply --format json`'s answer (the plan and what was applied) written to stdout a piece at a time. */
export async function writeApplyOutcomeJson(outcome: Parameters<typeof applyOutcomeJsonChunks>[0], io: CliIo): Promise<void> {
  await writePieces(inPieces(applyOutcomeJsonChunks(outcome)), io);
}

/** Each piece to stdout, waiting while stdout holds what it was given (a slow pipe): the text is never all queued. */
async function writePieces(pieces: Iterable<string>, io: CliIo): Promise<void> {
  for (const piece of pieces) {
    io.stdout(piece);
    await io.stdoutDrained?.();
  }
}

/** Small pieces of text gathered into pieces of about 64 KiB (fewer writes), in order. */
function* inPieces(chunks: Iterable<string>): Generator<string> {
  let pending = '';
  for (const chunk of chunks) {
    pending += chunk;
    if (pending.length >= 64 * 1024) {
      yield pending;
      pending = '';
    }
  }
  if (pending.length > 0) yield pending;
}

/** Writes a plan document to stdout in the format asked for, a piece at a time (planPieces). */
export async function writePlan(doc: PlanDocument, format: PlanFormat, io: CliIo): Promise<void> {
  await writePieces(planPieces(doc, format, io), io);
}
