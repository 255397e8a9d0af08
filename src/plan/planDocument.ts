import type { FieldChange, FieldOrigin } from '../diff/change.js';
import { redactValue } from '../diff/secrets.js';
import { DqError, isJsonObject, type JsonObject, type JsonValue, type ObjectKind } from '../model/index.js';
import { PLAN_FORMAT_VERSION, type Finding, type Plan } from './plan.js';

/**
 * The JSON form of a plan: what `plan --format json` prints, what `plan --out` saves and what `show` and the
 * renderers read. Secret values are redacted here, so a saved plan never holds a password. A saved plan is a
 * gate, not a payload: apply loads the repository again and refuses if its fingerprint moved.
 */
export interface PlanFieldDocument {
  path: string;
  before: JsonValue | null;
  after: JsonValue | null;
  /** Who changed it since the last apply (updates and drift): the repository, the API (outside git), or both. */
  origin?: FieldOrigin;
  /** An API change this apply leaves as it is (--keep-drift on an object the repository changed too). */
  kept?: boolean;
}

export interface PlanChangeDocument {
  address: string;
  kind: ObjectKind;
  name: string;
  actions: Array<'create' | 'update' | 'delete'>;
  reason: string;
  reason_code: string;
  file: string | null;
  before: JsonObject | null;
  after: JsonObject | null;
  fields: PlanFieldDocument[];
}

export interface PlanDocument {
  format_version: string;
  created_at: string;
  repository: { path: string; commit: string | null };
  store: { engine: string; location: string; revision: number };
  namespace: string;
  /** The plan's environment (--env), the live store's, and whether this is a switch apply refuses without --switch-env. */
  environment: { name: string | null; live: string | null; switching: boolean };
  options: { prune_unmanaged: boolean; keep_drift: boolean; allow_mass_delete: boolean; mass_delete_threshold: number };
  summary: { add: number; change: number; destroy: number; drifted: number; kept: number };
  changes: PlanChangeDocument[];
  drift: Array<{ address: string; kind: ObjectKind; name: string; restored: boolean; fields: PlanFieldDocument[] }>;
  kept: Array<{ address: string; kind: ObjectKind; name: string; reason: string; managed_by: string }>;
  findings: Finding[];
  fingerprint: { desired: string; live_revision: number; plan: string };
}

const REASONS: Record<string, string> = {
  create: 'it is in the repository but not in the live store',
  repository_changed: 'the repository changed it',
  restore_drift: 'it was changed outside git, through the API; apply restores the repository version',
  adopt: 'it was created through the API and is now in the repository; apply takes it over',
  not_in_repository: 'its file left the repository',
  prune_unmanaged: 'it was created through the API and --prune-unmanaged was given',
  unmanaged: 'created through the API, not in the repository; pass --prune-unmanaged to delete it',
  protected: 'protected by dqctl.yaml; never deleted',
};

export function reasonText(code: string): string {
  return REASONS[code] ?? code;
}

/** How a plan or a diff names an object: `table "conn/schema.table"`. */
export function addressOf(kind: string, name: string): string {
  return `${kind} ${JSON.stringify(name)}`;
}

/** A changed field as documents show it: its path, and the values before and after with secrets redacted. */
export function fieldDocument(f: FieldChange): PlanFieldDocument {
  return {
    path: f.path.join('.'),
    before: (redactValue(f.path, f.before) ?? null) as JsonValue | null,
    after: (redactValue(f.path, f.after) ?? null) as JsonValue | null,
    ...(f.origin ? { origin: f.origin } : {}),
    ...(f.kept ? { kept: true } : {}),
  };
}

/**
 * Who changed a field of an update, in words, when the object was changed outside git too; empty for a plain
 * repository change (every renderer says it the same way).
 */
export function fieldOriginText(f: Pick<PlanFieldDocument, 'origin' | 'kept'>): string {
  if (f.kept) return 'changed outside git; kept (--keep-drift)';
  if (f.origin === 'api') return 'changed outside git; restored';
  if (f.origin === 'both') return 'changed in git and outside: the repository value wins';
  return '';
}

/** An object's spec (secrets redacted) and its attachments, as documents show it. */
export function bodyDocument(spec: JsonObject, attachments: JsonObject): JsonObject {
  const out: JsonObject = { spec: redactValue(['spec'], spec) as JsonObject };
  if (Object.keys(attachments).length > 0) out.attachments = attachments;
  return out;
}

/**
 * A create's `after` or a delete's `before`: computed (the spec redacted) each time it is read, not kept. A plan of
 * 100,000 creates would otherwise hold a redacted copy of every spec at once, while its readers (the renderers,
 * JSON) take them one change at a time; the desired object's spec may itself be read lazily (a parse cache's shard).
 * Enumerable, so JSON, spreading and equality see a plain property, in the key order of the other changes.
 */
