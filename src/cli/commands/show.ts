import { resolve } from 'node:path';
import { readSavedPlan } from '../../app/applyRepository.js';
import type { CliIo } from '../io.js';
import { writePlan } from '../render/planOutput.js';
import type { PlanFormat } from './planApplyOptions.js';

/** `dqctl show plan.json`: renders a saved plan without touching the repository or the store. */
export async function showCommand(file: string, options: { format: PlanFormat }, io: CliIo): Promise<number> {
  const doc = await readSavedPlan(resolve(io.cwd, file));
  await writePlan(doc, options.format, io);
  return 0;
}
