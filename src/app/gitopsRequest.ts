import { contentHash } from '../diff/contentHash.js';
import { normalizeSpec } from '../diff/normalizeSpec.js';
import type { DesiredState } from '../manifest/desiredState.js';
import { desiredFingerprint } from '../manifest/loadRepository.js';
import { classifyPath } from '../manifest/objectPaths.js';
import { readSettings, type RepositorySettings } from '../manifest/settings.js';
import {
  compareKeys,
  DqError,
  isObjectKind,
  keyId,
  type DesiredObject,
  type JsonObject,
  type JsonValue,
  isJsonObject,
} from '../model/index.js';
import { formatPath, validateDocument } from '../schema/index.js';

/**
 * The desired state on the wire, for `plan|apply --server`: the client loads and validates the repository, then
 * sends its objects; the server plans them against its own store. The server trusts nothing it is sent: every
 * object's spec is validated against the schema of its kind, normalized and hashed again, its name must be the
 * one its file name gives, and the fingerprint is recomputed. A body that does not add up is refused whole
 * (BODY_INVALID, with the violations), so a client of another version or a forged body never gets planned.
 */
export interface GitopsObject {
  kind: string;
  name: string;
  spec: JsonObject;
  attachments: JsonObject;
  hash: string;
  origin: { file: string };
}

export interface GitopsOptions {
  /** Absent: the repository's dqctl.yaml decides (as for a local plan). */
  prune_unmanaged?: boolean;
  keep_drift?: boolean;
  allow_mass_delete?: boolean;
  /** apply only: allow an environment other than the store's (--switch-env). */
  switch_env?: boolean;
}

export interface ExpectedFingerprint {
  desired: string;
  live_revision: number;
  plan: string;
}

export interface GitopsRequest {
  repository: { description: string; commit: string | null; dirty_files?: string[] | null };
  /** dqctl.yaml's spec, as written in the file (snake_case). */
  settings: JsonObject;
  /** The environment (`--env`) the objects were loaded with: their `${var.…}` are already replaced. */
  environment?: string | null;
  objects: GitopsObject[];
  fingerprint: string;
  options: GitopsOptions;
  /** apply only: the fingerprint of the plan that was reviewed (or saved); a moved store or repository is STALE_PLAN. */
  expected_fingerprint?: ExpectedFingerprint;
  /** apply only: who runs it on the client side, recorded in the audit beside the token's name. */
  actor?: string;
  /** apply only: how long to wait for the store lock on the server. */
  lock_timeout_ms?: number;
}

export function settingsSpec(settings: RepositorySettings): JsonObject {
  return {
    namespace: settings.namespace,
    protected: [...settings.protected],
    prune: { unmanaged: settings.prune.unmanaged, mass_delete_threshold: settings.prune.massDeleteThreshold },
  };
}

