import { applyPlan, environmentSwitchRefused, type ApplyResult } from '../apply/applyPlan.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import type { ProgressReporter } from '../model/index.js';
import { blockingFindings, nothingToApply } from '../plan/plan.js';
import { toPlanDocument, type PlanDocument } from '../plan/planDocument.js';
import { releaseGarbageBeforeWrites } from './releaseGarbage.js';
import type { Store } from '../store/store.js';
import { readSavedPlan, replanSavedPlan } from './applyRepository.js';
import { toGitopsRequest, type GitopsOptions, type GitopsRequest } from './gitopsRequest.js';
import { loadValidRepository, planRepository } from './planRepository.js';
import type { RemoteApplyResult } from './remoteGitops.js';

/**
 * `dqctl plan` and `dqctl apply`, local or `--server`, as ONE flow: a target plans (the local store, or a server
 * through the CLI's HTTP client) and hands back the plan document with what applies exactly that plan; the flow
 * shows it, refuses an environment switch, asks the person (a callback: the CLI's prompt) unless nothing needs
 * asking, and applies. What is shown is what is applied: a local apply applies the plan object it showed, a
 * remote one sends the shown plan's fingerprint (the server refuses a moved store as STALE_PLAN).
 */
export interface PlannedApply {
  doc: PlanDocument;
  /** No change, nothing to mark in sync, the same environment: apply has nothing to write. */
  nothingToApply: boolean;
  /** Applied without asking: a saved plan (reviewed when it was saved), or one the server already applied. */
  reviewed: boolean;
  /** Applies exactly `doc`; null when the target already applied it (a saved plan or a direct remote apply). */
  apply(progress?: ProgressReporter): Promise<ApplyResult | null>;
}

export interface ApplyTarget {
  plan(progress?: ProgressReporter): Promise<PlannedApply>;
}

/** What the repository's plan is asked with: the options of `plan` and `apply`. */
export interface PlanSourceOptions {
  pruneUnmanaged?: boolean;
  keepDrift?: boolean;
  allowMassDelete?: boolean;
  /** `--env`: the environment of dqctl.yaml whose vars fill `${var.…}`. */
  environment?: string | null;
}

/** A repository to plan, or a saved plan (reviewed when it was saved: applied without asking if nothing moved). */
export type PlanSource =
  | { type: 'repository'; repository: string | RepositorySource; options: PlanSourceOptions }
  | { type: 'saved'; file: string; repository?: string; allowMassDelete?: boolean };

export interface ApplyIdentity {
  /** Lock holder shown to others. */
  holder: string;
  /** Recorded in the audit log. */
  appliedBy: string;
  lockTimeoutMs: number;
  /** `--switch-env`: apply a plan for another environment than the store's. */
  switchEnvironment?: boolean;
}

/** The plan's source as read from the saved plan's file: the saved plan is checked by the target. */
export async function savedPlanOf(source: Extract<PlanSource, { type: 'saved' }>): Promise<PlanDocument> {
  const saved = await readSavedPlan(source.file);
  if (source.allowMassDelete) saved.options.allow_mass_delete = true;
  return saved;
}

/**
 * Plans against (and applies to) a store this process opened, or is opening (openStore's promise: a plan reads
 * and hashes the repository's files while the store opens, see planRepository).
 */
export function localTarget(opening: Store | Promise<Store>, source: PlanSource, identity?: ApplyIdentity): ApplyTarget {
  return {
    async plan(progress) {
      const plan =
        source.type === 'saved'
          ? await replanSavedPlan(await savedPlanOf(source), opening, source.repository)
          : (
              await planRepository({
                repository: source.repository,
                store: opening,
                pruneUnmanaged: source.options.pruneUnmanaged,
                keepDrift: source.options.keepDrift,
                allowMassDelete: source.options.allowMassDelete,
                environment: source.options.environment,
                progress,
              })
            ).plan;
      // planned: the store is open
      const store = await opening;
      releaseGarbageBeforeWrites(); // the load's garbage, before the plan is shown and applied
      return {
        doc: toPlanDocument(plan),
        nothingToApply: nothingToApply(plan),
        reviewed: source.type === 'saved',
        apply: (applyProgress) => {
          if (!identity) throw new Error('localTarget: apply needs an identity');
          releaseGarbageBeforeWrites();
          return applyPlan(plan, store, { ...identity, progress: applyProgress });
        },
      };
    },
  };
}

