#!/usr/bin/env node
// Part of `npm run build`: writes dist/validators (precompiled schema validators and their V8 code caches; see
// src/schema/standaloneValidators.ts). Runs on the freshly compiled dist/. The code caches are made after each
// validator has checked the examples' documents of its kind, so they hold the functions a real document reaches.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { classifyPath } from '../dist/manifest/objectPaths.js';
import { writeStandaloneValidators } from '../dist/schema/writeStandaloneValidators.js';

const { CORE_SCHEMA, load } = createRequire(import.meta.url)('js-yaml');
const examples = new URL('../examples', import.meta.url).pathname;

/** The examples' YAML documents by kind (each DQOps user home under examples/: its files classified as dqctl does). */
function exampleDocuments() {
  const byKind = new Map();
  for (const home of readdirSync(examples, { withFileTypes: true })) {
    if (!home.isDirectory()) continue;
    const root = join(examples, home.name);
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.yaml')) continue;
      const path = join(entry.parentPath ?? entry.path, entry.name);
      const c = classifyPath(relative(root, path).split('\\').join('/'));
      const kind = c.type === 'settings' ? 'settings' : c.type === 'object' ? c.kind : undefined;
      if (!kind) continue;
      try {
        byKind.set(kind, [...(byKind.get(kind) ?? []), load(readFileSync(path, 'utf8'), { schema: CORE_SCHEMA })]);
      } catch {
        // a file that does not parse is validate's business, not the build's
      }
    }
  }
  return byKind;
}

const started = performance.now();
const documents = exampleDocuments();
const written = writeStandaloneValidators(undefined, (kind) => documents.get(kind) ?? []);
const bytes = written.reduce((sum, v) => sum + v.bytes, 0);
const samples = [...documents.values()].reduce((sum, list) => sum + list.length, 0);
console.log(`dist/validators: ${written.length} precompiled schema validators, ${(bytes / 1048576).toFixed(1)} MiB, code caches after ${samples} example documents, in ${Math.round(performance.now() - started)} ms`);
