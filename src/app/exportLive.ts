import { isSecretKey, isSecretReference } from '../diff/secrets.js';
import { classifyPath, encodeNamePart, PROVIDER_SENSOR_SUFFIX, SAMPLE_TEMPLATE_SUFFIX, SENSOR_DEFINITION_FILE, SETTINGS_FILES, SQL_TEMPLATE_SUFFIX, suffixOfKind } from '../manifest/objectPaths.js';
import { SETTINGS_FILE } from '../manifest/repositorySource.js';
import { DEFAULT_SETTINGS } from '../manifest/settings.js';
import { compareKeys, isJsonObject, parseTableKey, sensorProviders, type JsonObject, type JsonValue, type LiveObject, type ObjectKey, type ObjectKind } from '../model/index.js';
import { readSchemaFile, SCHEMA_FILES, validateDocument, type DocumentKind } from '../schema/index.js';
import { emitYaml } from './emitYaml.js';
import { compareCodePoints, SchemaKeyOrder } from './orderBySchema.js';

/**
 * The live state as DQOps files: each object at the path DQOps derives its name from (in reverse; git-managed
 * objects at their origin file, which gives the same name), keys in the
 * order of the file kind's JSON Schema, a `yaml-language-server` line naming that schema. The same live state
 * always gives the same bytes, and loading the files gives back the same objects (same names, same hashes), so
 * a plan of an export against the store it came from shows no changes.
 *
 * Secrets: `${…}` references are written as they are; a literal secret only with `includeSecrets`, otherwise a
 * `${DQCTL_SECRET_<OBJECT>_<KEY>}` reference takes its place and is listed in `replacedSecrets`.
 * `onlyDrift`: only git-managed objects changed through the API since their last apply, at their origin files.
 *
 * Pure apart from reading the schema files (once per kind).
 */
export interface ExportOptions {
  /** Where the schemas are (a URL or a path, without the file name); default: the schemas' own `$id` URLs. */
  schemaBase?: string;
  includeSecrets?: boolean;
  onlyDrift?: boolean;
  kind?: ObjectKind;
  /** Only git-managed objects of this ownership namespace. */
  namespace?: string;
}

export interface ExportFile {
  /** Repository-relative, with '/'. */
  path: string;
  content: string;
  /** The object the file holds (a rule's `.py` belongs to its rule); absent for dqctl.yaml. */
  object?: ObjectKey & { contentHash: string; appliedHash: string | null; part: 'document' | 'module' | 'sensor_file' };
  /** Written only when the folder has no such file: a repository's own dqctl.yaml wins over ours. */
  onlyIfAbsent?: boolean;
}

export interface ReplacedSecret {
  object: string;
  /** Path inside the spec, e.g. `postgresql.password`. */
  path: string;
  variable: string;
}

export interface ExportResult {
  files: ExportFile[];
  /** How many objects were written. */
  objects: number;
  replacedSecrets: ReplacedSecret[];
  /** Objects that could not be written (a name no DQOps file name can hold) and other losses. */
  warnings: string[];
  /** Ownership namespaces of the git-managed objects written. */
  namespaces: string[];
}

const API_VERSION = 'dqo/v1';

