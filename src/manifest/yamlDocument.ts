import { createRequire } from 'node:module';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode, type YAMLError } from 'yaml';
import { findUnstorableText, unstorableValues, type Diagnostic, type JsonValue, type SourceRange } from '../model/index.js';

// js-yaml's CommonJS build, not its ES module build: on Node 20 the same load of the same files takes 2.5-3x less
// CPU through it (bench/scaleStep.ts `parse`, the baseline of issue 25, loads it the same way).
const { CORE_SCHEMA, load } = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');

/**
 * One YAML file parsed with its positions kept, so that any value found wrong later (by the schema, by a
 * semantic check) can be reported at its file:line:column.
 */
export interface ParsedYaml {
  file: string;
  text: string;
  value: JsonValue | undefined;
  /** Range of the value at `path` (or of its key when `onKey`), falling back to the nearest existing parent. */
  locate(path: ReadonlyArray<string | number>, onKey?: boolean): SourceRange;
}

/** Aliases may share nodes, but a document may not expand to more than this many nodes ("billion laughs"). */
export const MAX_EXPANDED_NODES = 1_000_000;

/**
 * Two parsers, for speed: js-yaml (about 2.5x faster) reads every file; the `yaml` library, which keeps
 * positions, parses a file again only when something in it must be located (a diagnostic) or when js-yaml
 * refuses it (so syntax errors and duplicate keys are reported with `yaml`'s precise ranges). Both read
 * YAML 1.2's core schema, so they agree on values (`yes` is a string, dates stay strings).
 */
export function parseYamlFile(file: string, text: string): { parsed?: ParsedYaml; diagnostics: Diagnostic[] } {
  try {
    return parseYamlFileWithin(file, text);
  } catch (error) {
    // both parsers recurse: a document nested some thousands of levels deep overflows the stack
    if (!(error instanceof RangeError)) throw error;
    return { diagnostics: [tooDeep(file, null)] };
  }
}

/** No DQOps file nests deeper than about 12 levels; deeper documents are refused before anything walks them. */
export const MAX_NESTING_DEPTH = 100;

function tooDeep(file: string, range: SourceRange | null): Diagnostic {
  const start = { line: 1, column: 1 };
  return {
    severity: 'error',
    code: 'too_deeply_nested',
    summary: `the document nests deeper than ${MAX_NESTING_DEPTH} levels; refusing to read it`,
    detail: 'No DQOps file needs that many levels of mappings and lists.',
    range: range ?? { filename: file, start, end: start },
  };
}

/** The first value (its path) below MAX_NESTING_DEPTH levels, or null. Iterative. */
function tooDeepPath(value: JsonValue | undefined): Array<string | number> | null {
  const stack: Array<{ value: JsonValue | undefined; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= MAX_NESTING_DEPTH) return path;
    if (Array.isArray(current)) current.forEach((child, i) => stack.push({ value: child, path: [...path, i] }));
    else for (const [key, child] of Object.entries(current)) stack.push({ value: child, path: [...path, key] });
  }
  return null;
}

function parseYamlFileWithin(file: string, text: string): { parsed?: ParsedYaml; diagnostics: Diagnostic[] } {
  let value: JsonValue | undefined;
  try {
    value = load(text, { schema: CORE_SCHEMA }) as JsonValue | undefined; // an error is read again with `yaml` below
  } catch {
    return parseWithPositions(file, text);
  }
  const locate = locatorOf(file, text);
  // js-yaml shares aliased nodes instead of copying them; walking such a document later would not end.
  if (text.includes('*') && expandedSize(value, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES) {
    return {
      diagnostics: [
        {
          severity: 'error',
          code: 'yaml_alias_expansion',
          summary: `the YAML aliases of this file expand to more than ${MAX_EXPANDED_NODES.toLocaleString('en-US')} values; refusing to read it`,
          detail: 'Anchors and aliases (&a / *a) nested inside each other grow exponentially ("billion laughs").',
          range: locate([]),
        },
      ],
    };
  }
  const parsed = { file, text, value, locate };
  // one cheap walk clears nearly every file; the walks that find the path of a fault run only after it found one
  const suspect = screenDocument(value, text.includes('\\') || findUnstorableText(text) !== null);
  if (suspect === 'clear') return { parsed, diagnostics: [] };
  const deep = tooDeepPath(value);
  if (deep) return { diagnostics: [tooDeep(file, locateOrNull(locate, deep))] };
  const unstorable = storabilityDiagnostics(parsed);
  return unstorable.length > 0 ? { diagnostics: unstorable } : { parsed, diagnostics: [] };
}

/**
 * Whether a document may be too deep (a mapping or list at MAX_NESTING_DEPTH levels) or hold a value the store
 * cannot (see storabilityDiagnostics), in one walk that builds no path. `checkText`: whether its strings may hold
 * unstorable text; they cannot when the file's text holds none and no escape (`\`) could make some. Iterative.
 */
function screenDocument(value: JsonValue | undefined, checkText: boolean): 'clear' | 'suspect' {
  const values: Array<JsonValue | undefined> = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (typeof current === 'string') {
      if (checkText && findUnstorableText(current)) return 'suspect';
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return 'suspect';
    } else if (current !== null && typeof current === 'object') {
      if (depth >= MAX_NESTING_DEPTH) return 'suspect';
      if (Array.isArray(current)) {
        for (const child of current) {
          values.push(child);
          depths.push(depth + 1);
        }
      } else {
        for (const key in current) {
          if (checkText && findUnstorableText(key)) return 'suspect';
          values.push(current[key]);
          depths.push(depth + 1);
        }
      }
    }
  }
  return 'clear';
}

