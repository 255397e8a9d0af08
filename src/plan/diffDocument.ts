import type { RevisionDiff } from './revisionDiff.js';
import type { JsonObject, ObjectKind } from '../model/index.js';
import type { ReachComparison } from '../policy/blastRadius.js';
import { addressOf, bodyDocument, fieldDocument, type PlanFieldDocument } from './planDocument.js';

/**
 * The JSON form of `dqctl diff` (what `--format json` prints and the text and markdown renderers read).
 * Secret values are redacted here, as in plans: a diff posted to a pull request never shows a password.
 */
export const DIFF_FORMAT_VERSION = '1.0';

export type DiffAction = 'added' | 'changed' | 'removed';

export interface DiffChangeDocument {
  address: string;
  kind: ObjectKind;
  name: string;
  action: DiffAction;
  /** The file at base and at head (a moved file shows as removed + added: names come from paths). */
  file: { base: string | null; head: string | null };
  /** Field changes of a changed object (`spec.…` paths, old -> new). */
  fields: PlanFieldDocument[];
  /** The whole object at head for an added one, at base for a removed one; null for a changed one. */
  body: JsonObject | null;
}

export interface BlastRadiusDocument {
  address: string;
  kind: ObjectKind;
  name: string;
  action: DiffAction;
  disabled: { before: boolean | null; after: boolean | null };
  target: { before: JsonObject | null; after: JsonObject | null };
  repository: ReachComparison;
  live: ReachComparison | null;
}

export interface DiffDocument {
  format_version: string;
  repository: string;
  /** `--env`: the values compared are this environment's. */
  environment: string | null;
  base: { ref: string; commit: string | null; valid: boolean; error_count: number };
  head: { ref: string; commit: string | null };
  live: { engine: string; location: string; revision: number } | null;
  summary: { added: number; changed: number; removed: number; settings_changed: boolean; policies_changed: number };
  warnings: string[];
  /** dqctl.yaml changes (`spec.namespace`, `spec.protected`, `spec.prune.…`). */
  settings: PlanFieldDocument[];
  changes: DiffChangeDocument[];
  blast_radius: BlastRadiusDocument[];
}

export function toDiffDocument(result: RevisionDiff): DiffDocument {
  const changes = result.diff.changes.map((c): DiffChangeDocument => {
    const base = { address: addressOf(c.key.kind, c.key.name), kind: c.key.kind, name: c.key.name, action: c.action };
    switch (c.action) {
      case 'added':
        return { ...base, file: { base: null, head: c.head.origin.file }, fields: [], body: bodyDocument(c.head.spec, c.head.attachments) };
      case 'changed':
        return { ...base, file: { base: c.base.origin.file, head: c.head.origin.file }, fields: c.fields.map(fieldDocument), body: null };
      case 'removed':
        return { ...base, file: { base: c.base.origin.file, head: null }, fields: [], body: bodyDocument(c.base.spec, c.base.attachments) };
      default: {
        const unreachable: never = c;
        throw new Error(`toDiffDocument: unknown change ${JSON.stringify(unreachable)}`);
      }
    }
  });
  return {
    format_version: DIFF_FORMAT_VERSION,
    repository: result.repository,
    environment: result.environment,
    base: { ref: result.base.ref, commit: result.base.commit, valid: result.base.errorCount === 0, error_count: result.base.errorCount },
    head: { ref: result.head.ref, commit: result.head.commit },
    live: result.live ? { engine: result.live.engine, location: result.live.description, revision: result.live.revision } : null,
    summary: {
      added: changes.filter((c) => c.action === 'added').length,
      changed: changes.filter((c) => c.action === 'changed').length,
      removed: changes.filter((c) => c.action === 'removed').length,
      settings_changed: result.diff.settings.length > 0,
      policies_changed: result.blastRadius.length,
    },
    warnings: result.warnings,
    settings: result.diff.settings.map(fieldDocument),
    changes,
    blast_radius: result.blastRadius.map((b) => ({
      address: addressOf(b.kind, b.name),
      kind: b.kind,
      name: b.name,
      action: b.action,
      disabled: b.disabled,
      target: b.target,
      repository: b.repository,
      live: b.live,
    })),
  };
}
