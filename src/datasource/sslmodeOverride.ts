import { DqError } from '../model/index.js';

/**
 * `DQCTL_SSLMODE_OVERRIDE=<connection>=<sslmode>[,<connection>=<sslmode>…]`: the sslmode a named connection
 * uses instead of the one its file says. The connection schema allows only literal sslmodes (no `${ENV}`
 * reference), so a repository written for production (`sslmode: require`) cannot otherwise reach a local
 * server without TLS. `dqctl demo` sets it for the example's two connections when it points them at its demo
 * databases; it is per connection, so it never loosens a connection it does not name. The last entry for a
 * connection wins. An entry that is not `name=mode` with a libpq sslmode is INVALID_ARGUMENT.
 */
export const SSLMODE_OVERRIDE_VARIABLE = 'DQCTL_SSLMODE_OVERRIDE';

export const SSLMODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type Sslmode = (typeof SSLMODES)[number];

export function isSslmode(value: string): value is Sslmode {
  return (SSLMODES as readonly string[]).includes(value);
}

/** Every `connection → sslmode` of the variable's value. */
export function parseSslmodeOverride(text: string | undefined): Map<string, Sslmode> {
  const overrides = new Map<string, Sslmode>();
  if (!text) return overrides;
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.lastIndexOf('=');
    const connection = at > 0 ? entry.slice(0, at).trim() : '';
    const mode = at > 0 ? entry.slice(at + 1).trim() : '';
    if (connection === '' || !isSslmode(mode)) {
      throw new DqError('INVALID_ARGUMENT', `${SSLMODE_OVERRIDE_VARIABLE}: ${JSON.stringify(entry.trim())} is not <connection>=<sslmode> (sslmode one of ${SSLMODES.join(', ')})`);
    }
    overrides.set(connection, mode);
  }
  return overrides;
}

/** The overriding sslmode of one connection, if the environment names it. */
export function sslmodeOverrideOf(connection: string, env: Readonly<Record<string, string | undefined>>): Sslmode | undefined {
  return parseSslmodeOverride(env[SSLMODE_OVERRIDE_VARIABLE]).get(connection);
}

/** The variable's value with `entries` set (after what it held, so they win). */
export function withSslmodeOverrides(current: string | undefined, entries: ReadonlyArray<readonly [string, Sslmode]>): string {
  const parts = current && current.trim() !== '' ? [current.trim()] : [];
  for (const [connection, mode] of entries) parts.push(`${connection}=${mode}`);
  return parts.join(',');
}
