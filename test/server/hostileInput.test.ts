import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokens } from '../../src/server/tokens.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Hostile input on every registered route (enumerated from fastify, so a new route is covered the day it is
 * added): a NUL or a lone surrogate in a path parameter, a query parameter or a JSON body is a 400 with the
 * documented body, never a 500 from PostgreSQL refusing the text. Requests node's parser or fastify's router
 * refuse (bad percent-encoding, too long, malformed) answer the documented body too.
 */
const DOCUMENTED_KEYS = ['code', 'error', 'message', 'path', 'status', 'timestamp'];

function expectDocumentedError(response: { status: number; body: any }, status: number, code?: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(typeof response.body, JSON.stringify(response.body)).toBe('object');
  expect(Object.keys(response.body).filter((k) => k !== 'details').sort()).toEqual(DOCUMENTED_KEYS);
  expect(response.body.status).toBe(status);
  expect(Number.isNaN(Date.parse(response.body.timestamp))).toBe(false);
  if (code) expect(response.body.code).toBe(code);
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe('hostile input on every route', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let routes: Array<{ method: string; url: string }>;

  beforeAll(async () => {
    fx = await STORE_ENGINES[1].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    routes = app.registeredRoutes.filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
  });
  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
  });

  /** The route's URL with every `:param` (and a `*`) replaced. */
  const fill = (url: string, value: (name: string) => string) => url.replace(/:(\w+)/g, (_m, name: string) => value(name)).replace(/\*$/, value('*'));

  it('enumerates the routes from fastify (all of them, not a list kept by hand)', () => {
    expect(routes.length).toBeGreaterThan(80);
    expect(routes).toContainEqual({ method: 'POST', url: '/api/gitops/apply' });
    expect(routes).toContainEqual({ method: 'GET', url: '/api/jobs/jobs/:jobId' });
  });

  it('a NUL in any path parameter is a 400 naming it, on every route that has one', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => /:\w|\*$/.test(r.url))) {
      for (const target of route.url.match(/:(\w+)|\*$/g) ?? []) {
        const url = fill(route.url, (name) => (`:${name}` === target || name === target ? 'ab%00cd' : 'shop_oltp'));
        const response = await call(app, { method: route.method as 'GET', url, payload: WRITE_METHODS.has(route.method) ? {} : undefined });
        if (response.status !== 400 || response.body?.code !== 'INVALID_ARGUMENT') failures.push(`${route.method} ${url}: ${response.status} ${response.raw.slice(0, 200)}`);
        else expectDocumentedError(response, 400, 'INVALID_ARGUMENT');
      }
    }
    expect(failures).toEqual([]);
  });

  it('a lone surrogate in a path parameter (%ED%A0%80) is a 400 with the documented body', async () => {
    for (const route of routes.filter((r) => /:\w/.test(r.url))) {
      const url = fill(route.url, () => 'ab%ED%A0%80cd');
      const response = await call(app, { method: route.method as 'GET', url, payload: WRITE_METHODS.has(route.method) ? {} : undefined });
      expectDocumentedError(response, 400);
    }
  });

  // (a query value that does not decode as UTF-8 stays its literal %XX text, which is storable)
  it('a NUL in a query parameter (checkName, …) or its name is a 400 on every route', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      for (const query of ['checkName=a%00b', 'limit=1&jobId=%00', 'x%00y=1']) {
        const url = `${fill(route.url, () => 'shop_oltp')}?${query}`;
        const response = await call(app, { method: route.method as 'GET', url, payload: WRITE_METHODS.has(route.method) ? {} : undefined });
        if (response.status !== 400) failures.push(`${route.method} ${url}: ${response.status} ${response.raw.slice(0, 200)}`);
        else expectDocumentedError(response, 400);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a NUL or a lone surrogate anywhere in a JSON body (value or key, however deep) is a 400 BODY_INVALID on every write route', async () => {
    const bodies = [
      '{"spec":{"provider_type":"postgresql\\u0000"}}',
      '{"a":["x","\\ud800"]}',
      '{"\\udc00key":1}',
      '{"deep":' + '['.repeat(500) + '"\\u0000"' + ']'.repeat(500) + '}',
      '"\\u0000"',
    ];
    const failures: string[] = [];
    for (const route of routes.filter((r) => WRITE_METHODS.has(r.method) && r.url !== '/api/gitops/webhook')) {
      for (const payload of bodies) {
        const url = fill(route.url, () => 'shop_oltp');
        const response = await call(app, { method: route.method as 'POST', url, payload, headers: { 'content-type': 'application/json' } });
        if (response.status !== 400 || response.body?.code !== 'BODY_INVALID') failures.push(`${route.method} ${url} ${payload.slice(0, 40)}: ${response.status} ${response.raw.slice(0, 200)}`);
        else expectDocumentedError(response, 400, 'BODY_INVALID');
      }
    }
    expect(failures).toEqual([]);
  });

  it('the job id and checkName of the report are refused, and the routes still work with good input', async () => {
    expectDocumentedError(await call(app, { method: 'GET', url: '/api/jobs/jobs/%00' }), 400, 'INVALID_ARGUMENT');
    expectDocumentedError(await call(app, { method: 'DELETE', url: '/api/jobs/jobs/1%00' }), 400, 'INVALID_ARGUMENT');
    const good = await call(app, { method: 'GET', url: '/api/connections/shop_oltp' });
    expect(good.status).toBe(200);
    expectDocumentedError(await call(app, { method: 'GET', url: '/api/jobs/jobs/12345' }), 404, 'NOT_FOUND');
  });

  /** A request as raw bytes on a socket: what node's HTTP parser sees before fastify. */
  async function raw(request: string): Promise<{ status: number; body: any }> {
    await app.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined);
    const port = (app.server.address() as { port: number }).port;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(request));
      let out = '';
      socket.on('data', (d) => (out += d.toString('utf8')));
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
    });
    const [head, ...rest] = text.split('\r\n\r\n');
    const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]);
    const bodyText = rest.join('\r\n\r\n');
    // chunked or not: the JSON object is the part between the first { and the last }
    const json = bodyText.slice(bodyText.indexOf('{'), bodyText.lastIndexOf('}') + 1);
    return { status, body: JSON.parse(json) };
  }
  const get = (target: string, headers = '') => `GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;

  it.each([
    ['malformed percent-encoding in the path', get('/api/connections/%zz'), 400, 'MALFORMED_REQUEST'],
    ['invalid UTF-8 in the path', get('/api/connections/%ff%fe'), 400, 'MALFORMED_REQUEST'],
    ['a URL longer than node reads (414)', get('/api/connections/' + 'a'.repeat(70_000)), 414, 'URI_TOO_LONG'],
    ['a path parameter over maxParamLength (414)', get('/api/connections/' + 'a'.repeat(3000)), 414, 'URI_TOO_LONG'],
    ['headers over 16 KB (431)', get('/api/connections', `X-Big: ${'a'.repeat(70_000)}\r\n`), 431, 'HEADERS_TOO_LARGE'],
    ['a broken request line', 'GARBAGE\r\n\r\n', 400, 'MALFORMED_REQUEST'],
    ['a header with a space in its name', get('/api/connections', 'Bad Header: x\r\n'), 400, 'MALFORMED_REQUEST'],
    // outside /api an unknown GET is a page of the web console (index.html); the API's unknown routes are 404
    ['an unknown route (fastify default 404)', get('/api/nope'), 404, 'NOT_FOUND'],
    [
      'an unsupported media type (415)',
      'POST /api/connections/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: 4\r\nConnection: close\r\n\r\n<a/>',
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['bad JSON', 'POST /api/connections/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{x', 400, 'BODY_INVALID'],
    [
      'a body over the limit (413)',
      'POST /api/connections/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9000000\r\nConnection: close\r\n\r\n{}',
      413,
      'PAYLOAD_TOO_LARGE',
    ],
  ])('%s answers the documented body', async (_name, request, status, code) => {
    expectDocumentedError(await raw(request), status, code);
  });
});

describe('authorization comes before the body', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  const tokens = parseTokens('- {name: reader, role: viewer, token: viewer-token}\n', 'test');

  beforeAll(async () => {
    fx = await STORE_ENGINES[1].setup();
    app = await serverOn(fx.store, { tokens });
  });
  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
  });

  it("a viewer's POST /api/gitops/apply with a bad body is a 403, not a 400", async () => {
    const headers = { authorization: 'Bearer viewer-token', 'content-type': 'application/json' };
    for (const payload of ['{not json', '{"repository": 3}', '{"a":"\\u0000"}']) {
      expectDocumentedError(await call(app, { method: 'POST', url: '/api/gitops/apply', payload, headers }), 403, 'FORBIDDEN');
    }
  });

  it("every write route answers a viewer's malformed or hostile body with 403", async () => {
    const headers = { authorization: 'Bearer viewer-token', 'content-type': 'application/json' };
    // plan and preview are reads a viewer may make with a body (they answer its bad body with 400); the webhook has its own secret
    const viewerPosts = new Set(['/api/gitops/plan', '/api/gitops/preview', '/api/gitops/webhook']);
    const writes = app.registeredRoutes.filter((r) => WRITE_METHODS.has(r.method) && !viewerPosts.has(r.url));
    expect(writes.length).toBeGreaterThan(30);
    const failures: string[] = [];
    for (const route of writes) {
      const url = route.url.replace(/:(\w+)/g, 'x');
      for (const payload of ['{not json', '{"a":"\\u0000"}']) {
        const response = await call(app, { method: route.method as 'POST', url, payload, headers });
        if (response.status !== 403) failures.push(`${route.method} ${url}: ${response.status}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
