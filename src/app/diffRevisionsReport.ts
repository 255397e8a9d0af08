import { toDiffDocument, type DiffDocument } from '../plan/diffDocument.js';
import { renderDiffMarkdown, renderInvalidHeadMarkdown } from '../plan/renderDiffMarkdown.js';
import { renderDiffText } from '../plan/renderDiffText.js';
import { diffRevisions, type DiffRevisionsRequest } from './diffRevisions.js';
import { ValidationFailed } from './validationFailed.js';

/**
 * `dqctl diff` in the format asked for: the diff document of two revisions (diffRevisions.ts) and its text
 * (for people), JSON or markdown (a pull-request comment). A head that does not validate is refused with its
 * diagnostics (ValidationFailed), except in markdown: there the refusal is the comment, so a pull request
 * shows why there is no diff.
 */
export type DiffFormat = 'text' | 'json' | 'markdown';

export type DiffReport =
  | { valid: true; document: DiffDocument; output: string }
  | { valid: false; failure: ValidationFailed; output: string };

export async function diffRevisionsReport(request: DiffRevisionsRequest, options: { format: DiffFormat; color: boolean }): Promise<DiffReport> {
  let document: DiffDocument;
  try {
    document = toDiffDocument(await diffRevisions(request));
  } catch (error) {
    if (error instanceof ValidationFailed && options.format === 'markdown') {
      return { valid: false, failure: error, output: renderInvalidHeadMarkdown(request.head.ref, error.desired.diagnostics) };
    }
    throw error;
  }
  return { valid: true, document, output: renderDiff(document, options) };
}

function renderDiff(document: DiffDocument, options: { format: DiffFormat; color: boolean }): string {
  switch (options.format) {
    case 'json':
      return JSON.stringify(document, null, 2) + '\n';
    case 'markdown':
      return renderDiffMarkdown(document);
    case 'text':
      return renderDiffText(document, { color: options.color });
  }
}
