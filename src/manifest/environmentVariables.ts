import { isSecretKey, SENSITIVE } from '../diff/secrets.js';
import { isJsonObject, type Diagnostic, type JsonValue, type RepositorySettings, type SourceRange, type VariableValue } from '../model/index.js';
import type { ParsedYaml } from './yamlDocument.js';

/**
 * `${var.NAME}` in the object files of sources/, patterns/ and rules/: replaced by the value dqctl.yaml gives
 * NAME in the environment chosen with `--env`, before the JSON Schema check, so the schema judges the values
 * the store will hold while diagnostics still point at the line in the file (substitution changes scalars,
 * never the shape, so every path keeps its position).
 *
 * A scalar that is exactly one reference takes the variable's value with its type (`max: 5` in dqctl.yaml
 * makes `max_count: ${var.max}` the number 5, as YAML would have typed it written in place); a reference
 * inside other text is spliced in as text (`db-${var.region}.internal`). Values are not scanned again: a
 * variable's value holding `${var.…}` is refused in dqctl.yaml, and `${var.${var.x}}` is refused where written.
 * `${NAME}` without `var.` is an environment-variable secret reference, resolved only when connecting
 * (datasource/secretReferences.ts), and is left as it is here.
 */
export const VARIABLE_PREFIX = '${var.';
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The environment a load runs with, and every environment dqctl.yaml defines (for the error messages). */
export class VariableScope {
  constructor(
    /** The name given with --env; null without --env. */
    readonly environment: string | null,
    readonly environments: RepositorySettings['environments'],
  ) {}

  /** The value of NAME in the chosen environment, undefined when it has none (or no environment is chosen). */
  valueOf(name: string): VariableValue | undefined {
    if (this.environment === null) return undefined;
    const vars = this.environments[this.environment]?.vars;
    return vars && Object.hasOwn(vars, name) ? vars[name] : undefined;
  }

  /** The environments whose vars define NAME, sorted. */
  definingEnvironments(name: string): string[] {
    return Object.keys(this.environments)
      .filter((e) => Object.hasOwn(this.environments[e].vars, name))
      .sort();
  }

  /** False when --env names an environment dqctl.yaml does not define (reported once, at dqctl.yaml). */
  get known(): boolean {
    return this.environment === null || Object.hasOwn(this.environments, this.environment);
  }

  environmentNames(): string[] {
    return Object.keys(this.environments).sort();
  }

  /**
   * What the outcome of substituting these variables depends on: reused parse results (parseCache.ts) are
   * valid only while this key is unchanged (the same values, or the same reasons they are missing).
   */
  keyOf(names: readonly string[]): string {
    return JSON.stringify([
      this.environment,
      this.environment === null ? this.environmentNames() : [],
      names.map((n) => [n, this.valueOf(n) ?? null, this.valueOf(n) === undefined ? this.definingEnvironments(n) : []]),
    ]);
  }
}

/** One reference found in a value: where in the text, and the name (null when malformed). */
interface Reference {
  start: number;
  end: number;
  name: string | null;
  fault?: 'recursive' | 'malformed';
}

/** Every `${var.…}` in a text, with `${var.${var.x}}` and `${var.}` / `${var.a-b}` / an unclosed one marked. */
export function findVariableReferences(text: string): Reference[] {
  const out: Reference[] = [];
  let at = text.indexOf(VARIABLE_PREFIX);
  while (at !== -1) {
    const close = text.indexOf('}', at);
    const nested = text.indexOf('${', at + 2);
    if (nested !== -1 && (close === -1 || nested < close)) {
      // `${var.${var.x}}`: the outer reference ends at the second `}`
      const outerClose = close === -1 ? -1 : text.indexOf('}', close + 1);
      const end = outerClose === -1 ? text.length : outerClose + 1;
      out.push({ start: at, end, name: null, fault: 'recursive' });
      at = text.indexOf(VARIABLE_PREFIX, end);
      continue;
    }
    const end = close === -1 ? text.length : close + 1;
    const name = close === -1 ? '' : text.slice(at + VARIABLE_PREFIX.length, close).trim();
    out.push(close !== -1 && VARIABLE_NAME.test(name) ? { start: at, end, name } : { start: at, end, name: null, fault: 'malformed' });
    at = text.indexOf(VARIABLE_PREFIX, end);
  }
  return out;
}

export function hasVariableReference(text: string): boolean {
  return text.includes(VARIABLE_PREFIX);
}

