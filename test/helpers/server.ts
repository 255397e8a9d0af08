import type { FastifyInstance, InjectOptions } from 'fastify';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { buildServer, type ServerOptions } from '../../src/server/buildServer.js';
import type { Store } from '../../src/store/store.js';
import { EXAMPLE } from './cli.js';

/** The examples applied to a store (the state every API test starts from). */
export async function applyExamples(store: Store): Promise<void> {
  const { plan } = await planRepository({ repository: EXAMPLE, store });
  await applyPlan(plan, store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 10_000 });
}

export async function serverOn(store: Store, options: Partial<ServerOptions> = {}): Promise<FastifyInstance> {
  return buildServer({ store, revisionCheckMs: 0, ...options });
}

/** `app.inject` with JSON parsed: `{ status, body }`. */
export async function call(app: FastifyInstance, options: InjectOptions): Promise<{ status: number; body: any; headers: Record<string, unknown>; raw: string }> {
  const response = await app.inject(options);
  let body: unknown = undefined;
  if (response.body !== '') {
    try {
      body = JSON.parse(response.body);
    } catch {
      body = response.body;
    }
  }
  return { status: response.statusCode, body, headers: response.headers as Record<string, unknown>, raw: response.body };
}
