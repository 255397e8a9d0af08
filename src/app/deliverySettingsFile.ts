import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { DqError } from '../model/index.js';
import { readDeliverySettings, type DeliverySettings } from '../notify/index.js';
import { validateDocument } from '../schema/index.js';

/**
 * The notification delivery settings of `dqctl serve`: the `notifications` block of the dqctl.yaml in the
 * repository folder it reconciles (--repo), else in the current folder; defaults when there is none. An
 * invalid file is refused at start, not discovered at the first e-mail.
 */
export async function loadDeliverySettings(folder: string): Promise<{ settings: DeliverySettings; file?: string }> {
  const file = join(folder, 'dqctl.yaml');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { settings: readDeliverySettings(undefined) };
  }
  let document: unknown;
  try {
    document = load(text);
  } catch (error) {
    throw new DqError('INVALID_ARGUMENT', `${file} is not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const violations = validateDocument('settings', document);
  if (violations.length > 0) {
    throw new DqError('INVALID_ARGUMENT', `${file}: ${violations.map((v) => `${v.path.join('.')}: ${v.summary}`).join('; ')} (run dqctl validate)`);
  }
  return { settings: readDeliverySettings(document), file };
}
