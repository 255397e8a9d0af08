import { DqError } from '../model/index.js';
import type { CliIo } from './io.js';

/**
 * The one gate between a plan and its application, for local and `--server` applies alike: a blocked plan, a
 * plan without changes and a saved plan (reviewed when it was saved) pass without asking; otherwise
 * --auto-approve, or a terminal where the user types exactly `yes`. Throws CONFIRMATION_REQUIRED or
 * APPLY_CANCELLED; returns when the apply may go on.
 */
export interface GateInput {
  changeCount: number;
  blocked: boolean;
  savedPlan: boolean;
  autoApprove: boolean;
}

export async function confirmApply(input: GateInput, io: CliIo): Promise<void> {
  if (input.blocked || input.savedPlan || input.autoApprove || input.changeCount === 0) return;
  if (!io.interactive) {
    throw new DqError('CONFIRMATION_REQUIRED', 'apply needs confirmation: run it in a terminal, or pass --auto-approve (or apply a saved plan)');
  }
  const answer = await io.prompt("\nDo you want to perform these actions?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ");
  if (answer.trim() !== 'yes') throw new DqError('APPLY_CANCELLED', 'Apply cancelled.');
}