/** How the CLI reaches a server: POST /api/gitops/plan or /api/gitops/apply with a request. */
export type GitopsPost = <T>(operation: 'plan' | 'apply', request: GitopsRequest) => Promise<T>;

/**
 * Plans on (and applies to) a server's store: the repository is loaded and validated here (an invalid one is
 * refused before anything is sent). `direct`: plan and apply in one request (nobody is asked: --auto-approve with
 * JSON output); the server then plans again by itself if the store moved.
 */
export function remoteTarget(post: GitopsPost, source: PlanSource, identity?: Partial<ApplyIdentity> & { actor?: string }, options: { direct?: boolean } = {}): ApplyTarget {
  const extra: Partial<GitopsRequest> = identity
    ? { ...(identity.actor ? { actor: identity.actor } : {}), ...(identity.lockTimeoutMs !== undefined ? { lock_timeout_ms: Math.min(identity.lockTimeoutMs, 600_000) } : {}) }
    : {};
  return {
    async plan() {
      let request: GitopsRequest;
      let expected: GitopsRequest['expected_fingerprint'];
      if (source.type === 'saved') {
        const saved = await savedPlanOf(source);
        const desired = await loadValidRepository(source.repository ?? saved.repository.path, undefined, saved.environment.name);
        const options: GitopsOptions = {
          prune_unmanaged: saved.options.prune_unmanaged,
          keep_drift: saved.options.keep_drift,
          allow_mass_delete: saved.options.allow_mass_delete,
          switch_env: identity?.switchEnvironment,
        };
        request = toGitopsRequest(desired, options, extra);
        expected = saved.fingerprint;
      } else {
        const desired = await loadValidRepository(source.repository, undefined, source.options.environment);
        request = toGitopsRequest(
          desired,
          {
            prune_unmanaged: source.options.pruneUnmanaged,
            keep_drift: source.options.keepDrift,
            allow_mass_delete: source.options.allowMassDelete,
            ...(identity?.switchEnvironment !== undefined ? { switch_env: identity.switchEnvironment } : {}),
          },
          extra,
        );
      }
      if (expected || options.direct) {
        // a saved plan was reviewed when saved, and a direct apply asks nobody: one request plans and applies
        const result = await post<RemoteApplyResult>('apply', expected ? { ...request, expected_fingerprint: expected } : request);
        return { doc: result.plan, nothingToApply: result.applied === null, reviewed: true, apply: async () => result.applied };
      }
      const doc = await post<PlanDocument>('plan', request);
      return {
        doc,
        // the server knows (resynced objects are not in the document): it answers applied null when it wrote nothing
        nothingToApply: false,
        reviewed: false,
        apply: async () => (await post<RemoteApplyResult>('apply', { ...request, expected_fingerprint: doc.fingerprint })).applied,
      };
    },
  };
}

/** The person's part of an apply: see the plan, and confirm it (a callback that throws to refuse). */
export interface ApplyConversation {
  show(doc: PlanDocument): void | Promise<void>;
  /** Asked only when the plan has changes, is not blocked and was not saved: throws to cancel. */
  confirm(changeCount: number): Promise<void>;
  switchEnvironment?: boolean;
  /** A terminal's progress while planning (loading files, planning), and while applying. */
  planProgress?: ProgressReporter;
  applyProgress?: ProgressReporter;
}

export interface ApplyOutcome {
  plan: PlanDocument;
  applied: ApplyResult | null;
}

export async function runApply(target: ApplyTarget, conversation: ApplyConversation): Promise<ApplyOutcome> {
  const planned = await target.plan(conversation.planProgress);
  const { doc } = planned;
  await conversation.show(doc);
  // refused before the prompt: nobody should be asked to confirm what cannot be applied
  if (doc.environment.switching && !conversation.switchEnvironment) throw environmentSwitchRefused({ environment: doc.environment, namespace: doc.namespace });
  if (planned.nothingToApply) return { plan: doc, applied: null };
  // a blocked plan is not asked about: applying it is refused with the finding's code
  if (!planned.reviewed && blockingFindings(doc).length === 0 && doc.changes.length > 0) await conversation.confirm(doc.changes.length);
  return { plan: doc, applied: await planned.apply(conversation.applyProgress) };
}
