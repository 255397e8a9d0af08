import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';

describe('rules API', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  it('lists built-in and custom rules together', async () => {
    const { status, body } = await call(app, { method: 'GET', url: '/api/rules' });
    expect(status).toBe(200);
    expect(body).toContainEqual({ rule_name: 'min_count', full_rule_name: 'comparison/min_count', custom: false, built_in: true, can_edit: true });
    expect(body).toContainEqual(expect.objectContaining({ full_rule_name: 'volume/order_volume_band', custom: true, built_in: false }));
  });

  it('gets a rule by its %2F-encoded name and by the plain slashed name', async () => {
    const encoded = await call(app, { method: 'GET', url: '/api/rules/comparison%2Fmin_count' });
    expect(encoded.status).toBe(200);
    expect(encoded.body).toMatchObject({ rule_name: 'comparison/min_count', mode: 'current_value', built_in: true, custom: false });
    const plain = await call(app, { method: 'GET', url: '/api/rules/volume/order_volume_band' });
    expect(plain.status).toBe(200);
    expect(plain.body.rule_python_module_content).toContain('def evaluate_rule');
  });

  it('creates, overrides, updates and deletes custom rules with DQOps status codes', async () => {
    const body = { type: 'python', mode: 'current_value', fields: [{ field_name: 'limit', data_type: 'double' }], rule_python_module_content: 'def evaluate_rule(p):\n    return None\n' };
    expect((await call(app, { method: 'POST', url: '/api/rules/custom%2Fnew_rule', payload: body })).status).toBe(201);
    expect((await call(app, { method: 'POST', url: '/api/rules/custom%2Fnew_rule', payload: body })).status).toBe(409);
    expect((await call(app, { method: 'PUT', url: '/api/rules/custom%2Fnew_rule', payload: { mode: 'previous_readouts' } })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/rules/custom%2Fnew_rule' })).body).toMatchObject({ mode: 'previous_readouts', custom: true });
    // a custom rule may override a built-in one; built-in ones cannot be deleted
    expect((await call(app, { method: 'POST', url: '/api/rules/comparison%2Fmax_count', payload: body })).status).toBe(201);
    expect((await call(app, { method: 'DELETE', url: '/api/rules/comparison%2Fmax_count' })).status).toBe(204);
    expect((await call(app, { method: 'DELETE', url: '/api/rules/comparison%2Fmax_count' })).status).toBe(404);
    expect((await call(app, { method: 'PUT', url: '/api/rules/no%2Fsuch', payload: body })).status).toBe(404);
    expect((await call(app, { method: 'DELETE', url: '/api/rules/custom%2Fnew_rule' })).status).toBe(204);
  });

  it('answers bad input with a JSON error body, never a stack trace', async () => {
    const traversal = await call(app, { method: 'GET', url: '/api/rules/..%2F..%2Fetc%2Fpasswd' });
    expect(traversal.status).toBe(400);
    expect(traversal.body).toMatchObject({ status: 400, error: 'Bad Request', code: 'INVALID_ARGUMENT', path: '/api/rules/..%2F..%2Fetc%2Fpasswd' });
    const badType = await call(app, { method: 'POST', url: '/api/rules/x%2Fy', payload: { mode: 'sometimes' } });
    expect(badType.status).toBe(400);
    expect(badType.body.code).toBe('BODY_INVALID');
    expect(badType.body.details.violations[0]).toMatchObject({ path: '/mode' });
    const malformed = await call(app, { method: 'POST', url: '/api/rules/x%2Fy', payload: '{"mode": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.raw).not.toMatch(/\bat \//);
    const missing = await call(app, { method: 'GET', url: '/api/nowhere' });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain('route not found');
  });
});
