/**
 * Precompiled schema validators. Compiling the table schema with ajv takes most of a second, and every
 * `dqctl validate` or `plan` in a fresh process (each CI job, each pre-commit hook) paid it. `npm run build`
 * therefore writes each schema's validator as standalone code (ajv's standalone mode, CommonJS so that it loads
 * synchronously) into dist/validators, with the SHA-256 of the schema text it was compiled from. At run time a
 * validator is loaded from there only when that hash and the ajv version still match; otherwise (running from
 * src/ after `npm run schemas`, a build that did not write them) the schema is compiled as before.
 *
 * Schemas with `anyOf` / `oneOf` are left to run-time compilation: standalone code copies each `$defs` entry into
 * a constant of its own, so the error pruning, which follows `$ref`s from the root schema by object identity,
 * could not attribute a branch's errors.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { PACKAGE_ROOT } from '../catalog/packagePaths.js';
import type { DocumentKind } from './schemaFiles.js';

export const VALIDATORS_DIR = join(PACKAGE_ROOT, 'dist', 'validators');
const require = createRequire(import.meta.url);

export const MANIFEST_FILE = 'manifest.json';
export const AJV_VERSION = (require('ajv/package.json') as { version: string }).version;

/** dist/validators/manifest.json: which file holds each kind's validator, and what it was compiled from. */
export interface ValidatorManifest {
  ajv: string;
  validators: Partial<Record<DocumentKind, { file: string; schemaSha256: string }>>;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

let manifestCache: { dir: string; manifest: ValidatorManifest | undefined } | undefined;

function readManifest(dir: string): ValidatorManifest | undefined {
  if (manifestCache?.dir !== dir) {
    const path = join(dir, MANIFEST_FILE);
    let manifest: ValidatorManifest | undefined;
    try {
      manifest = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ValidatorManifest) : undefined;
    } catch {
      manifest = undefined; // a torn or hand-edited manifest: compile instead
    }
    manifestCache = { dir, manifest };
  }
  return manifestCache.manifest;
}

/**
 * The precompiled validator of a kind, when one was built from exactly this schema text by this ajv version;
 * undefined otherwise (the caller compiles the schema).
 */
export function loadStandaloneValidator(kind: DocumentKind, schemaText: string, dir: string = VALIDATORS_DIR): ValidateFunction | undefined {
  const manifest = readManifest(dir);
  const entry = manifest?.validators[kind];
  if (!manifest || !entry || manifest.ajv !== AJV_VERSION || entry.schemaSha256 !== sha256(schemaText)) return undefined;
  try {
    return require(join(dir, entry.file)) as ValidateFunction;
  } catch {
    return undefined;
  }
}

/** Forgets the manifest read so far (tests that write validators into a folder of their own). */
export function forgetStandaloneManifest(): void {
  manifestCache = undefined;
}
