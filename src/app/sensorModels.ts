import { getCheckCatalog, type CatalogSensor } from '../catalog/index.js';
import { deepEqual } from '../diff/fieldChanges.js';
import { normalizeSpec } from '../diff/normalizeSpec.js';
import type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
import { DqError, isJsonObject, sensorAttachments, sensorProviders, type JsonObject, type LiveObject, type SensorProviderFiles } from '../model/index.js';
import { catalogFields } from './catalogFields.js';
import { refuseUnwritableName } from './definitionNames.js';
import { bodyViolation, refuseViolations, specViolations, type BodyViolation } from './specValidation.js';

/**
 * Sensors as DQOps's `sensors` group serves them: the built-in ones (the check catalog's: their definition and
 * the providers DQOps ships them for; dqctl runs its own SQL for them, so a built-in sensor has no template to
 * show) and the custom ones (objects of kind sensor: the definition, and per provider its
 * `<provider>.dqoprovidersensor.yaml` spec and `<provider>.sql.jinja2` template), listed together. A read answers
 * the custom sensor over the built-in one of its name; an update that gives back the built-in sensor as it is
 * removes the customization or writes nothing, as DQOps does (so a program that reads a built-in sensor and
 * writes it back never replaces it by one without SQL); built-in sensors cannot be deleted. Written definitions
 * and provider files are checked as their files would be.
 */

/** DQOps's ProviderType: the providers a sensor may have files for. */
export const PROVIDER_TYPES = [
  'bigquery', 'clickhouse', 'databricks', 'db2', 'duckdb', 'hana', 'mariadb', 'mysql', 'oracle', 'postgresql',
  'presto', 'questdb', 'redshift', 'snowflake', 'spark', 'sqlserver', 'teradata', 'trino',
] as const;

export interface ProviderSensorListModel {
  provider_type: string;
  custom: boolean;
  built_in: boolean;
  can_edit: boolean;
}

export interface SensorListModel {
  sensor_name: string;
  full_sensor_name: string;
  custom: boolean;
  built_in: boolean;
  can_edit: boolean;
  provider_sensors: ProviderSensorListModel[];
}

/** A folder of the sensor tree: its sub-folders and sensors (each left out when empty), and every sensor below it. */
export interface SensorFolderModel {
  folders?: Record<string, SensorFolderModel>;
  sensors?: SensorListModel[];
  all_sensors: SensorListModel[];
}

function builtInSensorSpec(sensor: CatalogSensor): JsonObject {
  const spec: JsonObject = { fields: catalogFields(sensor.parameters) };
  if (sensor.requiresEventTimestamp) spec.requires_event_timestamp = true;
  if (sensor.requiresIngestionTimestamp) spec.requires_ingestion_timestamp = true;
  if (sensor.defaultValue !== undefined) spec.default_value = sensor.defaultValue;
  return spec;
}

/** The provider file DQOps ships for a built-in sensor, where the catalog records it (PostgreSQL). */
function builtInProviderSpec(sensor: CatalogSensor, provider: string): JsonObject | undefined {
  const definition = provider === 'postgresql' ? sensor.postgresqlDefinition : undefined;
  if (!definition) return undefined;
  const spec: JsonObject = { type: definition.type };
  if (!definition.supportsGrouping) spec.supports_grouping = false;
  if (!definition.supportsPartitionedChecks) spec.supports_partitioned_checks = false;
  if (definition.disableMergingQueries) spec.disable_merging_queries = true;
  return spec;
}

