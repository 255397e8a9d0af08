import { savedPlanOf } from '../../app/applyFlow.js';

/** The environment a saved plan was made for (`--env` must not name another). */
export async function readSavedPlanEnvironment(file: string): Promise<string | null> {
  return (await savedPlanOf({ type: 'saved', file })).environment.name;
}
