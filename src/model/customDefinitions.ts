/**
 * What the objects of a customized DQOps home carry beside their spec, in one place for the manifest that
 * writes them, export that writes them back as files, and the check runner that reads them:
 * - a sensor (`sensors/<target>/<category>/<name>/`) carries, per provider, its `<provider>.dqoprovidersensor.yaml`
 *   spec (`provider_definition`), its `<provider>.sql.jinja2` text (`sql_template`) and, when it has one, its
 *   error sampling template `<provider>.sample.sql.jinja2` (`sample_sql_template`), under `providers`;
 * - a dictionary (`dictionaries/<name>.csv`) carries the CSV text as `file_content`;
 * - a rule carries its `.py` as `python_module`.
 */
import { isJsonObject, type JsonObject } from './json.js';

export interface SensorProviderFiles {
  /** The provider file's spec (type, supports_grouping, …); undefined when the folder has only a template. */
  definition?: JsonObject;
  /** The Jinja2 SQL template; undefined when the folder has only the provider file. */
  sqlTemplate?: string;
  /** The Jinja2 error sampling template (`<provider>.sample.sql.jinja2`); undefined when the sensor has none. */
  sampleTemplate?: string;
}

/** The provider files of a sensor object, by provider name (`postgresql`). */
export function sensorProviders(attachments: JsonObject): Map<string, SensorProviderFiles> {
  const out = new Map<string, SensorProviderFiles>();
  const providers = attachments.providers;
  if (!isJsonObject(providers)) return out;
  for (const [provider, files] of Object.entries(providers)) {
    if (!isJsonObject(files)) continue;
    const entry: SensorProviderFiles = {};
    if (isJsonObject(files.provider_definition)) entry.definition = files.provider_definition;
    if (typeof files.sql_template === 'string') entry.sqlTemplate = files.sql_template;
    if (typeof files.sample_sql_template === 'string') entry.sampleTemplate = files.sample_sql_template;
    out.set(provider, entry);
  }
  return out;
}

/** The attachments of a sensor object holding these provider files. */
export function sensorAttachments(providers: ReadonlyMap<string, SensorProviderFiles>): JsonObject {
  const out: JsonObject = {};
  for (const provider of [...providers.keys()].sort()) {
    const files = providers.get(provider)!;
    const entry: JsonObject = {};
    if (files.definition !== undefined) entry.provider_definition = files.definition;
    if (files.sqlTemplate !== undefined) entry.sql_template = files.sqlTemplate;
    if (files.sampleTemplate !== undefined) entry.sample_sql_template = files.sampleTemplate;
    out[provider] = entry;
  }
  return { providers: out };
}

/** `${dictionary://name.csv}`: a list parameter's element replaced by the dictionary's entries. */
export const DICTIONARY_TOKEN = /^\$\{dictionary:\/\/(.+)\}$/;

/** The dictionary name an element refers to, or undefined when it is no dictionary reference. */
export function dictionaryReference(value: unknown): string | undefined {
  return typeof value === 'string' ? DICTIONARY_TOKEN.exec(value)?.[1] : undefined;
}

/**
 * A dictionary's entries as DQOps reads them: every line split on commas, empty pieces skipped, each entry
 * once, in the order of first appearance (no trimming, no quoting: a CSV of one value per line).
 */
export function dictionaryEntries(fileContent: string): string[] {
  const entries = new Set<string>();
  for (const line of fileContent.split(/\r?\n|\r/)) {
    for (const entry of line.split(',')) if (entry !== '') entries.add(entry);
  }
  return [...entries];
}

/**
 * A list parameter with its `${dictionary://…}` elements expanded; an unknown dictionary leaves the element as
 * it is (DQOps does the same; `validate` reports the reference before).
 */
export function expandDictionaries(list: readonly unknown[], dictionaries: ReadonlyMap<string, string>): unknown[] {
  const out: unknown[] = [];
  for (const element of list) {
    const name = dictionaryReference(element);
    const content = name === undefined ? undefined : dictionaries.get(name);
    if (content === undefined) out.push(element);
    else out.push(...dictionaryEntries(content));
  }
  return out;
}

/**
 * The name of the check definition a custom check of a table or policy runs, as DQOps looks it up:
 * `<target>/<check type>[/<time scale>]/<category>/<check name>`, the category `custom` for the root `custom:`
 * map (`column/monitoring/daily/nulls/my_check`; profiling checks have no time scale).
 */
export function checkDefinitionName(check: { target: 'table' | 'column'; checkType: string; timeScale?: string; category: string; name: string }): string {
  const scale = check.checkType === 'profiling' || check.timeScale === undefined ? [] : [check.timeScale];
  return [check.target, check.checkType, ...scale, check.category, check.name].join('/');
}