function withLazyBody(
  head: Omit<PlanChangeDocument, 'before' | 'after' | 'fields'> & { before?: null },
  key: 'before' | 'after',
  body: () => JsonObject,
  rest: { after?: null } = {},
): PlanChangeDocument {
  const change = { ...head } as PlanChangeDocument;
  Object.defineProperty(change, key, {
    get: body,
    // assigning makes it a plain value again
    set(value: JsonObject | null) {
      Object.defineProperty(change, key, { value, enumerable: true, configurable: true, writable: true });
    },
    enumerable: true,
    configurable: true,
  });
  if (key === 'before') change.after = rest.after ?? null;
  change.fields = [];
  return change;
}

export function toPlanDocument(plan: Plan): PlanDocument {
  return {
    format_version: plan.formatVersion,
    created_at: plan.createdAt,
    repository: { path: plan.repository.description, commit: plan.repository.commit },
    store: { engine: plan.store.engine, location: plan.store.description, revision: plan.store.revision },
    namespace: plan.namespace,
    environment: { ...plan.environment },
    options: {
      prune_unmanaged: plan.options.pruneUnmanaged,
      keep_drift: plan.options.keepDrift,
      allow_mass_delete: plan.options.allowMassDelete,
      mass_delete_threshold: plan.options.massDeleteThreshold,
    },
    summary: { ...plan.summary, drifted: plan.drift.length, kept: plan.kept.length },
    changes: plan.changes.map((c): PlanChangeDocument => {
      const base = { address: addressOf(c.key.kind, c.key.name), kind: c.key.kind, name: c.key.name };
      switch (c.action) {
        case 'create':
          return withLazyBody(
            { ...base, actions: ['create'], reason: reasonText('create'), reason_code: 'create', file: c.desired.origin.file, before: null },
            'after',
            () => bodyDocument(c.desired.spec, c.desired.attachments),
          );
        case 'update':
          return {
            ...base,
            actions: ['update'],
            reason: reasonText(c.reason),
            reason_code: c.reason,
            file: c.desired.origin.file,
            before: bodyDocument(c.live.spec, c.live.attachments),
            // what apply writes: the repository's version, or the keep-drift merge
            after: bodyDocument((c.write ?? c.desired).spec, (c.write ?? c.desired).attachments),
            fields: c.fields.map(fieldDocument),
          };
        case 'delete':
          return withLazyBody(
            { ...base, actions: ['delete'], reason: reasonText(c.reason), reason_code: c.reason, file: c.live.originFile },
            'before',
            () => bodyDocument(c.live.spec, c.live.attachments),
            { after: null },
          );
        default: {
          const unreachable: never = c;
          throw new DqError('INTERNAL', `unknown change ${JSON.stringify(unreachable)}`);
        }
      }
    }),
    drift: plan.drift.map((d) => ({
      address: addressOf(d.key.kind, d.key.name),
      kind: d.key.kind,
      name: d.key.name,
      restored: d.restored,
      fields: d.fields.map(fieldDocument),
    })),
    kept: plan.kept.map((k) => ({
      address: addressOf(k.key.kind, k.key.name),
      kind: k.key.kind,
      name: k.key.name,
      reason: reasonText(k.reason),
      managed_by: k.live.managedBy,
    })),
    findings: plan.findings,
    fingerprint: { desired: plan.fingerprint.desired, live_revision: plan.fingerprint.liveRevision, plan: plan.fingerprint.plan },
  };
}

/** Reads a saved plan, refusing anything that is not a plan of a format this version understands. */
export function parsePlanDocument(text: string, file: string): PlanDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DqError('PLAN_FILE_INVALID', `${file} is not a JSON plan: ${(error as Error).message}`);
  }
  if (!isJsonObject(value as JsonValue) || typeof (value as JsonObject).format_version !== 'string') {
    throw new DqError('PLAN_FILE_INVALID', `${file} is not a dqctl plan (no format_version)`);
  }
  const doc = value as unknown as PlanDocument;
  const major = doc.format_version.split('.')[0];
  if (major !== PLAN_FORMAT_VERSION.split('.')[0]) {
    throw new DqError('PLAN_FILE_INVALID', `${file} has plan format ${doc.format_version}; this dqctl reads format ${PLAN_FORMAT_VERSION}`);
  }
  for (const key of ['changes', 'summary', 'fingerprint', 'repository'] as const) {
    if (doc[key] === undefined) throw new DqError('PLAN_FILE_INVALID', `${file} is not a complete dqctl plan (no ${key})`);
  }
  // plans saved before environments existed were made without one
  doc.environment ??= { name: null, live: null, switching: false };
  return doc;
}
