import { tableKey, type ObjectKind } from '../model/index.js';

/**
 * Object names come from file paths, exactly as DQOps derives them:
 * - `sources/<connection>/connection.dqoconnection.yaml`            → source `<connection>`
 * - `sources/<connection>/<schema>.<table>.dqotable.yaml`           → table `<connection>/<schema>.<table>`
 *   (split on the FIRST dot; `%XX` sequences decoded in both parts)
 * - `rules/<folder…>/<name>.dqorule.yaml`                           → rule `<folder…>/<name>`
 * - `sensors/<target>/<category>/<name>/sensordefinition.dqosensor.yaml` → sensor `<target>/<category>/<name>`;
 *   its `<provider>.dqoprovidersensor.yaml`, `<provider>.sql.jinja2` and `<provider>.sample.sql.jinja2` are attachments of it
 * - `checks/<table|column>/profiling/<category>/<name>.dqocheck.yaml`,
 *   `checks/<table|column>/<monitoring|partitioned>/<daily|monthly>/<category>/<name>.dqocheck.yaml`
 *   → check `<table|column>/<type>[/<scale>]/<category>/<name>` (the path under checks/)
 * - `dictionaries/[<folder…>/]<name>.csv`                            → dictionary `[<folder…>/]<name>.csv`
 * - `patterns/[<folder…>/]<name>.dqotablepattern.yaml|.dqocolumnpattern.yaml` → policy `<folder…>/<name>`
 * - `settings/defaultschedules.dqoschedules.yaml`, `settings/defaultnotifications.dqonotifications.yaml`
 *   → default_schedules / default_notifications `default`; DQOps's other settings files (default checks of
 *   its older releases, webhooks, dashboards, ...) are not read.
 */
export type PathClassification =
  | { type: 'object'; kind: ObjectKind; name: string; connection?: string; schema?: string; table?: string }
  | { type: 'attachment'; ownerPath: string }
  | { type: 'settings' }
  | { type: 'ignored' }
  | { type: 'invalid'; code: 'file_name_invalid' | 'unrecognized_file'; summary: string };

const SUFFIXES: Array<[suffix: string, kind: ObjectKind]> = [
  ['.dqoconnection.yaml', 'source'],
  ['.dqotable.yaml', 'table'],
  ['.dqorule.yaml', 'rule'],
  ['.dqosensor.yaml', 'sensor'],
  ['.dqocheck.yaml', 'check'],
  ['.dqotablepattern.yaml', 'default_table_checks'],
  ['.dqocolumnpattern.yaml', 'default_column_checks'],
  ['.dqoschedules.yaml', 'default_schedules'],
  ['.dqonotifications.yaml', 'default_notifications'],
];

/** The one file of each settings kind, as DQOps names it. */
export const SETTINGS_FILES: Partial<Record<ObjectKind, string>> = {
  default_schedules: 'settings/defaultschedules.dqoschedules.yaml',
  default_notifications: 'settings/defaultnotifications.dqonotifications.yaml',
};

/** The name of the one object of a settings kind. */
export const SETTINGS_OBJECT_NAME = 'default';

/** The file-name suffix a kind must live in; used to say "kind source does not belong in a .dqotable.yaml file". */
export function suffixOfKind(kind: ObjectKind): string {
  if (kind === 'dictionary') return DICTIONARY_SUFFIX;
  return SUFFIXES.find(([, k]) => k === kind)![0];
}

/** The one file name of a sensor definition, in the sensor's folder. */
export const SENSOR_DEFINITION_FILE = 'sensordefinition.dqosensor.yaml';
export const PROVIDER_SENSOR_SUFFIX = '.dqoprovidersensor.yaml';
export const SQL_TEMPLATE_SUFFIX = '.sql.jinja2';
export const SAMPLE_TEMPLATE_SUFFIX = '.sample.sql.jinja2';
export const DICTIONARY_SUFFIX = '.csv';
/** The files beside a sensor definition: a provider's settings, its SQL template and its error sampling template. */
export type SensorFilePart = 'provider_definition' | 'sql_template' | 'sample_template';

/** `postgresql.dqoprovidersensor.yaml` → provider `postgresql`, part `provider_definition`; undefined for other files. */
export function sensorFilePart(fileName: string): { provider: string; part: SensorFilePart } | undefined {
  if (fileName.endsWith(PROVIDER_SENSOR_SUFFIX)) return { provider: fileName.slice(0, -PROVIDER_SENSOR_SUFFIX.length), part: 'provider_definition' };
  if (fileName.endsWith(SAMPLE_TEMPLATE_SUFFIX) && fileName.length > SAMPLE_TEMPLATE_SUFFIX.length) {
    return { provider: fileName.slice(0, -SAMPLE_TEMPLATE_SUFFIX.length), part: 'sample_template' };
  }
  if (fileName.endsWith(SQL_TEMPLATE_SUFFIX)) {
    return { provider: fileName.slice(0, -SQL_TEMPLATE_SUFFIX.length), part: 'sql_template' };
  }
  return undefined;
}

