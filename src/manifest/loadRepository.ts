import { createHash } from 'node:crypto';
import { contentHash } from '../diff/contentHash.js';
import { normalizeSpec } from '../diff/normalizeSpec.js';
import {
  appendAll,
  compareKeys,
  DqError,
  forgetSpecJson,
  withSpecJson,
  findUnstorableText,
  type DesiredObject,
  type Diagnostic,
  sensorAttachments,
  type JsonObject,
  type ObjectKind,
  type SensorProviderFiles,
  type ProgressReporter,
} from '../model/index.js';
import type { DesiredState } from './desiredState.js';
import { DirectorySource } from './directorySource.js';
import { environmentDiagnostics, variableInFileName, VariableScope } from './environmentVariables.js';
import { parseObjectFile, schemaDiagnostics } from './objectFile.js';
import { parsedFileOf, parseJobResult, parseWorkerThreshold, ParseWorkers, type ParseWorkerOptions } from './parseWorkers.js';
import type { ParseCache, ParsedFile } from './parseCache.js';
import { specShardOf } from './persistedParseCache.js';
import { classifyPath, PROVIDER_SENSOR_SUFFIX, sensorFilePart, SQL_TEMPLATE_SUFFIX } from './objectPaths.js';
import type { RepositorySource } from './repositorySource.js';
import { runSemanticChecks, type LoadedObject } from './semanticChecks.js';
import { DEFAULT_SETTINGS, readSettings, type RepositorySettings } from './settings.js';
import { parseYamlFile, type ParsedYaml } from './yamlDocument.js';

const READ_CONCURRENCY = 64;
/** With parse workers, the files read between two turns of the event loop (when the workers' answers are heard). */
const TURN_EVERY = 16;

export interface LoadOptions {
  /** Reuse what earlier loads parsed from files that did not change (the reconcile loop; see parseCache.ts). */
  cache?: ParseCache;
  /** Told of every object file read (a terminal's progress bar). */
  progress?: ProgressReporter;
  /**
   * The environment of dqctl.yaml (`spec.environments.<name>`) whose vars replace `${var.NAME}` in the object
   * files (`--env NAME`); absent or null: none, and a file using `${var.…}` is an error.
   */
  environment?: string | null;
  /** The worker threads that parse a share of the files not in the cache (parseWorkers.ts; default: by the cores). */
  parseWorkers?: ParseWorkerOptions;
  /**
   * Called after each spec shard the load writes (a persisted cache, files parsed now): the caller may collect the
   * garbage there (src/app/releaseGarbage.ts), which a load of 100,000 files makes faster than V8 collects it.
   */
  collectGarbage?: () => void;
}

/**
 * Reads a repository into its desired state. Every problem becomes a diagnostic (all files are read, all
 * errors reported at once); nothing here throws for bad content, only for an unreadable repository.
 */
export async function loadRepository(source: RepositorySource | string, options: LoadOptions = {}): Promise<DesiredState> {
  return (await load(source, options, 'desired')).state;
}

/** What `validate` needs of a repository: every finding, the texts of the files that have some, the number of objects. */
export interface RepositoryFindings {
  diagnostics: Diagnostic[];
  texts: Map<string, string>;
  /** Objects of the files without errors. */
  objectCount: number;
}

/**
 * The findings of loadRepository, without its objects: the same checks of every file and across files, but the
 * specs of the files a persisted parse cache answers for are never read (validate reads its small index only).
 */
export async function loadRepositoryFindings(source: RepositorySource | string, options: LoadOptions = {}): Promise<RepositoryFindings> {
  const { state, objectCount } = await load(source, options, 'findings');
  return { diagnostics: state.diagnostics, texts: state.texts, objectCount };
}