export function exportLive(objects: readonly LiveObject[], options: ExportOptions = {}): ExportResult {
  const selected = objects
    .filter((o) => (options.kind ? o.kind === options.kind : true))
    .filter((o) => (options.namespace !== undefined ? o.managedBy === 'git' && o.owner === options.namespace : true))
    .filter((o) => (options.onlyDrift ? o.managedBy === 'git' && o.appliedHash !== o.contentHash : true))
    .sort(compareKeys);

  const files: ExportFile[] = [];
  const warnings: string[] = [];
  const replacedSecrets: ReplacedSecret[] = [];
  const usedVariables = new Set<string>();
  const namespaces = new Set<string>();
  let written = 0;

  for (const object of selected) {
    const label = `${object.kind} ${JSON.stringify(object.name)}`;
    const path = originPath(object) ?? objectPath(object.kind, object.name);
    if (!path) {
      warnings.push(`${label} is not exported: its name cannot be written as a DQOps file name`);
      continue;
    }
    const ref = { kind: object.kind, name: object.name, contentHash: object.contentHash, appliedHash: object.appliedHash };
    if (object.kind === 'dictionary') {
      // a dictionary is its CSV file, nothing more
      const content = typeof object.attachments.file_content === 'string' ? object.attachments.file_content : '';
      files.push({ path, content, object: { ...ref, part: 'document' } });
      if (object.managedBy === 'git') namespaces.add(object.owner);
      written++;
      continue;
    }
    const spec = options.includeSecrets ? object.spec : replaceSecrets(object, usedVariables, replacedSecrets);
    const document: JsonObject = { apiVersion: API_VERSION, kind: object.kind, spec };
    const violations = validateDocument(object.kind, document);
    if (violations.length > 0) {
      warnings.push(`${label} does not pass validation as a file (${violations[0].summary}); it is exported as it is`);
    }
    files.push({ path, content: renderDocument(object.kind, document, options.schemaBase), object: { ...ref, part: 'document' } });

    const { python_module: module, providers, ...others } = object.attachments;
    if (object.kind === 'rule' && typeof module === 'string') {
      files.push({ path: path.slice(0, -'.dqorule.yaml'.length) + '.py', content: module, object: { ...ref, part: 'module' } });
    } else if (module !== undefined) {
      others.python_module = module;
    }
    if (object.kind === 'sensor' && providers !== undefined) {
      const folder = path.slice(0, path.lastIndexOf('/') + 1);
      for (const [provider, files_] of sensorProviders(object.attachments)) {
        if (files_.definition !== undefined) {
          const providerDocument: JsonObject = { apiVersion: API_VERSION, kind: 'provider_sensor', spec: files_.definition };
          files.push({ path: `${folder}${provider}${PROVIDER_SENSOR_SUFFIX}`, content: renderDocument('provider_sensor', providerDocument, options.schemaBase), object: { ...ref, part: 'sensor_file' } });
        }
        if (files_.sqlTemplate !== undefined) {
          files.push({ path: `${folder}${provider}${SQL_TEMPLATE_SUFFIX}`, content: files_.sqlTemplate, object: { ...ref, part: 'sensor_file' } });
        }
        if (files_.sampleTemplate !== undefined) {
          files.push({ path: `${folder}${provider}${SAMPLE_TEMPLATE_SUFFIX}`, content: files_.sampleTemplate, object: { ...ref, part: 'sensor_file' } });
        }
      }
    } else if (providers !== undefined) {
      others.providers = providers;
    }
    if (Object.keys(others).length > 0) {
      warnings.push(`${label}: attachments ${Object.keys(others).sort().join(', ')} have no DQOps file and are not exported`);
    }
    if (object.managedBy === 'git') namespaces.add(object.owner);
    written++;
  }

  if (!options.onlyDrift && namespaces.size === 1) {
    const [namespace] = namespaces;
    if (namespace !== DEFAULT_SETTINGS.namespace) {
      files.push({ path: SETTINGS_FILE, content: renderSettings(namespace, options.schemaBase), onlyIfAbsent: true });
    }
  }
  files.sort((a, b) => compareCodePoints(a.path, b.path));
  return { files, objects: written, replacedSecrets, warnings, namespaces: [...namespaces].sort(compareCodePoints) };
}

/**
 * The file of an object, as DQOps derives names from paths in reverse; undefined when no file name can hold the
 * name (an empty part, a table name without a schema). Every path is checked by classifying it back.
 */
export function objectPath(kind: ObjectKind, name: string): string | undefined {
  let path: string | undefined;
  switch (kind) {
    case 'source': {
      const folder = segment(name);
      path = folder && `sources/${folder}/connection.dqoconnection.yaml`;
      break;
    }
    case 'table': {
      const parts = parseTableKey(name);
      const folder = parts && segment(parts.connection);
      const schema = parts && segment(parts.schema);
      path = parts && folder && schema && parts.table !== '' ? `sources/${folder}/${schema}.${encodeNamePart(parts.table)}.dqotable.yaml` : undefined;
      break;
    }
    case 'sensor': {
      const segments = name.split('/').map(segment);
      path = segments.every((s) => s !== undefined) ? `sensors/${segments.join('/')}/${SENSOR_DEFINITION_FILE}` : undefined;
      break;
    }
    case 'dictionary': {
      const segments = name.split('/').map(segment);
      path = segments.every((s) => s !== undefined) ? `dictionaries/${segments.join('/')}` : undefined;
      break;
    }
    case 'rule':
    case 'check':
    case 'default_table_checks':
    case 'default_column_checks': {
      const segments = name.split('/').map(segment);
      const top = kind === 'rule' ? 'rules' : kind === 'check' ? 'checks' : 'patterns';
      path = segments.every((s) => s !== undefined) ? `${top}/${segments.join('/')}${suffixOfKind(kind)}` : undefined;
      break;
    }
    case 'default_schedules':
    case 'default_notifications':
      path = SETTINGS_FILES[kind];
      break;
  }
  return path && pathHolds(path, kind, name) ? path : undefined;
}