/**
 * Locates paths in a file whose document an earlier process parsed (the persisted parse cache): its positions are
 * found from `text` only when something must be located, as for a file js-yaml read.
 */
export function locatorOf(file: string, text: string): ParsedYaml['locate'] {
  let located: ReturnType<typeof positionsOf> | undefined;
  return (path, onKey) => {
    located ??= positionsOf(file, text);
    return located.locate(path, onKey);
  };
}

function locateOrNull(locate: ParsedYaml['locate'], path: Array<string | number>): SourceRange | null {
  try {
    return locate(path);
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** At most this many unstorable values are reported per file: the first ones show the fault. */
const MAX_UNSTORABLE_REPORTED = 20;

/**
 * What `apply` could not store: a NUL or a lone surrogate in a key or a value (PostgreSQL refuses both), and
 * `.inf` / `.nan` (JSON has no such numbers: they would be stored as null). Refused here, at the value.
 */
function storabilityDiagnostics(parsed: ParsedYaml): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const found of unstorableValues(parsed.value)) {
    const number = found.reason.startsWith('a number');
    diagnostics.push({
      severity: 'error',
      code: number ? 'unstorable_number' : 'unstorable_text',
      summary: number
        ? 'a number the live store cannot hold: .inf, -.inf and .nan have no JSON form'
        : `${found.inKey ? 'a key' : 'a value'} holding ${found.reason}, which the live store cannot hold`,
      detail: number
        ? 'Write a finite number, or leave the setting out.'
        : 'PostgreSQL stores neither NUL characters nor unpaired UTF-16 surrogates (a "\\ud800" escape without its pair); remove the escape.',
      range: parsed.locate(found.path, found.inKey),
    });
    if (diagnostics.length >= MAX_UNSTORABLE_REPORTED) break;
  }
  return diagnostics;
}

/** Number of values of a document with aliases expanded, counted without expanding them (memoized). */
function expandedSize(value: JsonValue | undefined, limit: number): number {
  const memo = new Map<object, number>();
  const size = (v: JsonValue | undefined): number => {
    if (v === null || typeof v !== 'object') return 1;
    const known = memo.get(v);
    if (known !== undefined) return known;
    memo.set(v, limit + 1); // a cycle counts as too big
    let total = 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      total += size(child);
      if (total > limit) break;
    }
    memo.set(v, total);
    return total;
  };
  return size(value);
}

const YAML_MESSAGES: Array<[RegExp, string]> = [
  [/multiple documents/i, 'a file must hold one YAML document; remove the second "---" document'],
  [/tab characters? (must not|are not allowed)|tabs are not allowed/i, 'tabs are not allowed for indentation in YAML; indent with spaces'],
];

function friendlyYamlMessage(message: string): string {
  const first = message.split('\n')[0];
  for (const [pattern, replacement] of YAML_MESSAGES) if (pattern.test(first)) return replacement;
  return first;
}

/**
 * The slow path of parseYamlFile: the `yaml` library reads the file with positions (a file js-yaml refused).
 * Exported so that tests can check that both paths give the same values and diagnostics.
 */
