import { isAbsolute, relative, resolve, sep } from 'node:path';
import { validateRepository } from '../../app/validateRepository.js';
import { environmentOf, type EnvironmentFlags } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { withProgress } from '../progressBar.js';
import { diagnosticsReport, renderDiagnosticsGithub, renderDiagnosticsText } from '../render/diagnostics.js';

export interface ValidateOptions extends EnvironmentFlags {
  format: 'text' | 'json' | 'github';
  /** No progress bar on the terminal. */
  quiet?: boolean;
}

/** `dqctl validate [DIR]`: every finding at once; exit 0 when there are no errors, 3 otherwise. */
export async function validateCommand(dir: string | undefined, options: ValidateOptions, io: CliIo): Promise<number> {
  const repository = resolve(io.cwd, dir ?? '.');
  const validation = await withProgress(io, options, (progress) => validateRepository(repository, { progress, environment: environmentOf(options) }));
  const report = diagnosticsReport(validation.diagnostics);
  switch (options.format) {
    case 'json':
      io.stdout(JSON.stringify(report, null, 2) + '\n');
      break;
    case 'github':
      io.stdout(renderDiagnosticsGithub(validation.diagnostics, workspacePrefix(repository, io)));
      io.stdout(report.valid ? `dqctl: valid (${plural(report.warning_count, 'warning')})\n` : `dqctl: ${plural(report.error_count, 'error')}, ${plural(report.warning_count, 'warning')}\n`);
      break;
    case 'text':
      io.stdout(renderDiagnosticsText(validation.diagnostics, validation.texts, io.color));
      if (report.valid) io.stdout(`${validation.objectCount} objects in ${dir ?? '.'}\n`);
      break;
  }
  return report.valid ? 0 : 3;
}

/**
 * Where the user home lies in the GitHub workspace ($GITHUB_WORKSPACE, else the current folder), as a prefix
 * of the annotation paths: `dqops/` when the user home is the sub-folder dqops. None when it lies outside.
 */
export function workspacePrefix(repository: string, io: CliIo): string {
  const workspace = resolve(io.cwd, io.env.GITHUB_WORKSPACE || '.');
  const inside = relative(workspace, repository);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return '';
  return inside.split(sep).join('/') + '/';
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
