import { resolve } from 'node:path';
import { diffRevisions, type DiffRevisionsRequest } from '../../app/diffRevisions.js';
import { gitRevisionSides } from '../../app/loadRevisionPair.js';
import { ValidationFailed } from '../../app/validationFailed.js';
import { toDiffDocument, type DiffDocument } from '../../plan/diffDocument.js';
import { renderDiffMarkdown, renderInvalidHeadMarkdown } from '../../plan/renderDiffMarkdown.js';
import { renderDiffText } from '../../plan/renderDiffText.js';
import { environmentOf, type EnvironmentFlags } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { renderDiagnosticsText } from '../render/diagnostics.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

export type DiffFormat = 'text' | 'json' | 'markdown';

export interface DiffCommandOptions extends StoreFlags, EnvironmentFlags {
  base: string;
  head: string;
  path?: string;
  format: DiffFormat;
  /** false with --no-store. */
  store?: boolean;
}

export function renderDiff(doc: DiffDocument, format: DiffFormat, io: CliIo): string {
  switch (format) {
    case 'json':
      return JSON.stringify(doc, null, 2) + '\n';
    case 'markdown':
      return renderDiffMarkdown(doc);
    case 'text':
      return renderDiffText(doc, { color: io.color });
  }
}

/**
 * `dqctl diff --base REF --head REF [DIR]`: what a pull request changes, read from the two refs of the git
 * repository in DIR (no checkout, no live store). The live store is read only when one is named
 * (--database, --state-dir or their environment variables), to count the policies' reach on its tables too;
 * --no-store never opens one. Exit 0, or 3 when the head does not validate (with --format markdown the
 * errors are printed as the comment, so a pull request shows them).
 */
export async function diffCommand(dir: string | undefined, options: DiffCommandOptions, io: CliIo): Promise<number> {
  const repository = resolve(io.cwd, dir ?? '.');
  const request: DiffRevisionsRequest = {
    ...gitRevisionSides(repository, options),
    environment: environmentOf(options),
  };
  const useStore =
    options.store !== false && Boolean(options.database || options.stateDir || io.env.DQCTL_DATABASE_URL || io.env.DQCTL_STATE_DIR);
  let doc: DiffDocument;
  try {
    const result = useStore
      ? await withStore(options, io, { operation: 'diff' }, (store) =>
          diffRevisions({ ...request, live: { store, engine: store.engine, description: store.description } }),
        )
      : await diffRevisions(request);
    doc = toDiffDocument(result);
  } catch (error) {
    if (error instanceof ValidationFailed && options.format === 'markdown') {
      io.stdout(renderInvalidHeadMarkdown(options.head, error.desired.diagnostics));
      io.stderr(renderDiagnosticsText(error.desired.diagnostics, error.desired.texts, io.color));
      io.stderr(`Error: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
  for (const warning of doc.warnings) if (options.format !== 'text') io.stderr(`Warning: ${warning}\n`);
  io.stdout(renderDiff(doc, options.format, io));
  return 0;
}