export interface Substitution {
  /** The document with every reference replaced (the parsed value itself when it had none). */
  value: JsonValue | undefined;
  diagnostics: Diagnostic[];
  /** The variable names the document uses, sorted (for the parse cache's key). */
  names: string[];
  /** False when a reference was left unreplaced (reported here, or through the unknown environment). */
  complete: boolean;
  /** Where a value came from a variable: JSON of the path → `${var.NAME}` = value, for schema diagnostics. */
  origins: Map<string, string>;
}

/**
 * Replaces the references of one parsed object file. Errors are diagnostics at the reference (its value or
 * key): a reference in a key, a recursive or malformed one, one used without --env, one the environment does
 * not define. `allowed: false` (files outside sources/, patterns/, rules/) reports every reference instead.
 */
export function substituteVariables(parsed: ParsedYaml, scope: VariableScope, allowed: boolean): Substitution {
  const diagnostics: Diagnostic[] = [];
  const names = new Set<string>();
  const origins = new Map<string, string>();
  if (!hasVariableReference(parsed.text)) return { value: parsed.value, diagnostics, names: [], origins, complete: true };
  let complete = true;

  const report = (path: Array<string | number>, onKey: boolean, code: string, summary: string, detail?: string) => {
    diagnostics.push({ severity: 'error', code, summary, detail, range: parsed.locate(path, onKey) });
  };

  const substituteText = (text: string, path: Array<string | number>): JsonValue => {
    const references = findVariableReferences(text);
    if (!allowed) {
      report(path, false, 'variable_not_allowed', `${VARIABLE_PREFIX}…} is replaced only in sources/, patterns/ and rules/, not in ${parsed.file}`, 'Write the value itself here.');
      return text;
    }
    let failed = false;
    for (const r of references) {
      const written = text.slice(r.start, r.end);
      if (r.fault === 'recursive') {
        report(path, false, 'variable_recursive', `${written} nests a variable inside a variable; a variable's name cannot come from another variable`, 'Name the variable directly: ${var.NAME}.');
        failed = true;
      } else if (r.fault === 'malformed' || r.name === null) {
        report(path, false, 'variable_invalid', `${written} is not a variable reference: write \${var.NAME}, NAME of letters, digits and _ (not starting with a digit)`);
        failed = true;
      } else {
        names.add(r.name);
        if (!scope.known) {
          failed = true; // the unknown environment is the one error to report
          continue;
        }
        const problem = missingVariable(r.name, scope);
        if (problem) {
          report(path, false, problem.code, problem.summary, problem.detail);
          failed = true;
        }
      }
    }
    if (failed) {
      complete = false;
      return text;
    }
    const value = resolveVariables(text, scope)!;
    const whole = references.length === 1 && references[0].start === 0 && references[0].end === text.length;
    // a password's value is never shown, not even in a diagnostic
    const shown = isSecretKey(String(path[path.length - 1] ?? '')) ? SENSITIVE : JSON.stringify(value);
    origins.set(JSON.stringify(path), whole ? `${text} = ${shown} (environment ${scope.environment})` : `${text} with environment ${scope.environment}`);
    return value;
  };

  const walk = (value: JsonValue, path: Array<string | number>): JsonValue => {
    if (typeof value === 'string') return hasVariableReference(value) ? substituteText(value, path) : value;
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i]));
    if (isJsonObject(value)) {
      const out: Record<string, JsonValue> = {};
      for (const [key, child] of Object.entries(value)) {
        if (hasVariableReference(key)) {
          report([...path, key], true, 'variable_in_key', `a key cannot be a variable: ${JSON.stringify(key)}; ${VARIABLE_PREFIX}NAME} may stand only for a value`, 'Keys name checks, columns and settings; they are the same in every environment. Put the variable in the value.');
        }
        out[key] = walk(child, [...path, key]);
      }
      return out;
    }
    return value;
  };
  const value = parsed.value === undefined ? undefined : walk(parsed.value, []);
  return { value, diagnostics, names: [...names].sort(), origins, complete: complete && diagnostics.length === 0 };
}

