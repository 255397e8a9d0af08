import type { JobRecord } from '../../src/store/jobRows.js';

/** A running job record for calling an executor directly, as the job service would. */
export function runningJob(jobType: string, parameters: Record<string, unknown>): JobRecord {
  return {
    id: 1,
    businessKey: null,
    jobType,
    parameters: parameters as JobRecord['parameters'],
    status: 'running',
    result: null,
    errorMessage: null,
    createdBy: null,
    claimedBy: null,
    createdAt: '',
    startedAt: null,
    finishedAt: null,
    statusChangedAt: '',
    parentId: null,
    pendingChildren: null,
  };
}
