import type { DesiredState } from '../../manifest/desiredState.js';
import type { RepositorySource } from '../../manifest/repositorySource.js';
import { loadRevisionPair } from '../loadRevisionPair.js';
import { changedChecks, headDefinitions } from './changedChecks.js';
import { PREVIEW_FORMAT_VERSION, type PreviewDocument, type PreviewOutcome } from './previewDocument.js';
import type { PreviewRequest } from './previewRequest.js';

/**
 * The use case behind `dqctl preview --base --head`: read both revisions from git (no checkout), find the
 * checks the change adds or modifies (changedChecks.ts), and have them evaluated: by `evaluate`, which is this
 * process's store and data sources (previewChecks.ts) or a server's (POST /api/gitops/preview). An invalid head
 * is refused with its diagnostics; an invalid base is compared by its valid part, with a warning.
 */
export interface PreviewRevisionsRequest {
  base: { source: RepositorySource; ref: string };
  head: { source: RepositorySource; ref: string };
  /** The environment both revisions are read with (`--env`): the checks carry its values. */
  environment?: string | null;
  days: number;
  live: boolean;
  liveLimit: number;
}

export async function previewRevisions(
  request: PreviewRevisionsRequest,
  evaluate: (request: PreviewRequest, head: DesiredState) => Promise<PreviewOutcome>,
): Promise<PreviewDocument> {
  const { base, head, warnings } = await loadRevisionPair(request, {
    nothing: 'nothing was previewed',
    baseConsequence: 'the checks of its broken files count as added',
  });
  const tables = changedChecks(base, head);
  const definitions = headDefinitions(head, tables);
  const outcome = await evaluate({ days: request.days, live: request.live, live_limit: request.liveLimit, tables, definitions }, head);
  return {
    format_version: PREVIEW_FORMAT_VERSION,
    base: base.repository.commit ?? request.base.ref,
    head: head.repository.commit ?? request.head.ref,
    days: request.days,
    checks: outcome.checks,
    warnings: [...warnings, ...outcome.warnings],
  };
}