function missingVariable(name: string, scope: VariableScope): { code: string; summary: string; detail?: string } | null {
  const defining = scope.definingEnvironments(name);
  if (scope.environment === null) {
    const all = scope.environmentNames();
    return {
      code: 'variable_without_environment',
      summary:
        all.length === 0
          ? `\${var.${name}} needs an environment, and dqctl.yaml defines none (spec.environments.<name>.vars.${name})`
          : `\${var.${name}} needs an environment: pass --env with one of ${all.join(', ')}`,
      detail: defining.length === 0 ? undefined : `${name} is defined in ${defining.join(', ')}.`,
    };
  }
  if (scope.valueOf(name) !== undefined) return null;
  return {
    code: 'variable_undefined',
    summary: `the environment ${scope.environment} does not define the variable ${name}${
      defining.length === 0 ? '; no environment defines it' : `; ${defining.length === 1 ? 'it is defined in' : 'the environments defining it are'} ${defining.join(', ')}`
    }`,
    detail: `Add it to dqctl.yaml: spec.environments.${scope.environment}.vars.${name}.`,
  };
}

/** A variable in a file or folder name: names are object identities, the same in every environment. */
export function variableInFileName(path: string): Diagnostic | null {
  if (!hasVariableReference(path) && !decodedHasReference(path)) return null;
  const start = { line: 1, column: 1 };
  return {
    severity: 'error',
    code: 'variable_in_file_name',
    summary: `${JSON.stringify(path)}: a file or folder name cannot hold ${VARIABLE_PREFIX}…}; names are the same in every environment`,
    detail: 'Object names come from file paths (connection, schema, table, rule, policy). Use the same name in every environment, and variables in values.',
    range: { filename: path, start, end: start },
  };
}

function decodedHasReference(path: string): boolean {
  try {
    return hasVariableReference(decodeURIComponent(path));
  } catch {
    return false;
  }
}

/**
 * The checks of dqctl.yaml's environments that its schema cannot express: a variable's value holding
 * `${var.…}` (values are not expanded twice), and `--env` naming an environment that is not defined.
 */
export function environmentDiagnostics(settingsFile: ParsedYaml | null, scope: VariableScope, options: { settingsInvalid?: boolean } = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [environment, { vars }] of Object.entries(scope.environments)) {
    for (const [name, value] of Object.entries(vars)) {
      if (typeof value === 'string' && hasVariableReference(value)) {
        out.push({
          severity: 'error',
          code: 'variable_recursive',
          summary: `the variable ${name} of ${environment} refers to another variable (${value}); a variable's value is used as written, never expanded again`,
          detail: 'Write the value itself.',
          range: settingsFile?.locate(['spec', 'environments', environment, 'vars', name]),
        });
      }
    }
  }
  // an invalid dqctl.yaml has its own errors; its environments are unknown, not missing
  if (!scope.known && !options.settingsInvalid) {
    const all = scope.environmentNames();
    const range: SourceRange | undefined = settingsFile?.locate(all.length > 0 ? ['spec', 'environments'] : [], all.length > 0);
    out.push({
      severity: 'error',
      code: 'environment_unknown',
      summary:
        all.length === 0
          ? `--env ${scope.environment}: ${settingsFile ? 'dqctl.yaml defines no environments' : 'there is no valid dqctl.yaml to define it'} (spec.environments.${scope.environment}.vars)`
          : `--env ${scope.environment}: no such environment in dqctl.yaml; the environments are ${all.join(', ')}`,
      range,
    });
  }
  return out;
}

/**
 * The value a scalar written with `${var.…}` stands for in the scope's environment, exactly as loading would
 * make it; undefined when it holds no reference or one that cannot be resolved (export then treats the text as
 * written). Used by `export` to keep a reference where the live value still equals it.
 */
export function resolveVariables(text: string, scope: VariableScope): VariableValue | undefined {
  if (!hasVariableReference(text) || scope.environment === null || !scope.known) return undefined;
  const references = findVariableReferences(text);
  if (references.some((r) => r.name === null || scope.valueOf(r.name) === undefined)) return undefined;
  if (references.length === 1 && references[0].start === 0 && references[0].end === text.length) return scope.valueOf(references[0].name!);
  let out = '';
  let last = 0;
  for (const r of references) {
    out += text.slice(last, r.start) + String(scope.valueOf(r.name!));
    last = r.end;
  }
  return out + text.slice(last);
}

/** Every string of a parsed document with its references resolved (those that resolve). */
export function resolveDocument(value: JsonValue, scope: VariableScope): JsonValue {
  if (typeof value === 'string') return resolveVariables(value, scope) ?? value;
  if (Array.isArray(value)) return value.map((item) => resolveDocument(item, scope));
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveDocument(v, scope)]));
  return value;
}
