import type { JsonObject } from './json.js';
import type { ObjectKind } from './objectKind.js';

/** Who owns a live object: the repository (apply) or a REST API client. */
export type ManagedBy = 'git' | 'api';

/**
 * An object as the repository wants it: normalized spec, its content hash and where it came from.
 * `attachments` carries content that lives beside the YAML (the `.py` module of a rule).
 */
export interface DesiredObject {
  kind: ObjectKind;
  name: string;
  spec: JsonObject;
  attachments: JsonObject;
  hash: string;
  origin: { file: string };
}

/** An object's content: its normalized spec and what lives beside it. */
export interface ObjectContent {
  spec: JsonObject;
  attachments: JsonObject;
}

/** An object as the live store holds it. */
export interface LiveObject {
  kind: ObjectKind;
  name: string;
  spec: JsonObject;
  attachments: JsonObject;
  /** Hash of the current spec + attachments. */
  contentHash: string;
  /** Hash written by the last apply; differs from contentHash after a write through the API ("drift"). */
  appliedHash: string | null;
  managedBy: ManagedBy;
  /** Ownership namespace (dqctl.yaml `namespace`); applies only touch their own namespace. */
  owner: string;
  originFile: string | null;
  originCommit: string | null;
  /** Store revision at which this object was last written. */
  revision: number;
  /**
   * The content the last apply wrote (the base of a three-way comparison): the live content itself when it is in
   * sync; null when unknown (an API object, or one changed through the API before dqctl recorded the base).
   */
  applied: ObjectContent | null;
  createdAt: string;
  updatedAt: string;
}

/** The cheap part of a live object: enough to decide "no change" without reading specs. */
export type LiveSummary = Omit<LiveObject, 'spec' | 'attachments' | 'applied' | 'createdAt' | 'updatedAt'>;

/** A row written by apply (or, later, by the API). */
export interface ObjectWrite {
  kind: ObjectKind;
  name: string;
  spec: JsonObject;
  attachments: JsonObject;
  contentHash: string;
  /** For git writes the hash of the repository's version; for API writes the previous appliedHash is kept. */
  appliedHash: string | null;
  /**
   * The repository's version, when apply writes something else (a keep-drift merge keeps the API's fields).
   * Otherwise the store works the base out itself: none while content and applied hash agree, and on an API write
   * to an object in sync, the content it replaces.
   */
  appliedContent?: ObjectContent;
  managedBy: ManagedBy;
  owner: string;
  originFile: string | null;
  originCommit: string | null;
}

export interface LockInfo {
  holder: string;
  operation: string;
  since: string;
  /** Process id and host of the holder, for people reading the error. */
  pid: number | null;
  host: string | null;
}

/** The environment (`--env`) a namespace's objects were last applied with; `environment` null: without one. */
export interface AppliedEnvironment {
  environment: string | null;
  storeRevision: number;
  appliedAt: string;
}

export interface ApplyRecordInput {
  appliedBy: string;
  commit: string | null;
  /**
   * The files that differed from `commit` when the apply ran (uncommitted changes, untracked files): what was
   * applied is then not that commit. Null when the work tree was clean (or not a git work tree).
   */
  dirtyFiles?: string[] | null;
  repository: string | null;
  /** The environment (`--env`) the apply ran with; null without one. */
  environment?: string | null;
  planFingerprint: string;
  summary: { add: number; change: number; destroy: number; objects: string[] };
}

export interface ApplyRecord extends ApplyRecordInput {
  dirtyFiles: string[] | null;
  environment: string | null;
  id: number;
  appliedAt: string;
  storeRevision: number;
}
