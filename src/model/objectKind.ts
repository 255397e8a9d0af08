/** The kinds of objects a repository holds, named as DQOps names them in the `kind:` field of its files. */
export const OBJECT_KINDS = [
  'source',
  'table',
  'rule',
  // a customized DQOps home: sensors/ (with their provider files and templates), checks/, dictionaries/*.csv
  'sensor',
  'check',
  'dictionary',
  'default_table_checks',
  'default_column_checks',
  // settings/ files: one object each, named `default` (DQOps has one file of each per user home)
  'default_schedules',
  'default_notifications',
] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export function isObjectKind(value: unknown): value is ObjectKind {
  return typeof value === 'string' && (OBJECT_KINDS as readonly string[]).includes(value);
}

/**
 * Identity of an object. Names are derived from paths as DQOps derives them:
 * source `conn`, table `conn/schema.table`, rule `folder/name`, sensor `target/category/name`, check
 * `target/type[/scale]/category/name`, dictionary `name.csv`, policies `sub/folder/name`, settings `default`.
 */
export interface ObjectKey {
  kind: ObjectKind;
  name: string;
}

export function keyId(key: ObjectKey): string {
  return `${key.kind}:${key.name}`;
}

export function compareKeys(a: ObjectKey, b: ObjectKey): number {
  const byKind = OBJECT_KINDS.indexOf(a.kind) - OBJECT_KINDS.indexOf(b.kind);
  if (byKind !== 0) return byKind;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** `kind "name"`: how plans and diagnostics name an object. */
export function displayKey(key: ObjectKey): string {
  return `${key.kind} ${JSON.stringify(key.name)}`;
}
