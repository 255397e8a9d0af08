import { errorCount, type DesiredState } from '../manifest/desiredState.js';
import { DqError } from '../model/index.js';

/** The repository has validation errors: an invalid revision is never planned or applied (exit code 3). */
export class ValidationFailed extends DqError {
  constructor(readonly desired: DesiredState) {
    const errors = errorCount(desired);
    super('VALIDATION_FAILED', `the repository has ${errors} validation error${errors === 1 ? '' : 's'}; nothing was planned`);
  }
}
