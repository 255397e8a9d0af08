import { resolve } from 'node:path';
import { exportToFolder, writeExportedFiles } from '../../app/exportToFolder.js';
import type { ExportResult } from '../../app/exportLive.js';
import { renderExportDiff } from '../render/exportDiff.js';
import { DqError, isObjectKind, OBJECT_KINDS } from '../../model/index.js';
import { variableScopeOf } from '../../app/environmentScope.js';
import { type EnvironmentFlags } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags, type RemoteTarget } from '../remoteClient.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

export interface ExportCommandOptions extends StoreFlags, EnvironmentFlags, RemoteFlags {
  out: string;
  onlyDrift?: boolean;
  kind?: string;
  namespace?: string;
  schemaBase?: string;
  includeSecrets?: boolean;
  force?: boolean;
  /** Write nothing; print a unified diff of every file the export would write. */
  dryRun?: boolean;
  format: 'text' | 'json';
}

/**
 * `dqctl export`: the live store as DQOps files in `--out` (default: the current folder). Never deletes a file;
 * refuses to overwrite a differing one without --force (see writeExport.ts). Literal secrets become
 * `${DQCTL_SECRET_…}` references unless --include-secrets, with a warning naming them. With --dry-run nothing is
 * written: stdout is the unified diff of every file it would write (a changed file keeps its comments and order).
 * With --server the files are made by that server from its store (GET /api/gitops/export, the same use case) and
 * written here; a server never sends a secret, so --include-secrets is refused there.
 */
export async function exportCommand(options: ExportCommandOptions, io: CliIo): Promise<number> {
  if (options.kind !== undefined && !isObjectKind(options.kind)) {
    throw new DqError('INVALID_ARGUMENT', `--kind must be one of ${OBJECT_KINDS.join(', ')}, not ${JSON.stringify(options.kind)}`);
  }
  const kind = options.kind;
  const folder = resolve(io.cwd, options.out);
  // the environment is checked before the store is opened: a wrong --env costs nothing
  const variables = options.env === undefined ? undefined : await variableScopeOf(folder, options.env);
  const selection = { kind, onlyDrift: options.onlyDrift, namespace: options.namespace, schemaBase: options.schemaBase };
  const writing = { force: options.force, dryRun: options.dryRun, variables };
  const target = remoteTargetOf(options, io);
  if (target && options.includeSecrets) {
    throw new DqError(
      'INVALID_ARGUMENT',
      '--include-secrets cannot be used with --server: a dqctl server never sends a secret (its answers carry ${…} references in their place); drop it, or export from the store directly (--database)',
    );
  }
  const { exported: result, files: outcome } = target
    ? await writeExportedFiles(await remoteExport(target, selection), folder, writing)
    : await withStore(options, io, { operation: 'export' }, (store) =>
        exportToFolder(store, folder, { ...selection, includeSecrets: options.includeSecrets, ...writing }),
      );

  for (const warning of result.warnings) io.stderr(`Warning: ${warning}\n`);
  if (result.replacedSecrets.length > 0) {
    io.stderr(
      `Warning: ${result.replacedSecrets.length} literal secret${result.replacedSecrets.length === 1 ? ' was' : 's were'} not exported; ` +
        `set these variables where dqctl runs (or export ${target ? 'from the store directly, not through a server, ' : ''}with --include-secrets):\n` +
        result.replacedSecrets.map((s) => `  ${s.variable}  (${s.object}, ${s.path})\n`).join(''),
    );
  }
  if (!options.onlyDrift && result.namespaces.length > 1) {
    io.stderr(
      `Warning: the export holds objects of ${result.namespaces.length} namespaces (${result.namespaces.join(', ')}); no dqctl.yaml was written. ` +
        'Export one namespace per repository with --namespace.\n',
    );
  }
  for (const kept of outcome.kept) io.stderr(`Note: ${kept} exists and was left as it is.\n`);

  if (options.format === 'json') {
    io.stdout(
      JSON.stringify(
        {
          folder,
          objects: result.objects,
          ...(options.dryRun ? { dry_run: true, would_write: outcome.written, diff: renderExportDiff(outcome.changes ?? []) } : { written: outcome.written }),
          unchanged: outcome.unchanged,
          kept: outcome.kept,
          replaced_secrets: result.replacedSecrets,
          warnings: result.warnings,
        },
        null,
        2,
      ) + '\n',
    );
    return 0;
  }
  if (options.dryRun) {
    io.stdout(renderExportDiff(outcome.changes ?? []));
    io.stderr(
      `Dry run: ${outcome.written.length} file${outcome.written.length === 1 ? '' : 's'} would be written, ${outcome.unchanged.length} unchanged; nothing was written.\n`,
    );
    return 0;
  }
  for (const path of outcome.written) io.stdout(`  wrote ${path}\n`);
  const noun = `object${result.objects === 1 ? '' : 's'}${options.onlyDrift ? ' changed outside git' : ''}`;
  io.stdout(
    `Exported ${result.objects} ${noun} to ${options.out}: ${outcome.written.length} file${outcome.written.length === 1 ? '' : 's'} written, ${outcome.unchanged.length} unchanged.\n`,
  );
  return 0;
}

async function remoteExport(target: RemoteTarget, selection: { kind?: string; onlyDrift?: boolean; namespace?: string; schemaBase?: string }): Promise<ExportResult> {
  const query = new URLSearchParams();
  if (selection.kind !== undefined) query.set('kind', selection.kind);
  if (selection.onlyDrift) query.set('only_drift', 'true');
  if (selection.namespace !== undefined) query.set('namespace', selection.namespace);
  if (selection.schemaBase !== undefined) query.set('schema_base', selection.schemaBase);
  const path = `/api/gitops/export${query.size > 0 ? `?${query}` : ''}`;
  const exported = await callServer<ExportResult>(target, 'GET', path);
  if (!exported) throw new DqError('SERVER_UNREACHABLE', `${target.url} answered GET /api/gitops/export with no content; is it a dqctl server?`);
  return exported;
}