async function load(source: RepositorySource | string, options: LoadOptions, want: 'desired' | 'findings'): Promise<{ state: DesiredState; objectCount: number }> {
  const cache = options.cache;
  const repo: RepositorySource = typeof source === 'string' ? new DirectorySource(source) : source;
  const diagnostics: Diagnostic[] = [];
  const texts = new Map<string, string>();
  // Without a cache's entries (a first load), parse workers start while the folder is still listed, once it holds
  // enough files (they load their modules meanwhile); the load configures them with its settings below, or ends
  // them. A load with a cache counts what it must parse first.
  let early: ParseWorkers | null = null;
  let listed = 0;
  const threshold = parseWorkerThreshold(options.parseWorkers);
  const onFile = () => {
    if (++listed === threshold && (!cache || cache.empty)) early = ParseWorkers.early(threshold, options.parseWorkers);
  };
  /** `promise`, ending the early workers when it fails (the load fails before it could end them). */
  const endingEarlyOnError = <T>(promise: Promise<T>): Promise<T> =>
    promise.catch(async (error: unknown) => {
      await (early as ParseWorkers | null)?.close();
      throw error;
    });
  const [{ files, problems }, commit, dirtyFiles] = await endingEarlyOnError(Promise.all([repo.listFiles({ onFile }), repo.commit(), repo.dirtyFiles?.() ?? null]));

  for (const problem of problems) {
    const severity = problem.code === 'symlink_loop' ? 'warning' : 'error';
    diagnostics.push({ severity, code: problem.code, summary: problem.summary, range: fileStart(problem.path) });
  }

  type Pending = { path: string; kind: ObjectKind; name: string; connection?: string };
  const pending: Pending[] = [];
  const attachments = new Map<string, string[]>(); // owner yaml path -> the paths of its attachments (.py, provider files)
  const dictionaries: Array<{ path: string; name: string }> = [];
  let settingsPath: string | undefined;
  for (const file of files) {
    const named = variableInFileName(file.path);
    if (named) {
      diagnostics.push(named);
      continue;
    }
    const c = classifyPath(file.path);
    switch (c.type) {
      case 'object':
        if (unstorableName(file.path, c.name, diagnostics)) break;
        if (c.kind === 'dictionary') {
          dictionaries.push({ path: file.path, name: c.name });
          break;
        }
        pending.push({ path: file.path, kind: c.kind, name: c.name, connection: c.connection });
        break;
      case 'attachment':
        attachments.set(c.ownerPath, [...(attachments.get(c.ownerPath) ?? []), file.path]);
        break;
      case 'settings':
        settingsPath = file.path;
        break;
      case 'invalid':
        diagnostics.push({
          severity: c.code === 'unrecognized_file' ? 'warning' : 'error',
          code: c.code,
          summary: c.summary,
          range: fileStart(file.path),
        });
        break;
      case 'ignored':
        break;
    }
  }

  let settings: RepositorySettings = DEFAULT_SETTINGS;
  let settingsFile: ParsedYaml | null = null;
  let settingsText: string | undefined;
  if (settingsPath) {
    const text = (settingsText = await endingEarlyOnError(repo.readFile(settingsPath)));
    const { parsed, diagnostics: yamlDiagnostics } = parseYamlFile(settingsPath, text);
    const fileDiagnostics = [...yamlDiagnostics];
    if (parsed) appendAll(fileDiagnostics, schemaDiagnostics('settings', parsed));
    if (fileDiagnostics.length > 0) texts.set(settingsPath, text);
    appendAll(diagnostics, fileDiagnostics);
    if (parsed && !fileDiagnostics.some((d) => d.severity === 'error')) {
      settings = readSettings(parsed.value);
      settingsFile = parsed;
    }
  }
  const environment = options.environment ?? null;
  const scope = new VariableScope(environment, settings.environments);
  const environmentFindings = environmentDiagnostics(settingsFile, scope, { settingsInvalid: settingsPath !== undefined && settingsFile === null });
  if (environmentFindings.length > 0 && settingsPath && settingsText !== undefined) texts.set(settingsPath, settingsText);
  appendAll(diagnostics, environmentFindings);
  // A cached parse is reused only while the variables it used keep their values (see ParsedFile.variables).
  const current = (entry: ParsedFile | undefined) =>
    entry && (entry.variables === undefined || entry.variables.key === scope.keyOf(entry.variables.names)) ? entry : undefined;

  const loaded: LoadedObject[] = [];
  const parsedFiles = new Map<string, ParsedFile>();
  const versions = new Map(files.map((f) => [f.path, f.version]));
  cache?.beginLoad();
  const progress = options.progress;
  let read = 0;
  progress?.({ phase: 'load', done: 0, total: pending.length });
  // the specs a load keeps: every object's for a desired state, and for the cache's shards when there is one
  const wantSpec = want === 'desired' || cache !== undefined;
  const toParse = cache ? pending.filter((p) => !cache.has(p.path)).length : pending.length;
  const workers = await ParseWorkers.forLoad(toParse, { environment, environments: settings.environments }, options.parseWorkers, early);
  /** The normalized specs (as text) of the files parsed now, made with the parse, until the objects below (their hashes are in the entries). */
  const parsedSpecs = new Map<string, string>();
  /** Each file's entry and whether it was reused, by its place in `pending`: kept in that order whoever parsed it. */
  const entries: Array<{ entry: ParsedFile; reused: boolean }> = new Array(pending.length);
  // With workers, the loop lets the event loop turn every TURN_EVERY files, all its reads at once (each `await` of a
  // synchronous read only queues a microtask: without a turn no worker's answer is heard while files remain).
  let turn: Promise<void> | null = null;
  let sinceTurn = 0;
  const letWorkersAnswer = (): Promise<void> | void => {
    if (turn) return turn;
    if (!workers || ++sinceTurn < TURN_EVERY) return;
    sinceTurn = 0;
    return (turn = new Promise<void>((resolve) => setImmediate(() => {
      turn = null;
      resolve();
    })));
  };
  // A cache that keeps specs on disk gets each shard written as soon as every file of it is loaded: the specs parsed
  // now then stay in their shard, and the objects read them when asked (as a warm load's), instead of every spec being
  // held until the plan (ParseCache.writeShardNow). Files come in path order: a connection's files are loaded together.
  const shardOf = new Map<string, number[]>();
  if (cache?.keepsSpecs) pending.forEach((item, index) => {
    const shard = specShardOf(item.path);
    const indices = shardOf.get(shard);
    if (indices) indices.push(index);
    else shardOf.set(shard, [index]);
  });
  const shardLeft = new Map([...shardOf].map(([shard, indices]) => [shard, indices.length]));
  const shardWrites: Array<Promise<void>> = [];
  const writeShard = async (shard: string): Promise<void> => {
    const indices = shardOf.get(shard)!;
    if (indices.every((i) => entries[i].reused)) return; // nothing parsed now: save writes it if a file is gone
    const files = indices.map((i) => ({ path: pending[i].path, entry: entries[i].entry, specJson: parsedSpecs.get(pending[i].path) }));
    if (!(await cache!.writeShardNow(shard, files))) return;
    // the objects of files with their hash read their specs from the shard; the others (attachments) take them now
    for (const { path, entry } of files) if (entry.hash !== undefined) parsedSpecs.delete(path);
  };
  try {
    await forEachLimited(pending, READ_CONCURRENCY + (workers?.capacity ?? 0), async (item, index) => {
      await letWorkersAnswer();
      const version = versions.get(item.path);
      let entry = version !== undefined ? current(cache?.lookup(item.path, { version })) : undefined;
      let reused = entry !== undefined;
      if (!entry) {
        // without a version (or with a new one: a `touch`), the same text is still the same file
        const text = await repo.readFile(item.path);
        const same = current(cache?.lookup(item.path, { text, sha: repo.contentSha?.(item.path) }));
        reused = same !== undefined;
        if (same) entry = { ...same, version };
        else {
          const job = { ...item, text, spec: wantSpec, hash: !attachments.has(item.path) };
          // a worker parses it when one has room; else this thread does, giving the same result (its spec as text,
          // made with the parse: no document is kept, and the files are shared by the time each thread takes)
          const result = (workers ? await workers.parse(job) : null) ?? parseJobResult(job, scope);
          entry = { ...parsedFileOf(item.path, text, result), version };
          if (result.hash !== undefined) entry.hash = result.hash;
          if (result.specJson !== undefined) parsedSpecs.set(item.path, result.specJson);
        }
      }
      entries[index] = { entry, reused };
      if (shardOf.size > 0) {
        const shard = specShardOf(item.path);
        const left = shardLeft.get(shard)! - 1;
        shardLeft.set(shard, left);
        // the garbage collected once the shard's texts are: writeShard holds them no longer
        if (left === 0) shardWrites.push(writeShard(shard).then(() => options.collectGarbage?.()));
      }
      progress?.({ phase: 'load', done: ++read, total: pending.length });
    });
  } finally {
    await workers?.close();
    await Promise.all(shardWrites);
  }
  pending.forEach((item, index) => {
    const { entry, reused } = entries[index];
    cache?.use(item.path, entry, reused);
    parsedFiles.set(item.path, entry);
    if (entry.diagnostics.length > 0) texts.set(item.path, entry.text);
    appendAll(diagnostics, entry.diagnostics);
    if (entry.loaded) loaded.push(entry.loaded);
  });
  cache?.endLoad();

  for (const [ownerPath, paths] of attachments) {
    if (pending.some((p) => p.path === ownerPath)) continue;
    for (const path of paths) {
      const rule = path.endsWith('.py');
      diagnostics.push({
        severity: 'warning',
        code: rule ? 'orphan_rule_module' : 'orphan_sensor_file',
        summary: rule
          ? `${path} has no ${ownerPath.split('/').pop()} beside it; a custom rule needs both files`
          : `${path} has no ${ownerPath.split('/').pop()} beside it; a custom sensor needs its definition, a provider file and a template`,
        range: fileStart(path),
      });
    }
  }
  const dictionaryObjects: DesiredObject[] = [];
  for (const dictionary of dictionaries) {
    const text = await repo.readFile(dictionary.path);
    const unstorable = unstorableText(dictionary.path, text, 'the dictionary', 'A dictionary is text: remove the NUL character.');
    if (unstorable) {
      diagnostics.push(unstorable);
      texts.set(dictionary.path, text);
      continue;
    }
    const attachmentsOfObject: JsonObject = { file_content: text };
    dictionaryObjects.push({ kind: 'dictionary', name: dictionary.name, spec: {}, attachments: attachmentsOfObject, hash: contentHash({}, attachmentsOfObject), origin: { file: dictionary.path } });
  }

  // Reads finish in any order; sort so that "first" and "second" of a duplicate are always the same files.
  loaded.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const declaredConnections = new Set(pending.filter((p) => p.kind === 'source').map((p) => p.name));
  const declaredTables = new Map<string, Set<string>>();
  for (const p of pending) {
    if (p.kind !== 'table' || !p.connection) continue;
    const tables = declaredTables.get(p.connection) ?? new Set<string>();
    tables.add(p.name.slice(p.connection.length + 1));
    declaredTables.set(p.connection, tables);
  }
  const semantic = runSemanticChecks(loaded, { declaredConnections, declaredTables, dictionaries: new Set(dictionaries.map((d) => d.name)) });
  for (const d of semantic) if (d.range && !texts.has(d.range.filename)) {
    const owner = parsedFiles.get(d.range.filename);
    if (owner) texts.set(d.range.filename, owner.text);
  }
  appendAll(diagnostics, semantic);
  const excluded = new Set(semantic.filter((d) => d.severity === 'error' && d.range).map((d) => d.range!.filename));

  const objects: DesiredObject[] = [];
  let objectCount = dictionaryObjects.length;
  for (const item of loaded) {
    if (excluded.has(item.file)) continue;
    const entry = parsedFiles.get(item.file)!;
    let attachmentsOfObject: JsonObject = {};
    const attached = attachments.get(item.file) ?? [];
    const modulePath = item.kind === 'rule' ? attached[0] : undefined;
    if (modulePath) {
      const module = await repo.readFile(modulePath);
      const unstorable = unstorableText(modulePath, module, 'the rule module', 'Python source needs no NUL character: remove it (write "\\0" inside a string literal instead).');
      if (unstorable) {
        diagnostics.push(unstorable);
        texts.set(modulePath, module);
        continue;
      }
      attachmentsOfObject.python_module = module;
    }
    if (item.kind === 'sensor') {
      const files = await readSensorFiles(repo, item.file, attached, scope);
      appendAll(diagnostics, files.diagnostics);
      for (const [path, text] of files.texts) texts.set(path, text);
      if (files.diagnostics.some((d) => d.severity === 'error')) continue;
      attachmentsOfObject = files.attachments;
    }
    objectCount++;
    // findings only: a file parsed now still gets its spec when a parse cache keeps it; a cached one is not read
    const parsedNow = parsedSpecs.get(item.file);
    if (want === 'findings' && (!parsedNow || !cache)) continue;
    if (attached.length === 0 && entry.spec === undefined && !parsedNow && cache?.canDeferSpec(item.file, entry)) {
      // restored from the persisted cache with its hash, or parsed now and its shard written: the spec stays in its
      // shard until a plan or an apply asks
      // the getter holds the key of the content and its text (to compute the spec again if the shard no longer
      // has it), not the entry nor the cache: what a plan's objects keep until the apply is that, not the documents
      objects.push(lazyObject(item, entry, attachmentsOfObject, cache.lazySpec(item.file, entry), textAgain(repo, item.file, entry), scope));
      continue;
    }
    if (want === 'findings' && attached.length === 0) {
      // the shard takes the parse's text as it is: the spec is never made an object here
      entry.specJson = parsedNow;
      continue;
    }
    const made = parsedNow ?? entry.specJson;
    const spec = (entry.spec ??= (made !== undefined ? (JSON.parse(made) as JsonObject) : undefined) ?? (await cache?.storedSpec(item.file, entry)) ?? normalizeSpec(item.kind, rawSpecOf(item, entry, scope)));
    const hash = attached.length > 0 ? contentHash(spec, attachmentsOfObject) : (entry.hash ??= contentHash(spec, attachmentsOfObject));
    delete entry.specJson;
    objects.push({
      kind: item.kind,
      name: item.name,
      spec,
      attachments: attachmentsOfObject,
      hash,
      origin: { file: item.file },
    });
  }
  if (want === 'findings') objects.length = 0; // the objects of the files parsed now are not the answer
  objects.push(...dictionaryObjects);
  objects.sort(compareKeys);
  diagnostics.sort(compareDiagnostics);

  const state: DesiredState = {
    // dirtyFiles only when there are some: a clean tree (or a commit read from git) is the commit itself
    repository: { description: repo.description, commit, ...(commit && dirtyFiles ? { dirtyFiles } : {}) },
    settings,
    environment,
    objects,
    diagnostics,
    texts,
    fingerprint: desiredFingerprint(objects, settings, environment),
  };
  return { state, objectCount };
}