/**
 * A git-managed object goes back to the file it came from (the author's spelling of its name, e.g. lower-case
 * `%2f`), so an export into its own checkout never writes a second file for it; the file must still give
 * exactly this object's name.
 */
function originPath(object: LiveObject): string | undefined {
  if (object.managedBy !== 'git' || !object.originFile) return undefined;
  return pathHolds(object.originFile, object.kind, object.name) ? object.originFile : undefined;
}

function pathHolds(path: string, kind: ObjectKind, name: string): boolean {
  const back = classifyPath(path);
  return back.type === 'object' && back.kind === kind && back.name === name;
}

/** One path segment: encoded as DQOps encodes names, and never `.` or `..` (which would leave the folder). */
function segment(part: string): string | undefined {
  if (part === '') return undefined;
  const encoded = encodeNamePart(part);
  return encoded === '.' || encoded === '..' ? encoded.replace(/\./g, '%2E') : encoded;
}

/** Literal secrets → `${DQCTL_SECRET_<OBJECT>_<KEY>}`, unique across the export. */
function replaceSecrets(object: LiveObject, used: Set<string>, replaced: ReplacedSecret[]): JsonObject {
  const walk = (value: JsonValue, path: string[]): JsonValue => {
    if (Array.isArray(value)) return value.map((item) => walk(item, path));
    if (!isJsonObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...path, key];
      if (isSecretKey(key) && isLiteralSecret(child)) {
        const variable = uniqueVariable(object.name, childPath, used);
        replaced.push({ object: `${object.kind} ${JSON.stringify(object.name)}`, path: childPath.join('.'), variable });
        out[key] = `\${${variable}}`;
      } else {
        out[key] = walk(child, childPath);
      }
    }
    return out;
  };
  return walk(object.spec, []) as JsonObject;
}

function isLiteralSecret(value: JsonValue): boolean {
  if (value === null || typeof value === 'object') return false;
  return value !== '' && !isSecretReference(value);
}

function uniqueVariable(objectName: string, path: string[], used: Set<string>): string {
  const candidates = [`DQCTL_SECRET_${envPart(objectName)}_${envPart(path[path.length - 1])}`, `DQCTL_SECRET_${envPart(objectName)}_${envPart(path.join('_'))}`];
  let variable = candidates.find((c) => !used.has(c));
  for (let n = 2; variable === undefined; n++) if (!used.has(`${candidates[1]}_${n}`)) variable = `${candidates[1]}_${n}`;
  used.add(variable);
  return variable;
}

function envPart(text: string): string {
  const part = text.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return part === '' ? 'X' : part;
}

const orders = new Map<DocumentKind, SchemaKeyOrder>();

function orderFor(kind: DocumentKind): SchemaKeyOrder {
  let order = orders.get(kind);
  if (!order) {
    order = new SchemaKeyOrder(readSchemaFile(kind));
    orders.set(kind, order);
  }
  return order;
}

const schemaIds = new Map<DocumentKind, string>();

export function schemaReference(kind: DocumentKind, schemaBase?: string): string {
  if (schemaBase !== undefined && schemaBase !== '') return `${schemaBase.replace(/\/+$/, '')}/${SCHEMA_FILES[kind]}`;
  let id = schemaIds.get(kind);
  if (id === undefined) {
    const declared = readSchemaFile(kind).$id;
    id = typeof declared === 'string' ? declared : SCHEMA_FILES[kind];
    schemaIds.set(kind, id);
  }
  return id;
}

function renderDocument(kind: DocumentKind, document: JsonObject, schemaBase: string | undefined): string {
  const body = emitYaml(orderFor(kind).order(document));
  return `# yaml-language-server: $schema=${schemaReference(kind, schemaBase)}\n${body}`;
}

function renderSettings(namespace: string, schemaBase: string | undefined): string {
  return renderDocument('settings', { apiVersion: 'dqctl/v1', kind: 'settings', spec: { namespace } }, schemaBase);
}
