import type { DesiredDiff } from '../diff/diffDesired.js';
import type { JsonObject } from '../model/index.js';
import type { PolicyKind, ReachComparison } from '../policy/blastRadius.js';

/** What a pull request changes between two revisions (`dqctl diff`): a value, rendered by diffDocument and the renderers. */
export interface PolicyBlastRadius {
  kind: PolicyKind;
  name: string;
  action: 'added' | 'changed' | 'removed';
  /** `disabled: true` before and after (null where the policy does not exist). */
  disabled: { before: boolean | null; after: boolean | null };
  /** The policy's `target` before and after (null where the policy does not exist). */
  target: { before: JsonObject | null; after: JsonObject | null };
  /** Base version over the base's tables → head version over the head's tables. */
  repository: ReachComparison;
  /** Base version → head version, both over the live store's tables. */
  live: ReachComparison | null;
}

export interface RevisionSide {
  ref: string;
  commit: string | null;
  errorCount: number;
}

export interface RevisionDiff {
  /** The folder (and sub-path) both refs were read from. */
  repository: string;
  /** The environment both revisions were loaded with (their effective values); null without --env. */
  environment: string | null;
  base: RevisionSide;
  head: RevisionSide;
  live: { engine: string; description: string; revision: number } | null;
  diff: DesiredDiff;
  blastRadius: PolicyBlastRadius[];
  warnings: string[];
}
