import { isDeepStrictEqual } from 'node:util';
import { diffArrays } from 'diff';
import { Document, isMap, isPair, isScalar, isSeq, parse, parseDocument, YAMLMap, YAMLSeq, type Node, type Pair } from 'yaml';
import { quoteAmbiguousStrings, YAML_OUTPUT } from './emitYaml.js';

/**
 * Writes a new version of a document into the text of an existing file, the way a person would edit it: the
 * file's comments, key order, quoting and blank lines stay; only values that changed are rewritten, removed keys
 * go, new keys come in beside their neighbours of the new version. Used when `dqctl export` adopts an API edit
 * into a file git holds, so the diff of the file is the edit and nothing else.
 *
 * The `yaml` package keeps comments and order but writes its own spacing (`key: 1   # note` comes back as
 * `key: 1 # note`, flow maps get inner spaces). So a line-level pass follows: where a line of the result differs
 * from the line it replaces only in such spacing, the file's own line is kept. Each step is checked by reading
 * the result back: it must equal the new version, or the step is not taken.
 *
 * Returns the fresh text when the file cannot be updated faithfully: it does not parse, holds more than one
 * document, uses anchors or merge keys, or the update would not read back as exactly the new version.
 */
export function updateYamlDocument(existingText: string, freshText: string, options: UpdateOptions = {}): string {
  const fresh = parse(freshText) as unknown;
  const readsAs = (text: string, value: unknown) => readsAsWith(text, value, options.resolve);
  let doc: Document;
  try {
    doc = parseDocument(existingText, { version: '1.2', keepSourceTokens: false });
  } catch {
    return freshText;
  }
  if (doc.errors.length > 0 || usesAliases(existingText)) return freshText;
  const freshDoc = parseDocument(freshText, { version: '1.2' });
  doc.contents = update(doc, doc.contents as Node | null, freshDoc.contents as Node | null, options.resolve);
  quoteAmbiguousStrings(doc);
  const text = doc.toString(YAML_OUTPUT);
  if (!readsAs(text, fresh)) return freshText;
  const kept = keepOriginalSpacing(existingText, text);
  return readsAs(kept, fresh) ? kept : text;
}

/**
 * `resolve`: the value a scalar written with `${var.…}` stands for in the environment of the export (`--env`);
 * where it equals the new value, the reference is kept as written. The result then reads as the new version
 * once resolved.
 */
export interface UpdateOptions {
  resolve?: (text: string) => unknown;
}

function readsAsWith(text: string, value: unknown, resolve: UpdateOptions['resolve']): boolean {
  try {
    const read = parse(text) as unknown;
    return isDeepStrictEqual(resolve ? resolveAll(read, resolve) : read, value);
  } catch {
    return false;
  }
}

function resolveAll(value: unknown, resolve: NonNullable<UpdateOptions['resolve']>): unknown {
  if (typeof value === 'string') return resolve(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => resolveAll(item, resolve));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveAll(v, resolve)]));
  return value;
}

/** A line with its spacing normalized: runs of blanks as one, none at the end or inside flow brackets. */
function spacingFree(line: string): string {
  return line.replace(/\s+/g, ' ').replace(/ $/, '').replace(/([[{]) /g, '$1').replace(/ ([\]}])/g, '$1');
}

/** Lines of `updated` that equal lines of `original` but for spacing become the original lines (an LCS of the normalized lines). */
function keepOriginalSpacing(original: string, updated: string): string {
  const before = original.split('\n');
  const after = updated.split('\n');
  const out: string[] = [];
  let b = 0;
  let a = 0;
  for (const part of diffArrays(before.map(spacingFree), after.map(spacingFree))) {
    const count = part.value.length;
    if (part.added) {
      out.push(...after.slice(a, a + count));
      a += count;
    } else if (part.removed) {
      b += count;
    } else {
      out.push(...before.slice(b, b + count));
      a += count;
      b += count;
    }
  }
  return out.join('\n');
}

/** Anchors, aliases and merge keys make one node stand for several places; such a file is rewritten whole. */
function usesAliases(text: string): boolean {
  return /(^|[\s[{,:-])[&*][^\s,[\]{}]+/m.test(text) || /^\s*<<\s*:/m.test(text);
}

/** `target` updated to hold what `source` (a node of the fresh document) holds, keeping what did not change. */
type Resolve = UpdateOptions['resolve'];

function update(doc: Document, target: Node | null, source: Node | null, resolve: Resolve): Node | null {
  if (source === null) return null;
  if (isMap(target) && isMap(source)) {
    updateMap(doc, target, source, resolve);
    return target;
  }
  if (isSeq(target) && isSeq(source)) {
    updateSeq(doc, target, source, resolve);
    return target;
  }
  if (isScalar(target) && isScalar(source)) {
    if (target.value === source.value && typeof target.value === typeof source.value) return target;
    // a `${var.…}` whose value in this environment is still the new value stays a reference
    if (resolve && typeof target.value === 'string' && resolve(target.value) === source.value) return target;
    target.value = source.value;
    // the old quoting may not suit the new value (a plain `5` becoming the string "yes"); the writer chooses again
    target.type = source.type;
    target.format = undefined;
    return target;
  }
  // a different kind of value: the new node, with the old node's comments
  const replacement = doc.createNode(source.toJSON()) as Node;
  if (target) {
    replacement.commentBefore = target.commentBefore;
    replacement.comment = target.comment;
  }
  return replacement;
}

function keyOf(pair: Pair): string {
  return String(isScalar(pair.key) ? pair.key.value : pair.key);
}

function updateMap(doc: Document, target: YAMLMap, source: YAMLMap, resolve: Resolve): void {
  const wanted = new Map<string, Pair>();
  for (const pair of source.items) if (isPair(pair)) wanted.set(keyOf(pair), pair);
  // removed keys go, with the comments attached to them
  target.items = target.items.filter((pair) => wanted.has(keyOf(pair)));
  const present = new Map(target.items.map((pair) => [keyOf(pair), pair] as const));
  let previous: Pair | undefined;
  for (const [key, sourcePair] of wanted) {
    const existing = present.get(key);
    if (existing) {
      existing.value = update(doc, existing.value as Node | null, sourcePair.value as Node | null, resolve);
      previous = existing;
      continue;
    }
    // a new key: right after the key that precedes it in the new version (the schema's order), else first
    const added = doc.createPair(key, (sourcePair.value as Node | null)?.toJSON() ?? null) as Pair;
    const at = previous ? target.items.indexOf(previous) + 1 : 0;
    target.items.splice(at, 0, added);
    previous = added;
  }
}

function updateSeq(doc: Document, target: YAMLSeq, source: YAMLSeq, resolve: Resolve): void {
  const items = source.items as (Node | null)[];
  for (let i = 0; i < items.length; i++) {
    if (i < target.items.length) target.items[i] = update(doc, target.items[i] as Node | null, items[i], resolve);
    else target.items.push(doc.createNode(items[i]?.toJSON() ?? null));
  }
  target.items.length = items.length;
}