/**
 * A desired object whose spec is read when first asked for (an enumerable getter: spreading, JSON and equality see
 * it as a plain property) and not kept by the object: a plan of one change reads one shard, an apply of every
 * object holds a few shards at a time, not every spec. Its hash is known without the spec (the parse cache's
 * index); the spec the getter gives is the one of that hash (persistedParseCache.ts: the same content, or computed
 * again from the text). Assigning `spec` makes it a plain value.
 */
function withLazySpec(object: Omit<DesiredObject, 'spec'>, spec: () => JsonObject, json: () => string | undefined): DesiredObject {
  const value = { kind: object.kind, name: object.name } as DesiredObject;
  Object.defineProperty(value, 'spec', {
    enumerable: true,
    configurable: true,
    get: spec,
    set(replacement: JsonObject) {
      Object.defineProperty(value, 'spec', { value: replacement, enumerable: true, configurable: true, writable: true });
      forgetSpecJson(value);
    },
  });
  // the spec's text, when its shard holds it (specJsonOf: else JSON.stringify of the spec the getter gives)
  withSpecJson(value, json);
  value.attachments = object.attachments;
  value.hash = object.hash;
  value.origin = object.origin;
  return value;
}

/**
 * The desired object of a file whose spec stays in its parse cache shard (withLazySpec). Made here, outside `load`:
 * a closure made inside it would hold load's whole context (the parse cache, every parsed file with its text and
 * locator), which then lived as long as the plan's objects, through the apply (about 300 MB at 100,000 tables).
 */
