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
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
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
    return loadCommonJs(join(dir, entry.file)) as ValidateFunction;
  } catch {
    return undefined;
  }
}

/**
 * V8's code cache of a validator (`<file>.v8cache`, written by the build after the validator has run on the
 * examples, so it holds the functions those runs compiled): the table's and column policies' validators are 3 and
 * 2.4 MB of code that V8 otherwise parses and compiles again in every process and every parse worker (~0.1 s of
 * CPU each). A cache made by another Node.js or with other V8 flags is rejected by V8, which then compiles the
 * source as `require` would: slower, never different.
 */
export const CODE_CACHE_SUFFIX = '.v8cache';

/** The CommonJS module wrapper, the same text at build time and at load time (V8 checks the source's hash). */
export function commonJsScript(file: string, source: string, cachedData?: Buffer): Script {
  return new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
}

function loadCommonJs(file: string): unknown {
  let cachedData: Buffer;
  try {
    cachedData = readFileSync(file + CODE_CACHE_SUFFIX);
  } catch {
    return require(file); // built without a code cache
  }
  return runCommonJs(commonJsScript(file, readFileSync(file, 'utf8'), cachedData), file);
}

/** Runs a module compiled by commonJsScript, as `require` runs one: its exports. */
export function runCommonJs(script: Script, file: string): unknown {
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

/** Forgets the manifest read so far (tests that write validators into a folder of their own). */
export function forgetStandaloneManifest(): void {
  manifestCache = undefined;
}
