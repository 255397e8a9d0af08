import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VariableScope } from '../manifest/environmentVariables.js';
import { readSettings } from '../manifest/settings.js';
import { parseYamlFile } from '../manifest/yamlDocument.js';
import { DqError } from '../model/index.js';
import { validateDocument } from '../schema/index.js';

/**
 * The variables of `--env NAME` as the dqctl.yaml of a folder defines them, for the commands that read
 * the repository's files without loading it (`export` keeps the `${var.…}` its files hold). A missing,
 * invalid or environment-less dqctl.yaml, or an unknown NAME, is refused with the environments there are.
 */
export async function variableScopeOf(folder: string, environment: string): Promise<VariableScope> {
  const found = await settingsScope(folder, environment);
  if (found.kind === 'invalid') throw new DqError('INVALID_ARGUMENT', `--env ${environment}: ${found.file} does not validate (run dqctl validate)`);
  return found.scope;
}

/**
 * `serve --repo DIR --env NAME` at start: refused when DIR's dqctl.yaml is missing or does not define NAME, as
 * every pass would fail for it. An invalid dqctl.yaml is let through: the loop reports its errors with their
 * lines and picks up the fix, as for any other file.
 */
export async function checkEnvironmentDefined(folder: string, environment: string): Promise<void> {
  await settingsScope(folder, environment);
}

async function settingsScope(folder: string, environment: string): Promise<{ kind: 'valid'; scope: VariableScope } | { kind: 'invalid'; file: string }> {
  const file = join(folder, 'dqctl.yaml');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new DqError('INVALID_ARGUMENT', `--env ${environment}: there is no ${file} to define it (spec.environments.${environment}.vars)`);
  }
  const { parsed, diagnostics } = parseYamlFile('dqctl.yaml', text);
  const violations = parsed ? validateDocument('settings', parsed.value) : [];
  if (!parsed || diagnostics.length > 0 || violations.length > 0) return { kind: 'invalid', file };
  const settings = readSettings(parsed.value);
  const scope = new VariableScope(environment, settings.environments);
  if (!scope.known) {
    const all = scope.environmentNames();
    throw new DqError(
      'INVALID_ARGUMENT',
      `--env ${environment}: no such environment in ${file}${all.length > 0 ? `; the environments are ${all.join(', ')}` : ' (it defines none)'}`,
    );
  }
  return { kind: 'valid', scope };
}