function lazyObject(
  item: Pick<LoadedObject, 'file' | 'kind' | 'name' | 'connection'>,
  entry: ParsedFile,
  attachments: JsonObject,
  stored: { spec: () => JsonObject | undefined; json: () => string | undefined },
  textOf: () => string,
  scope: VariableScope,
): DesiredObject {
  const { kind, name, file, connection } = item;
  return withLazySpec(
    { kind, name, attachments, hash: entry.hash!, origin: { file } },
    () => stored.spec() ?? normalizeSpec(kind, rawSpecOf({ kind, name, file, connection }, { text: textOf() }, scope)),
    stored.json,
  );
}

/**
 * The text of a file whose spec a getter may have to compute again (its parse cache shard no longer holds it): read
 * again from the source when it can read synchronously, so that a plan's objects do not hold every file's text until
 * the apply (215 MB at 100,000 tables); the text read must be the one the object's hash was made from (its sha256),
 * else the plan no longer describes the file (STALE_PLAN). A source that cannot read synchronously: the text is held.
 * Made outside the load's loop, so that the getter holds the path and the sha256, not the entry.
 */
function textAgain(repo: RepositorySource, path: string, entry: ParsedFile): () => string {
  if (!repo.readFileSync || entry.sha === undefined) {
    const text = entry.text;
    return () => text;
  }
  const sha = entry.sha;
  return () => {
    const text = repo.readFileSync!(path);
    if (createHash('sha256').update(text).digest('hex') !== sha) {
      throw new DqError('STALE_PLAN', `${path} changed since it was read, and the parse cache no longer holds its spec as read then; run plan again`);
    }
    return text;
  };
}