function providersOf(builtIn: CatalogSensor | undefined, custom: LiveObject | undefined): Map<string, { builtIn: boolean; custom?: SensorProviderFiles }> {
  const out = new Map<string, { builtIn: boolean; custom?: SensorProviderFiles }>();
  for (const provider of builtIn?.providers ?? []) out.set(provider, { builtIn: true });
  for (const [provider, files] of custom ? sensorProviders(custom.attachments) : []) out.set(provider, { builtIn: out.has(provider), custom: files });
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function listModel(name: string, builtIn: CatalogSensor | undefined, custom: LiveObject | undefined, canEdit: boolean): SensorListModel {
  const segments = name.split('/');
  return {
    sensor_name: segments[segments.length - 1],
    full_sensor_name: name,
    custom: custom !== undefined,
    built_in: builtIn !== undefined,
    can_edit: canEdit,
    provider_sensors: [...providersOf(builtIn, custom)].map(([provider, p]) => ({ provider_type: provider, custom: p.custom !== undefined, built_in: p.builtIn, can_edit: canEdit })),
  };
}

/** Every sensor, built-in and custom, sorted by its full name. */
export async function allSensors(objects: LiveObjects, canEdit: boolean): Promise<SensorListModel[]> {
  const catalog = getCheckCatalog();
  const customs = new Map((await objects.list('sensor')).map((o) => [o.name, o]));
  const names = [...new Set([...catalog.sensors.keys(), ...customs.keys()])].sort();
  return names.map((name) => listModel(name, catalog.sensors.get(name), customs.get(name), canEdit));
}

/** The sensors in their folders (the segments of their names). */
export function sensorFolderTree(sensors: readonly SensorListModel[]): SensorFolderModel {
  interface Node {
    folders: Map<string, Node>;
    sensors: SensorListModel[];
  }
  const root: Node = { folders: new Map(), sensors: [] };
  for (const sensor of sensors) {
    let node = root;
    for (const segment of sensor.full_sensor_name.split('/').slice(0, -1)) {
      let next = node.folders.get(segment);
      if (!next) node.folders.set(segment, (next = { folders: new Map(), sensors: [] }));
      node = next;
    }
    node.sensors.push(sensor);
  }
  const shape = (node: Node): SensorFolderModel => {
    const folders = [...node.folders].map(([name, child]) => [name, shape(child)] as const);
    const model: SensorFolderModel = { all_sensors: [...node.sensors, ...folders.flatMap(([, f]) => f.all_sensors)] };
    if (folders.length > 0) model.folders = Object.fromEntries(folders);
    if (node.sensors.length > 0) model.sensors = node.sensors;
    return model;
  };
  return shape(root);
}

/** The sensor (SensorModel): the custom one over the built-in one of its name; 404 when neither. */
export async function sensorOf(objects: LiveObjects, name: string, canEdit: (custom?: LiveObject) => boolean): Promise<JsonObject> {
  const builtIn = getCheckCatalog().sensors.get(name);
  const custom = await objects.get('sensor', name);
  if (!builtIn && !custom) throw new DqError('NOT_FOUND', `sensor ${JSON.stringify(name)} not found`);
  const editable = canEdit(custom);
  const providerList = [...providersOf(builtIn, custom)].map(([provider, p]) => {
    const model: JsonObject = { provider_type: provider };
    const spec = p.custom ? p.custom.definition : builtIn && builtInProviderSpec(builtIn, provider);
    if (spec !== undefined) model.provider_sensor_definition_spec = spec;
    if (p.custom?.sqlTemplate !== undefined) model.sql_template = p.custom.sqlTemplate;
    if (p.custom?.sampleTemplate !== undefined) model.error_sampling_template = p.custom.sampleTemplate;
    Object.assign(model, { custom: p.custom !== undefined, built_in: p.builtIn, can_edit: editable });
    return model;
  });
  return {
    full_sensor_name: name,
    sensor_definition_spec: custom ? custom.spec : builtInSensorSpec(builtIn!),
    provider_sensor_list: providerList,
    custom: custom !== undefined,
    built_in: builtIn !== undefined,
    can_edit: editable,
  };
}

interface SensorBody {
  spec: JsonObject;
  /** The providers the body names, in its order, with where each sits in the body. */
  providers: Array<{ provider: string; files: SensorProviderFiles; index: number }>;
}

/** A SensorModel body → the definition and the provider files it gives, refused (400) as their files would be. */
function fromModel(body: JsonObject): SensorBody {
  const violations: BodyViolation[] = [];
  const spec = isJsonObject(body.sensor_definition_spec) ? body.sensor_definition_spec : {};
  violations.push(...specViolations('sensor', spec, { bodyAt: ['sensor_definition_spec'] }));
  const providers: SensorBody['providers'] = [];
  const list = Array.isArray(body.provider_sensor_list) ? body.provider_sensor_list : [];
  list.forEach((item, index) => {
    if (!isJsonObject(item) || typeof item.provider_type !== 'string') return; // the model's schema said so already
    const provider = item.provider_type;
    if (providers.some((p) => p.provider === provider)) {
      violations.push(bodyViolation(['provider_sensor_list', index, 'provider_type'], `names the provider ${provider} a second time`, 'duplicate_provider'));
      return;
    }
    const definition = isJsonObject(item.provider_sensor_definition_spec) ? item.provider_sensor_definition_spec : {};
    violations.push(...specViolations('provider_sensor', definition, { bodyAt: ['provider_sensor_list', index, 'provider_sensor_definition_spec'] }));
    const files: SensorProviderFiles = { definition: normalizeSpec('sensor', definition) };
    if (typeof item.sql_template === 'string') files.sqlTemplate = item.sql_template;
    if (typeof item.error_sampling_template === 'string') files.sampleTemplate = item.error_sampling_template;
    providers.push({ provider, files, index });
  });
  refuseViolations(violations, 'sensor model');
  return { spec, providers };
}

/** A provider written as a custom one needs its SQL template, as its folder would (unless it runs a Java class). */
function refuseIncomplete(written: SensorBody['providers']): void {
  refuseViolations(
    written
      .filter(({ files }) => files.sqlTemplate === undefined && files.definition?.type !== 'java_class')
      .map(({ provider, index }) =>
        bodyViolation(['provider_sensor_list', index, 'sql_template'], `the provider ${provider} needs its SQL template (the ${provider}.sql.jinja2 beside its provider file)`, 'sensor_provider_incomplete'),
      ),
    'sensor model',
  );
}

/**
 * A custom sensor at a built-in sensor's name runs instead of it (as in DQOps), and dqctl runs custom sensors from
 * their PostgreSQL template: one without it would turn every check of the built-in sensor into an execution error.
 */
function refuseReplacementWithoutTemplate(builtIn: CatalogSensor | undefined, providers: ReadonlyMap<string, SensorProviderFiles>): void {
  if (!builtIn || providers.get('postgresql')?.sqlTemplate !== undefined) return;
  refuseViolations(
    [
      bodyViolation(
        ['provider_sensor_list'],
        `a custom sensor named as the built-in sensor ${builtIn.name} replaces it, and needs a postgresql provider with its sql_template; give the sensor another name, or send the built-in one back as it was read to keep it`,
        'sensor_provider_incomplete',
      ),
    ],
    'sensor model',
  );
}

function sameAsBuiltInProvider(files: SensorProviderFiles, builtIn: CatalogSensor, provider: string): boolean {
  if (files.sqlTemplate !== undefined || !builtIn.providers.includes(provider)) return false;
  return deepEqual(files.definition ?? {}, normalizeSpec('sensor', builtInProviderSpec(builtIn, provider) ?? {}));
}

/** A custom sensor from a SensorModel (409 when a custom sensor has the name; it may replace a built-in one). */
export async function createSensor(objects: LiveObjects, name: string, model: JsonObject, writer: WriteContext): Promise<void> {
  refuseUnwritableName('sensor', name);
  const body = fromModel(model);
  refuseIncomplete(body.providers);
  const providers = new Map(body.providers.map((p) => [p.provider, p.files]));
  refuseReplacementWithoutTemplate(getCheckCatalog().sensors.get(name), providers);
  await objects.create('sensor', name, body.spec, writer, sensorAttachments(providers));
}

/**
 * Updates a custom sensor, or makes one over a built-in sensor: the definition is replaced, and each provider the
 * model names (the others are kept); a provider given back as the built-in one is no longer customized, and a
 * model that gives back the built-in sensor as it is removes the custom one (or writes nothing).
 */
export async function updateSensor(objects: LiveObjects, name: string, model: JsonObject, writer: WriteContext): Promise<void> {
  refuseUnwritableName('sensor', name);
  const body = fromModel(model);
  const builtIn = getCheckCatalog().sensors.get(name);
  const asBuiltIn = (p: SensorBody['providers'][number]) => builtIn !== undefined && sameAsBuiltInProvider(p.files, builtIn, p.provider);
  if (builtIn && deepEqual(normalizeSpec('sensor', body.spec), normalizeSpec('sensor', builtInSensorSpec(builtIn))) && body.providers.every(asBuiltIn)) {
    if (await objects.get('sensor', name)) await objects.delete('sensor', name, writer);
    return;
  }
  refuseIncomplete(body.providers.filter((p) => !asBuiltIn(p)));
  await objects.upsert('sensor', name, writer, (current) => {
    if (!current && !builtIn) throw new DqError('NOT_FOUND', `sensor ${JSON.stringify(name)} not found`);
    const providers = current ? sensorProviders(current.attachments) : new Map<string, SensorProviderFiles>();
    for (const p of body.providers) {
      if (asBuiltIn(p)) providers.delete(p.provider);
      else providers.set(p.provider, p.files);
    }
    refuseReplacementWithoutTemplate(builtIn, providers);
    return { spec: body.spec, attachments: sensorAttachments(providers) };
  });
}

/** Deletes a custom sensor with its provider files; a built-in one cannot be (404 saying so). */
export async function deleteSensor(objects: LiveObjects, name: string, writer: WriteContext): Promise<void> {
  const custom = await objects.get('sensor', name);
  if (!custom) {
    const builtIn = getCheckCatalog().sensors.has(name);
    throw new DqError('NOT_FOUND', builtIn ? `sensor ${JSON.stringify(name)} is built in and cannot be deleted` : `sensor ${JSON.stringify(name)} not found`);
  }
  await objects.delete('sensor', name, writer);
}