export function parseWithPositions(file: string, text: string): { parsed?: ParsedYaml; diagnostics: Diagnostic[] } {
  const positions = positionsOf(file, text);
  const { doc, toRange } = positions;
  const diagnostics: Diagnostic[] = [];
  const seenLines = new Set<number>();
  const lineCount = text.split('\n').length;
  const report = (range: SourceRange, duplicate: boolean, message: string) => {
    if (range.start.line > lineCount) {
      // the library reports unterminated constructs at the end of the file; that line does not exist
      range.start = { line: lineCount, column: 1 };
      range.end = range.start;
    }
    if (seenLines.has(range.start.line)) return; // one report per line: the rest are consequences
    seenLines.add(range.start.line);
    diagnostics.push({
      severity: 'error',
      code: duplicate ? 'duplicate_key' : 'yaml_syntax',
      summary: duplicate ? 'duplicate key: the same key appears twice in one mapping' : `malformed YAML: ${friendlyYamlMessage(message)}`,
      detail: duplicate ? 'YAML forbids repeating a key in one mapping; remove or merge the second one.' : undefined,
      range,
    });
  };
  for (const error of syntaxErrorsToReport(doc.errors, text)) report(toRange(error.start, error.end), false, error.message);
  for (const key of duplicateKeys(doc)) report(toRange(key.range![0], key.range![1]), true, '');
  diagnostics.sort((a, b) => a.range!.start.line - b.range!.start.line || a.range!.start.column - b.range!.start.column);
  if (diagnostics.length > 0) return { diagnostics };
  let value: JsonValue | undefined;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) as JsonValue | undefined;
  } catch (error) {
    return {
      diagnostics: [
        { severity: 'error', code: 'yaml_syntax', summary: `malformed YAML: ${friendlyYamlMessage((error as Error).message)}`, range: toRange(0, 0) },
      ],
    };
  }
  const parsed = { file, text, value, locate: positions.locate };
  const deep = tooDeepPath(value);
  if (deep) return { diagnostics: [tooDeep(file, locateOrNull(positions.locate, deep))] };
  const unstorable = storabilityDiagnostics(parsed);
  return unstorable.length > 0 ? { diagnostics: unstorable } : { parsed, diagnostics };
}

/**
 * The `yaml` library's errors as a person wants them: at the offending text, not at the indentation before it
 * (the library gives "All mapping items must start at the same column" at column 1), and without the
 * consequences of a tab: a line indented with a tab throws off the indentation of the lines after it, each of
 * which the library reports again although it is correct, so the tab's error is the last one reported.
 */
function syntaxErrorsToReport(errors: readonly YAMLError[], text: string): Array<{ start: number; end: number; message: string }> {
  const out: Array<{ start: number; end: number; message: string }> = [];
  const ordered = [...errors].sort((a, b) => a.pos[0] - b.pos[0]);
  for (const error of ordered) {
    let start = error.pos[0];
    while (text[start] === ' ') start++;
    out.push({ start, end: Math.max(start, error.pos[1]), message: error.message });
    if (error.code === 'TAB_AS_INDENT') break;
  }
  return out;
}

/**
 * The keys repeated in a mapping, in one pass with a set per mapping (the library's own `uniqueKeys` compares
 * each key with all before it: quadratic, minutes for a mapping of 100,000 keys). Keys are compared as JSON
 * sees them, so `1:` and `"1":` are one key, as js-yaml also decides. Iterative: documents may nest deeply.
 */
function duplicateKeys(doc: Document): YamlNode[] {
  const found: YamlNode[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const keys = new Set<string>();
      for (const item of node.items) {
        const key = isScalar(item.key) ? String(item.key.value) : undefined;
        if (key !== undefined && item.key && (item.key as YamlNode).range) {
          if (keys.has(key)) found.push(item.key as YamlNode);
          keys.add(key);
        }
        stack.push(item.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return found;
}

/** The `yaml` library's view of a file: positions of every node, errors with ranges. */
function positionsOf(file: string, text: string) {
  const lineCounter = new LineCounter();
  // Positions only: aliases are not expanded here, so any number of them is fine. Duplicate keys are found by
  // duplicateKeys() in linear time, not by the library's quadratic uniqueKeys.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false, strict: true });
  const toRange = (start: number, end: number): SourceRange => {
    const s = lineCounter.linePos(start);
    const e = lineCounter.linePos(Math.max(start, end));
    return { filename: file, start: { line: s.line, column: s.col }, end: { line: e.line, column: e.col } };
  };
  const locate = (path: ReadonlyArray<string | number>, onKey = false): SourceRange => {
    let node: unknown = doc.contents;
    let keyNode: unknown;
    let last: YamlNode | null = (doc.contents as YamlNode | null) ?? null;
    for (const segment of path) {
      keyNode = undefined;
      if (isMap(node)) {
        const pair = node.items.find((item) => isPair(item) && keyText(item.key) === String(segment));
        if (!pair) break;
        keyNode = pair.key;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
        keyNode = undefined;
      } else {
        break;
      }
      if (node && (node as YamlNode).range) last = node as YamlNode;
      else if (keyNode && (keyNode as YamlNode).range) last = keyNode as YamlNode;
    }
    const target = onKey && keyNode && (keyNode as YamlNode).range ? (keyNode as YamlNode) : last;
    if (!target?.range) return toRange(0, 0);
    return toRange(target.range[0], target.range[1]);
  };
  return { doc, toRange, locate };
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}