/** A file or folder name decoding to text the live store cannot hold (`%00`): reported, the file is not read. */
function unstorableName(path: string, name: string, diagnostics: Diagnostic[]): boolean {
  const found = findUnstorableText(name);
  if (!found) return false;
  diagnostics.push({
    severity: 'error',
    code: 'unstorable_text',
    summary: `the name ${JSON.stringify(name)} decoded from ${JSON.stringify(path)} holds ${found.reason}, which the live store cannot hold`,
    detail: 'Rename the file or folder: remove the %00 (or the unpaired surrogate) from its name.',
    range: fileStart(path),
  });
  return true;
}

/** A rule's .py module, a template or a dictionary holding a NUL (or an unpaired surrogate): reported at its line and column. */
function unstorableText(path: string, text: string, what: string, detail: string): Diagnostic | null {
  const found = findUnstorableText(text);
  if (!found) return null;
  const before = text.slice(0, found.index);
  const line = before.split('\n').length;
  const column = found.index - before.lastIndexOf('\n');
  const position = { line, column };
  return {
    severity: 'error',
    code: 'unstorable_text',
    summary: `${what} holds ${found.reason}, which the live store cannot hold`,
    detail,
    range: { filename: path, start: position, end: position },
  };
}

/**
 * The files beside a sensor definition: each `<provider>.dqoprovidersensor.yaml` (envelope and schema checked,
 * located in its file), `<provider>.sql.jinja2` and `<provider>.sample.sql.jinja2` (the error sampling template,
 * optional). A provider file without a template, or a template without a provider file, is an error at that file
 * (DQOps would not run the sensor on that provider).
 */
