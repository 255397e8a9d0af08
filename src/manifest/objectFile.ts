import { appendAll, isJsonObject, isObjectKind, type Diagnostic, type JsonObject, type ObjectKind } from '../model/index.js';
import { coerceQuotedScalars, validateDocument, type DocumentKind } from '../schema/index.js';
import { substituteVariables, type VariableScope } from './environmentVariables.js';
import { PROVIDER_SENSOR_SUFFIX, suffixOfKind } from './objectPaths.js';
import type { ParsedFile } from './parsedFile.js';
import { documentSemantics } from './semanticChecks.js';
import { parseYamlFile, type ParsedYaml } from './yamlDocument.js';

// One object file checked on its own (no other file needed): what loadRepository.ts does for each file, and what
// the parse workers (parseWorkers.ts) do for a share of the files of a cold load.

const API_VERSION = 'dqo/v1';

/** What parseObjectFile is told of a file: its path, and the kind and name its path gives. */
export interface ObjectFileItem {
  path: string;
  kind: ObjectKind | 'provider_sensor';
  name: string;
  connection?: string;
}

/** The folders whose files may use `${var.NAME}`: the connections and tables, the policies, rules, sensors and checks. */
const VARIABLE_FOLDERS = ['sources/', 'patterns/', 'rules/', 'sensors/', 'checks/'];

/**
 * One object file on its own: YAML, envelope (apiVersion, kind), `${var.…}` substitution, then the JSON Schema
 * on the substituted values (located in the file as written).
 */
export function parseObjectFile(
  item: ObjectFileItem,
  text: string,
  scope: VariableScope,
): Omit<ParsedFile, 'version'> {
  const { parsed: written, diagnostics: yamlDiagnostics } = parseYamlFile(item.path, text);
  const fileDiagnostics = [...yamlDiagnostics];
  let parsed = written;
  let variables: ParsedFile['variables'];
  if (written) {
    const envelope = envelopeDiagnostics(item.kind, written);
    appendAll(fileDiagnostics, envelope);
    if (envelope.length === 0) {
      const allowed = VARIABLE_FOLDERS.some((folder) => item.path.startsWith(folder));
      const substitution = substituteVariables(written, scope, allowed);
      if (substitution.names.length > 0) variables = { names: substitution.names, key: scope.keyOf(substitution.names) };
      appendAll(fileDiagnostics, substitution.diagnostics);
      if (!substitution.complete) {
        // the values are unknown (an error said why): nothing to judge, nothing to load
        return { text, diagnostics: fileDiagnostics, variables };
      }
      parsed = substitution.value === written.value ? written : { ...written, value: substitution.value };
      appendAll(fileDiagnostics, schemaDiagnostics(item.kind, parsed, substitution.origins));
    }
  }
  const hasErrors = fileDiagnostics.some((d) => d.severity === 'error');
  if (!parsed || hasErrors) return { text, diagnostics: fileDiagnostics, variables };
  const document = parsed.value as JsonObject;
  const rawSpec = isJsonObject(document.spec) ? document.spec : {};
  // a provider file is read as part of its sensor: its spec is all that is used
  const kind = item.kind === 'provider_sensor' ? 'sensor' : item.kind;
  return {
    text,
    diagnostics: fileDiagnostics,
    variables,
    rawSpec,
    loaded: { kind, name: item.name, connection: item.connection, file: item.path, locate: parsed.locate, semantics: documentSemantics(kind, rawSpec, parsed.locate) },
  };
}

function suffixOf(kind: ObjectKind | 'provider_sensor'): string {
  return kind === 'provider_sensor' ? PROVIDER_SENSOR_SUFFIX : suffixOfKind(kind);
}

function envelopeDiagnostics(expectedKind: ObjectKind | 'provider_sensor', parsed: ParsedYaml): Diagnostic[] {
  const doc = parsed.value;
  if (!isJsonObject(doc)) {
    return [
      {
        severity: 'error',
        code: 'not_a_document',
        summary: doc === undefined || doc === null ? 'the file is empty' : 'the file must hold a mapping with apiVersion, kind and spec',
        range: parsed.locate([]),
      },
    ];
  }
  const out: Diagnostic[] = [];
  if (doc.apiVersion !== API_VERSION) {
    out.push({
      severity: 'error',
      code: 'wrong_api_version',
      summary:
        doc.apiVersion === undefined ? `missing apiVersion (expected ${API_VERSION})` : `apiVersion must be ${API_VERSION}, not ${JSON.stringify(doc.apiVersion)}`,
      range: parsed.locate(doc.apiVersion === undefined ? [] : ['apiVersion']),
    });
  }
  if (doc.kind === undefined) {
    out.push({ severity: 'error', code: 'wrong_kind', summary: `missing kind (expected ${expectedKind})`, range: parsed.locate([]) });
  } else if (!isObjectKind(doc.kind) && doc.kind !== 'provider_sensor') {
    out.push({
      severity: 'error',
      code: 'wrong_kind',
      summary: `unknown kind ${JSON.stringify(doc.kind)} (expected ${expectedKind} in a ${suffixOf(expectedKind)} file)`,
      range: parsed.locate(['kind']),
    });
  } else if (doc.kind !== expectedKind) {
    out.push({
      severity: 'error',
      code: 'kind_mismatch',
      summary: `kind ${doc.kind} does not match the file name: a ${suffixOf(expectedKind)} file holds kind ${expectedKind}`,
      detail: `kind ${doc.kind} belongs in a ${suffixOf(doc.kind)} file.`,
      range: parsed.locate(['kind']),
    });
  }
  return out;
}

/** `origins`: the values that came from a variable, so a wrong one says which variable gave it. */
export function schemaDiagnostics(kind: DocumentKind, parsed: ParsedYaml, origins?: ReadonlyMap<string, string>): Diagnostic[] {
  const violations = schemaViolationDiagnostics(kind, parsed, origins);
  if (!violations.some((d) => d.code === 'wrong_type')) return violations;
  // the value is this parse's own (a cache keeps the result with these diagnostics), so it may be converted in place
  const quoted = coerceQuotedScalars(kind, parsed.value).map(
    (q): Diagnostic => ({
      severity: 'warning',
      code: 'quoted_scalar',
      summary: `${JSON.stringify(q.written)} is a quoted ${typeof q.value}; read as ${String(q.value)}, as DQOps does`,
      detail: 'DQOps converts a quoted number or boolean to the type its field wants; write it without quotes.',
      range: parsed.locate(q.path, false),
    }),
  );
  return quoted.length === 0 ? violations : [...quoted, ...schemaViolationDiagnostics(kind, parsed, origins)];
}

function schemaViolationDiagnostics(kind: DocumentKind, parsed: ParsedYaml, origins?: ReadonlyMap<string, string>): Diagnostic[] {
  return validateDocument(kind, parsed.value).map((v) => {
    const origin = v.onKey ? undefined : origins?.get(JSON.stringify(v.path));
    return {
      severity: 'error' as const,
      code: v.code,
      summary: v.summary,
      detail: origin ? [`The value comes from ${origin}.`, v.detail].filter(Boolean).join(' ') : v.detail,
      range: parsed.locate(v.path, v.onKey),
    };
  });
}

