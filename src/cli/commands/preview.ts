import { resolve } from 'node:path';
import type { PreviewDocument, PreviewOutcome } from '../../app/preview/previewDocument.js';
import { previewInProcess } from '../../app/preview/previewInProcess.js';
import { DEFAULT_LIVE_LIMIT, DEFAULT_PREVIEW_DAYS, type PreviewRequest } from '../../app/preview/previewRequest.js';
import { previewRevisions, type PreviewRevisionsRequest } from '../../app/preview/previewRevisions.js';
import { gitRevisionSides } from '../../app/loadRevisionPair.js';
import { ValidationFailed } from '../../app/validationFailed.js';
import { DqError, int64Json } from '../../model/index.js';
import { withDataSources, type DataSourceFlags } from '../dataSourceOptions.js';
import { environmentOf, type EnvironmentFlags } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import { renderPreviewMarkdown, renderPreviewText, wouldFailNow } from '../render/previewOutput.js';
import type { StoreFlags } from '../storeOptions.js';

export interface PreviewCommandOptions extends StoreFlags, DataSourceFlags, RemoteFlags, EnvironmentFlags {
  base: string;
  head: string;
  path?: string;
  days?: string;
  /** false with --no-live. */
  live?: boolean;
  liveLimit?: string;
  format: 'text' | 'json' | 'markdown';
  detailedExitcode?: boolean;
}

/**
 * `dqctl preview --base REF [--head REF] [DIR]`: what the checks a pull request adds or modifies would have said
 * on the stored history (backtest) and say on the data now (live), read from the two git revisions (no
 * checkout). The history and the data sources are this process's store and connections, or, with --server,
 * the server's (the changed checks are posted; its secrets never leave it). Nothing is written anywhere.
 * Exit 0 (2 with --detailed-exitcode when a check would fail now: error or fatal), 1 on an error (unknown
 * revision, …), 3 when the head does not validate.
 */
export async function previewCommand(dir: string | undefined, options: PreviewCommandOptions, io: CliIo): Promise<number> {
  const repository = resolve(io.cwd, dir ?? '.');
  const request: PreviewRevisionsRequest = {
    ...gitRevisionSides(repository, options),
    environment: environmentOf(options),
    days: positiveInteger(options.days, '--days', DEFAULT_PREVIEW_DAYS),
    live: options.live !== false,
    liveLimit: positiveInteger(options.liveLimit, '--live-limit', DEFAULT_LIVE_LIMIT, { zero: true }),
  };
  const target = remoteTargetOf(options, io);
  let doc: PreviewDocument;
  try {
    if (target) {
      if (options.credentialsDir) throw new DqError('INVALID_ARGUMENT', '--credentials-dir has no effect with --server: the server runs the checks with its own secrets; drop it');
      doc = await previewRevisions(request, async (body: PreviewRequest) =>
        (await callServer<PreviewOutcome>(target, 'POST', '/api/gitops/preview', body, { gzip: true, idempotent: true }))!,
      );
    } else {
      doc = await withDataSources(options, io, 'preview', ({ store, dataSources, signal }) => previewInProcess(request, store, dataSources, { signal }));
    }
  } catch (error) {
    // main.ts prints the diagnostics; a pull-request comment says why there is no preview
    if (error instanceof ValidationFailed && options.format === 'markdown') {
      io.stdout(`### dqctl preview: \`${options.head}\` does not validate\n\nNothing was previewed; the diff above lists the errors.\n`);
    }
    throw error;
  }
  if (options.format !== 'text') for (const warning of doc.warnings) io.stderr(`Warning: ${warning}\n`);
  switch (options.format) {
    case 'json':
      io.stdout(int64Json(doc, 2) + '\n');
      break;
    case 'markdown':
      io.stdout(renderPreviewMarkdown(doc));
      break;
    case 'text':
      io.stdout(renderPreviewText(doc, { color: io.color }));
      break;
  }
  return options.detailedExitcode && doc.checks.some(wouldFailNow) ? 2 : 0;
}

function positiveInteger(raw: string | undefined, flag: string, fallback: number, options: { zero?: boolean } = {}): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  const least = options.zero ? 0 : 1;
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < least) {
    throw new DqError('INVALID_ARGUMENT', `${flag} must be a whole number of at least ${least}, not ${JSON.stringify(raw)}`);
  }
  return value;
}