async function readSensorFiles(
  repo: RepositorySource,
  definitionPath: string,
  paths: readonly string[],
  scope: VariableScope,
): Promise<{ attachments: JsonObject; diagnostics: Diagnostic[]; texts: Map<string, string> }> {
  const diagnostics: Diagnostic[] = [];
  const texts = new Map<string, string>();
  const providers = new Map<string, SensorProviderFiles>();
  const where = new Map<string, string>();
  for (const path of [...paths].sort()) {
    const fileName = path.slice(path.lastIndexOf('/') + 1);
    const part = sensorFilePart(fileName);
    if (!part) continue;
    const text = await repo.readFile(path);
    const files = providers.get(part.provider) ?? {};
    providers.set(part.provider, files);
    where.set(`${part.provider}:${part.part}`, path);
    if (part.part === 'sql_template' || part.part === 'sample_template') {
      const what = part.part === 'sql_template' ? 'the SQL template' : 'the error sampling template';
      const unstorable = unstorableText(path, text, what, 'A template is text: remove the NUL character.');
      if (unstorable) {
        diagnostics.push(unstorable);
        texts.set(path, text);
      } else if (part.part === 'sql_template') files.sqlTemplate = text;
      else files.sampleTemplate = text;
      continue;
    }
    const parsed = parseObjectFile({ path, kind: 'provider_sensor', name: part.provider }, text, scope);
    if (parsed.diagnostics.length > 0) texts.set(path, text);
    appendAll(diagnostics, parsed.diagnostics);
    if (parsed.rawSpec) files.definition = normalizeSpec('sensor', parsed.rawSpec);
  }
  const folder = definitionPath.slice(0, definitionPath.lastIndexOf('/') + 1);
  for (const [provider, files] of providers) {
    if (diagnostics.some((d) => d.severity === 'error')) break;
    const missing = files.definition === undefined ? `${provider}${PROVIDER_SENSOR_SUFFIX}` : files.sqlTemplate === undefined && files.definition.type !== 'java_class' ? `${provider}${SQL_TEMPLATE_SUFFIX}` : undefined;
    if (missing === undefined) continue;
    const present = (where.get(`${provider}:provider_definition`) ?? where.get(`${provider}:sql_template`) ?? where.get(`${provider}:sample_template`))!;
    diagnostics.push({
      severity: 'error',
      code: 'sensor_provider_incomplete',
      summary: `${present} has no ${folder}${missing} beside it`,
      detail: 'A custom sensor runs on a provider with both files: <provider>.dqoprovidersensor.yaml (type: sql_template) and <provider>.sql.jinja2.',
      range: fileStart(present),
    });
  }
  return { attachments: sensorAttachments(providers), diagnostics, texts };
}