const CHECK_TYPES_WITH_SCALE = new Set(['monitoring', 'partitioned']);

export function kindOfFileName(fileName: string): ObjectKind | undefined {
  return SUFFIXES.find(([suffix]) => fileName.endsWith(suffix))?.[1];
}

/** DQOps writes `/ \ < > : " ' | ? * & %` as `%XX`; undefined when a `%` is not followed by two hex digits. */
export function decodeNamePart(part: string): string | undefined {
  if (!part.includes('%')) return part;
  if (/%(?![0-9A-Fa-f]{2})/.test(part)) return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

const ENCODED_CHARACTERS = /[/\\<>:"'|?*&%]/g;

/** The inverse of decodeNamePart, with upper-case hex as DQOps writes it. */
export function encodeNamePart(part: string): string {
  return part.replace(ENCODED_CHARACTERS, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

export function classifyPath(path: string): PathClassification {
  if (path === 'dqctl.yaml') return { type: 'settings' };
  const segments = path.split('/');
  const fileName = segments[segments.length - 1];
  const top = segments[0];
  const kind = kindOfFileName(fileName);
  // DQOps keeps more in settings/ than dqctl reads (default checks of older releases, webhooks, dashboards)
  if (top === 'settings' && (kind === undefined || segments.length !== 2)) return { type: 'ignored' };

  if (top === 'rules' && fileName.endsWith('.py')) {
    return { type: 'attachment', ownerPath: path.slice(0, -'.py'.length) + '.dqorule.yaml' };
  }
  if (top === 'sensors' && segments[1] === 'dialects') return { type: 'ignored' }; // DQOps's own macro files: dqctl has its own
  if (top === 'sensors' && sensorFilePart(fileName) && segments.length >= 3) {
    return { type: 'attachment', ownerPath: [...segments.slice(0, -1), SENSOR_DEFINITION_FILE].join('/') };
  }
  if (top === 'dictionaries' && fileName.endsWith(DICTIONARY_SUFFIX)) {
    if (segments.length < 2) return { type: 'ignored' };
    const decoded = decodeSegments(segments.slice(1), '');
    if (decoded === undefined || fileName === DICTIONARY_SUFFIX) return undecodable(path, segments.slice(1).join('/'));
    return { type: 'object', kind: 'dictionary', name: decoded };
  }
  if (!kind) {
    const ymlKind = fileName.endsWith('.yml') ? kindOfFileName(fileName.slice(0, -4) + '.yaml') : undefined;
    if (ymlKind) {
      return {
        type: 'invalid',
        code: 'unrecognized_file',
        summary: `${path} ends in .yml; DQOps files end in .yaml (rename it to ${fileName.slice(0, -4)}.yaml); it is ignored`,
      };
    }
    if (fileName.endsWith('.yaml') || fileName.endsWith('.yml')) {
      return {
        type: 'invalid',
        code: 'unrecognized_file',
        summary: `${path} is not a DQOps file name (expected *.dqoconnection.yaml, *.dqotable.yaml, *.dqorule.yaml, sensordefinition.dqosensor.yaml, *.dqoprovidersensor.yaml, *.dqocheck.yaml, *.dqotablepattern.yaml, *.dqocolumnpattern.yaml, settings/defaultschedules.dqoschedules.yaml or settings/defaultnotifications.dqonotifications.yaml); it is ignored`,
      };
    }
    return { type: 'ignored' };
  }

  const misplaced = (where: string): PathClassification => ({
    type: 'invalid',
    code: 'unrecognized_file',
    summary: `${path}: ${fileName.slice(fileName.indexOf('.dqo'))} files belong in ${where}; this file is ignored`,
  });

  switch (kind) {
    case 'source': {
      if (top !== 'sources' || segments.length !== 3) return misplaced('sources/<connection>/');
      if (fileName !== 'connection.dqoconnection.yaml') {
        return { type: 'invalid', code: 'file_name_invalid', summary: `a connection file must be named connection.dqoconnection.yaml, not ${fileName}` };
      }
      const connection = decodeNamePart(segments[1]);
      if (connection === undefined || connection === '') return undecodable(path, segments[1]);
      return { type: 'object', kind, name: connection, connection };
    }
    case 'table': {
      if (top !== 'sources' || segments.length !== 3) return misplaced('sources/<connection>/');
      const connection = decodeNamePart(segments[1]);
      if (connection === undefined || connection === '') return undecodable(path, segments[1]);
      const stem = fileName.slice(0, -'.dqotable.yaml'.length);
      const dot = stem.indexOf('.');
      if (dot <= 0 || dot === stem.length - 1) {
        return {
          type: 'invalid',
          code: 'file_name_invalid',
          summary: `table file name ${JSON.stringify(fileName)} must be <schema>.<table>.dqotable.yaml`,
        };
      }
      const schema = decodeNamePart(stem.slice(0, dot));
      const table = decodeNamePart(stem.slice(dot + 1));
      if (schema === undefined || table === undefined) return undecodable(path, stem);
      return { type: 'object', kind, name: tableKey({ connection, schema, table }), connection, schema, table };
    }
    case 'rule': {
      if (top !== 'rules' || segments.length < 2) return misplaced('rules/');
      const decoded = decodeSegments(segments.slice(1), '.dqorule.yaml');
      if (decoded === undefined) return undecodable(path, segments.slice(1).join('/').slice(0, -'.dqorule.yaml'.length));
      return { type: 'object', kind, name: decoded };
    }
    case 'sensor': {
      if (top !== 'sensors' || segments.length < 3) return misplaced('sensors/<target>/<category>/<name>/');
      if (fileName !== SENSOR_DEFINITION_FILE) {
        return { type: 'invalid', code: 'file_name_invalid', summary: `a sensor definition must be named ${SENSOR_DEFINITION_FILE}, not ${fileName}` };
      }
      const folders = segments.slice(1, -1).map(decodeNamePart);
      if (folders.some((f) => f === undefined || f === '')) return undecodable(path, segments.slice(1, -1).join('/'));
      return { type: 'object', kind, name: folders.join('/') };
    }
    case 'check': {
      if (top !== 'checks') return misplaced('checks/');
      const [target, type, ...rest] = segments.slice(1);
      const scaled = CHECK_TYPES_WITH_SCALE.has(type ?? '');
      const validTarget = target === 'table' || target === 'column';
      const validType = scaled || type === 'profiling';
      const validScale = !scaled || rest[0] === 'daily' || rest[0] === 'monthly';
      if (!validTarget || !validType || !validScale || rest.length !== (scaled ? 3 : 2)) {
        return {
          type: 'invalid',
          code: 'file_name_invalid',
          summary: `${path}: a check definition lives in checks/<table|column>/profiling/<category>/ or checks/<table|column>/<monitoring|partitioned>/<daily|monthly>/<category>/`,
        };
      }
      const decoded = decodeSegments(segments.slice(1), '.dqocheck.yaml');
      if (decoded === undefined) return undecodable(path, segments.slice(1).join('/').slice(0, -'.dqocheck.yaml'.length));
      return { type: 'object', kind, name: decoded };
    }
    case 'dictionary':
      return { type: 'ignored' }; // never a suffix of SUFFIXES: classified above
    case 'default_table_checks':
    case 'default_column_checks': {
      if (top !== 'patterns' || segments.length < 2) return misplaced('patterns/');
      const suffix = kind === 'default_table_checks' ? '.dqotablepattern.yaml' : '.dqocolumnpattern.yaml';
      const decoded = decodeSegments(segments.slice(1), suffix);
      if (decoded === undefined) return undecodable(path, segments.slice(1).join('/').slice(0, -suffix.length));
      return { type: 'object', kind, name: decoded };
    }
    case 'default_schedules':
    case 'default_notifications': {
      if (path !== SETTINGS_FILES[kind]) return misplaced(`settings/ as ${SETTINGS_FILES[kind]!.slice('settings/'.length)}`);
      return { type: 'object', kind, name: SETTINGS_OBJECT_NAME };
    }
  }
}

/** The one default_notifications object (settings/defaultnotifications.dqonotifications.yaml). */
export const DEFAULT_NOTIFICATIONS_NAME = SETTINGS_OBJECT_NAME;

function decodeSegments(segments: string[], suffix: string): string | undefined {
  const parts = [...segments];
  if (suffix !== '') parts[parts.length - 1] = parts[parts.length - 1].slice(0, -suffix.length);
  if (parts[parts.length - 1] === '') return undefined;
  const decoded = parts.map(decodeNamePart);
  if (decoded.some((p) => p === undefined)) return undefined;
  return decoded.join('/');
}

function undecodable(path: string, part: string): PathClassification {
  const summary =
    part === '' || part.startsWith('.') || part.endsWith('/') || part.includes('//')
      ? `${path} has an empty name`
      : /%(?![0-9A-Fa-f]{2})/.test(part)
        ? `the name ${JSON.stringify(part)} in ${path} does not decode: a % must be followed by two hex digits (e.g. %2F for /)`
        : `the name ${JSON.stringify(part)} in ${path} does not decode: its %XX sequences are not valid UTF-8`;
  return { type: 'invalid', code: 'file_name_invalid', summary };
}