/** What the client sends. */
export function toGitopsRequest(desired: DesiredState, options: GitopsOptions, extra: Partial<GitopsRequest> = {}): GitopsRequest {
  return {
    repository: {
      description: desired.repository.description,
      commit: desired.repository.commit,
      ...(desired.repository.dirtyFiles ? { dirty_files: desired.repository.dirtyFiles } : {}),
    },
    settings: settingsSpec(desired.settings),
    ...(desired.environment !== null ? { environment: desired.environment } : {}),
    objects: desired.objects.map((o) => ({ kind: o.kind, name: o.name, spec: o.spec, attachments: o.attachments, hash: o.hash, origin: o.origin })),
    fingerprint: desired.fingerprint,
    options: withoutUndefined(options),
    ...extra,
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

interface Violation {
  path: string;
  message: string;
}

/** At most this many violations are listed in the answer; the count is always complete. */
const MAX_LISTED = 100;

/** What the server plans: the request checked and recomputed. Throws BODY_INVALID listing every violation. */
export function desiredFromRequest(request: GitopsRequest): DesiredState {
  const violations: Violation[] = [];
  const add = (path: string, message: string) => violations.push({ path, message });

  const settingsDocument = { apiVersion: 'dqctl/v1', kind: 'settings', spec: request.settings };
  for (const v of validateDocument('settings', settingsDocument)) add(`/settings${pointer(v.path.slice(1))}`, v.summary);
  const settings = readSettings(settingsDocument as unknown as JsonValue);

  const objects: DesiredObject[] = [];
  const seen = new Set<string>();
  request.objects.forEach((object, index) => {
    const at = `/objects/${index}`;
    const label = `${object.kind} ${JSON.stringify(object.name)}`;
    if (!isObjectKind(object.kind)) {
      add(`${at}/kind`, `unknown kind ${JSON.stringify(object.kind)}`);
      return;
    }
    const kind = object.kind;
    const place = classifyPath(object.origin.file);
    if (place.type !== 'object' || place.kind !== kind || place.name !== object.name) {
      add(`${at}/origin/file`, `${label}: the file ${JSON.stringify(object.origin.file)} does not hold this object (a DQOps file name gives the kind and the name)`);
      return;
    }
    const id = keyId({ kind, name: object.name });
    if (seen.has(id)) {
      add(at, `${label} is sent twice`);
      return;
    }
    seen.add(id);
    const attachmentKeys = Object.keys(object.attachments);
    const attachmentsValid =
      attachmentKeys.length === 0 ||
      (kind === 'rule' && attachmentKeys.length === 1 && typeof object.attachments.python_module === 'string') ||
      (kind === 'dictionary' && attachmentKeys.length === 1 && typeof object.attachments.file_content === 'string') ||
      (kind === 'sensor' && attachmentKeys.length === 1 && isJsonObject(object.attachments.providers));
    if (!attachmentsValid) {
      add(`${at}/attachments`, `${label}: only a rule (python_module), a sensor (providers) and a dictionary (file_content) carry attachments`);
    }
    const schemaViolations = validateDocument(kind, { apiVersion: 'dqo/v1', kind, spec: object.spec });
    for (const v of schemaViolations) add(`${at}${pointer(v.path)}`, `${label}: ${formatPath(v.path)}: ${v.summary}`);
    if (schemaViolations.length > 0 || !attachmentsValid) return;
    const spec = normalizeSpec(kind, object.spec);
    const hash = contentHash(spec, object.attachments);
    if (hash !== object.hash) add(`${at}/hash`, `${label}: the hash does not match the spec (a client of another dqctl version?)`);
    objects.push({ kind, name: object.name, spec, attachments: object.attachments, hash, origin: { file: object.origin.file } });
  });

  objects.sort(compareKeys);
  const environment = request.environment ?? null;
  const fingerprint = desiredFingerprint(objects, settings, environment);
  if (violations.length === 0 && fingerprint !== request.fingerprint) {
    add('/fingerprint', 'the fingerprint does not match the objects and settings sent');
  }
  if (violations.length > 0) {
    throw new DqError(
      'BODY_INVALID',
      `the desired state is invalid: ${violations.length} violation${violations.length === 1 ? '' : 's'}; first: ${violations[0].message}`,
      { violations: violations.slice(0, MAX_LISTED), violation_count: violations.length },
    );
  }
  return {
    repository: { description: request.repository.description, commit: request.repository.commit, dirtyFiles: request.repository.dirty_files ?? null },
    settings,
    environment,
    objects,
    diagnostics: [],
    texts: new Map(),
    fingerprint,
  };
}

function pointer(path: ReadonlyArray<string | number>): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The checks `apply plan.json` makes, for a plan saved elsewhere: same repository, same live revision, same options. */
export function checkExpectedFingerprint(
  actual: { desired: string; liveRevision: number; plan: string },
  expected: ExpectedFingerprint,
): void {
  if (actual.desired !== expected.desired) {
    throw new DqError('STALE_PLAN', 'stale plan: the repository changed since the plan was made; run plan again');
  }
  if (actual.liveRevision !== expected.live_revision) {
    throw new DqError(
      'STALE_PLAN',
      `stale plan: the live store changed since the plan was made (revision ${expected.live_revision} then, ${actual.liveRevision} now); run plan again`,
    );
  }
  if (actual.plan !== expected.plan) throw new DqError('STALE_PLAN', 'stale plan: it was made with other options; run plan again');
}