/**
 * The spec as written of a loaded file: kept when this process parsed it; an entry of the persisted cache whose
 * spec shard did not hold it is parsed again (same text, same variables: the same document).
 */
function rawSpecOf(item: Pick<LoadedObject, 'file' | 'kind' | 'name' | 'connection'>, entry: Pick<ParsedFile, 'rawSpec' | 'text'>, scope: VariableScope): JsonObject {
  if (entry.rawSpec) return entry.rawSpec;
  const again = parseObjectFile({ path: item.file, kind: item.kind, name: item.name, connection: item.connection }, entry.text, scope);
  if (!again.rawSpec) throw new Error(`${item.file}: the cached load of this file no longer parses`);
  return again.rawSpec;
}

/** The identity of a desired state: its objects, its namespace and the environment its variables came from. */
export function desiredFingerprint(objects: readonly DesiredObject[], settings: RepositorySettings, environment: string | null = null): string {
  const hash = createHash('sha256');
  hash.update(`namespace:${settings.namespace}\n`);
  // Absent without --env, so the fingerprints of repositories without environments are what they were.
  if (environment !== null) hash.update(`environment:${environment}\n`);
  for (const o of objects) hash.update(`${o.kind}\t${o.name}\t${o.hash}\n`);
  return hash.digest('hex');
}

function fileStart(path: string) {
  return { filename: path, start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };
}

function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  const fa = a.range?.filename ?? '';
  const fb = b.range?.filename ?? '';
  if (fa !== fb) return fa < fb ? -1 : 1;
  const la = a.range?.start.line ?? 0;
  const lb = b.range?.start.line ?? 0;
  if (la !== lb) return la - lb;
  return (a.range?.start.column ?? 0) - (b.range?.start.column ?? 0);
}

async function forEachLimited<T>(items: T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index], index);
    }
  });
  await Promise.all(workers);
}
