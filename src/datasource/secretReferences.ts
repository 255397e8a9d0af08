import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DqError } from '../model/index.js';

/**
 * Secret references in connection specs, resolved HERE and only here, when a pool for the connection is
 * created (first use, or after the connection's spec changed): `${ENV_VAR}` from the environment and
 * `${credential://name}` from the file `name` in the credentials folder (`.credentials/` beside the repository,
 * as in a DQOps user home, or `--credentials-dir`). Resolved values are handed to the driver and kept by
 * nobody else: never written to the store, never logged, never put in an error message. A reference that
 * cannot be resolved is a SECRET_UNRESOLVED error naming the variable or the credential, not a value.
 *
 * A value may hold several references and text around them (`${DB_HOST}.internal`). `${sm://…}` and other
 * schemes are secret managers dqctl does not read: refused with their name.
 */
export interface SecretContext {
  /** The environment `${ENV_VAR}` reads (process.env in production, a plain object in tests). */
  env: Readonly<Record<string, string | undefined>>;
  /** The folder `${credential://name}` reads; absent: credential references are refused. */
  credentialsDir?: string;
}

export interface ResolvedValue {
  value: string;
  /** The resolved text of every reference in the value, for redaction of driver messages. */
  secrets: string[];
}

const REFERENCE = /\$\{([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CREDENTIAL_PART = /^[^/\\\0]+$/;

/** True when the text holds a `${…}` reference. */
export function hasSecretReference(text: string): boolean {
  return /\$\{[^}]*\}/.test(text);
}

/**
 * Resolves every reference in `text`. `where` names the field for messages (`connection "shop":
 * postgresql.password`).
 */
export async function resolveSecretReferences(text: string, context: SecretContext, where: string): Promise<ResolvedValue> {
  const references = [...text.matchAll(REFERENCE)];
  if (references.length === 0) return { value: text, secrets: [] };
  const secrets: string[] = [];
  let value = '';
  let last = 0;
  for (const match of references) {
    const resolved = await resolveOne(match[1].trim(), context, where);
    secrets.push(resolved);
    value += text.slice(last, match.index) + resolved;
    last = match.index + match[0].length;
  }
  value += text.slice(last);
  return { value, secrets };
}

async function resolveOne(reference: string, context: SecretContext, where: string): Promise<string> {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(reference);
  if (!scheme) {
    if (!ENV_NAME.test(reference)) {
      throw new DqError('SECRET_UNRESOLVED', `${where}: \${${reference}} is not an environment variable name`, { reference });
    }
    const value = context.env[reference];
    if (value === undefined) {
      throw new DqError('SECRET_UNRESOLVED', `${where} refers to the environment variable ${reference}, which is not set`, {
        variable: reference,
      });
    }
    return value;
  }
  if (scheme[1].toLowerCase() !== 'credential') {
    throw new DqError(
      'SECRET_UNRESOLVED',
      `${where} refers to a ${scheme[1]}:// secret; dqctl resolves only \${ENV_VAR} and \${credential://name} references`,
      { scheme: scheme[1] },
    );
  }
  const name = reference.slice(scheme[0].length);
  const parts = name.split('/');
  if (name === '' || parts.some((part) => part === '.' || part === '..' || !CREDENTIAL_PART.test(part))) {
    throw new DqError('SECRET_UNRESOLVED', `${where}: credential name ${JSON.stringify(name)} is not a file name inside the credentials folder`, {
      credential: name,
    });
  }
  if (!context.credentialsDir) {
    throw new DqError('SECRET_UNRESOLVED', `${where} refers to the credential ${JSON.stringify(name)}, but no credentials folder is set (--credentials-dir)`, {
      credential: name,
    });
  }
  const file = join(context.credentialsDir, ...parts);
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DqError(
      'SECRET_UNRESOLVED',
      `${where} refers to the credential ${JSON.stringify(name)}, which cannot be read from ${context.credentialsDir} (${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')})`,
      { credential: name },
    );
  }
  // A file written by an editor or `echo` ends with a newline that is not part of the secret.
  return content.replace(/\r?\n$/, '');
}

/** Replaces every resolved secret (of 3 characters or more) in a driver message with `(sensitive)`. */
export function redactSecrets(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 3) out = out.split(secret).join('(sensitive)');
  }
  return out;
}
