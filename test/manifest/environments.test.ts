/**
 * `${var.NAME}` in the loader: typed substitution (a whole-value reference takes the variable's YAML type, a
 * reference inside text is spliced in), the JSON Schema judging the substituted values at the line written,
 * `${NAME}` secret references left alone, the fingerprint of each environment, and the parse cache reusing a
 * file only while the variables it uses keep their values. (The error diagnostics are fixtures of
 * diagnostics.test.ts; the store side is test/cli/environments.test.ts.)
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findVariableReferences } from '../../src/manifest/environmentVariables.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import { ParseCache } from '../../src/manifest/parseCache.js';
import { EXAMPLE } from '../helpers/cli.js';
import { addEnvironments, OLTP_CONNECTION_FILE, ORDERS_FILE, replaceLine } from '../helpers/environments.js';

describe('${var.NAME} in the loader', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-envs-'));
    await cp(EXAMPLE, dir, { recursive: true });
    await addEnvironments(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const objectOf = (state: Awaited<ReturnType<typeof loadRepository>>, name: string) => state.objects.find((o) => o.name === name)!;

  it('with --env prod the repository loads exactly as examples/shop (same objects, same hashes)', async () => {
    const [prod, shop] = await Promise.all([loadRepository(dir, { environment: 'prod' }), loadRepository(EXAMPLE)]);
    expect(prod.diagnostics).toEqual([]);
    expect(prod.environment).toBe('prod');
    expect(prod.objects.map((o) => [o.kind, o.name, o.hash])).toEqual(shop.objects.map((o) => [o.kind, o.name, o.hash]));
    // the same objects in another environment are another desired state
    expect(prod.fingerprint).not.toBe(shop.fingerprint);
    const dev = await loadRepository(dir, { environment: 'dev' });
    expect(dev.fingerprint).not.toBe(prod.fingerprint);
  });

  it('types a whole-value reference as YAML typed the variable; splices one inside text; leaves ${SECRET} references alone', async () => {
    await writeFile(
      join(dir, 'dqctl.yaml'),
      `apiVersion: dqctl/v1
kind: settings
spec:
  namespace: shop
  environments:
    prod:
      vars:
        orders_min: 5000
        ratio: 0.25
        off: true
        region: eu-west-1
        oltp_sslmode: require
`,
    );
    await replaceLine(dir, OLTP_CONNECTION_FILE, '    host: ${SHOP_OLTP_HOST}', '    host: db-${var.region}.${SHOP_OLTP_DOMAIN}');
    await replaceLine(dir, OLTP_CONNECTION_FILE, '      disabled: true', '      disabled: ${var.off}');
    await replaceLine(dir, ORDERS_FILE, '            anomaly_percent: 0.1', '            anomaly_percent: ${var.ratio}');
    const state = await loadRepository(dir, { environment: 'prod' });
    expect(state.diagnostics).toEqual([]);
    const source = objectOf(state, 'shop_oltp').spec as any;
    expect(source.postgresql.host).toBe('db-eu-west-1.${SHOP_OLTP_DOMAIN}');
    expect(source.postgresql.port).toBe('${SHOP_OLTP_PORT}');
    expect(source.schedules.monitoring_monthly.disabled).toBe(true);
    const orders = objectOf(state, 'shop_oltp/public.orders').spec as any;
    expect(orders.monitoring_checks.daily.volume.daily_row_count.error.min_count).toBe(5000);
    expect(orders.monitoring_checks.daily.volume.daily_row_count_anomaly.error.anomaly_percent).toBe(0.25);
  });

  it('the JSON Schema judges the substituted value, at the line and column written, naming the variable', async () => {
    await replaceLine(dir, 'dqctl.yaml', '        orders_min: 5000', '        orders_min: "many"');
    const state = await loadRepository(dir, { environment: 'prod' });
    expect(state.diagnostics).toHaveLength(1);
    const [d] = state.diagnostics;
    expect(d).toMatchObject({ severity: 'error', code: 'wrong_type', range: { filename: ORDERS_FILE, start: { line: 25, column: 24 } } });
    expect(d.summary).toBe('expected integer, got string "many"');
    expect(d.detail).toContain('The value comes from ${var.orders_min} = "many" (environment prod).');
    // dev's value is a number: the same file is valid there
    expect((await loadRepository(dir, { environment: 'dev' })).diagnostics).toEqual([]);
  });

  it('--env without any dqctl.yaml: one error saying so, without a position', async () => {
    await rm(join(dir, 'dqctl.yaml'));
    const state = await loadRepository(dir, { environment: 'prod' });
    expect(state.diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      ['environment_unknown', '--env prod: there is no valid dqctl.yaml to define it (spec.environments.prod.vars)', undefined],
    ]);
  });

  it('names of environments and variables are checked at the key; an invalid dqctl.yaml reports only its own errors', async () => {
    await writeFile(
      join(dir, 'dqctl.yaml'),
      'apiVersion: dqctl/v1\nkind: settings\nspec:\n  environments:\n    prod:\n      vars:\n        orders-min: 5\n    "bad name!":\n      vars: {}\n',
    );
    const state = await loadRepository(dir, { environment: 'prod' });
    expect(state.diagnostics.map((d) => [d.code, `${d.range?.filename}:${d.range?.start.line}:${d.range?.start.column}`, d.summary])).toEqual([
      ['invalid_value', 'dqctl.yaml:7:9', 'invalid name "orders-min" in vars: it must match ^[A-Za-z_][A-Za-z0-9_]*$'],
      ['invalid_value', 'dqctl.yaml:8:5', 'invalid name "bad name!" in environments: it must match ^[A-Za-z0-9][A-Za-z0-9_.-]*$'],
    ]);
    // the files using variables are not loaded (their values are unknown), the others are
    expect(state.objects.map((o) => o.name)).not.toContain('shop_oltp/public.orders');
    expect(state.objects.map((o) => o.name)).toContain('shop_oltp/public.customers');
  });

  it('finds references, and marks nested and malformed ones', () => {
    expect(findVariableReferences('a ${var.x} b ${var.y_2}').map((r) => r.name)).toEqual(['x', 'y_2']);
    expect(findVariableReferences('${var.${var.x}}')).toEqual([{ start: 0, end: 15, name: null, fault: 'recursive' }]);
    expect(findVariableReferences('${var.}')[0].fault).toBe('malformed');
    expect(findVariableReferences('${var.9lives}')[0].fault).toBe('malformed');
    expect(findVariableReferences('${var.open')[0].fault).toBe('malformed');
    expect(findVariableReferences('${SHOP_HOST} and $var.x')).toEqual([]);
  });
});

describe('the parse cache and environments', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-envs-cache-'));
    await cp(EXAMPLE, dir, { recursive: true });
    await addEnvironments(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reuses a file while the variables it uses keep their values; another --env or a changed value parses it again', async () => {
    const cache = new ParseCache();
    const prod = await loadRepository(dir, { cache, environment: 'prod' });
    const files = cache.stats.parsed;

    await loadRepository(dir, { cache, environment: 'prod' });
    expect(cache.stats).toEqual({ reused: files, parsed: 0 });

    // dev: only the two files that use variables are parsed again, and the result is dev's
    const dev = await loadRepository(dir, { cache, environment: 'dev' });
    expect(cache.stats).toEqual({ reused: files - 2, parsed: 2 });
    const uncached = await loadRepository(dir, { environment: 'dev' });
    expect(dev.objects).toEqual(uncached.objects);
    expect(dev.fingerprint).toBe(uncached.fingerprint);

    // a value of dev that no file uses changes nothing; one that a file uses re-parses that file
    await replaceLine(dir, 'dqctl.yaml', '        orders_min: 10', '        orders_min: 10\n        unused: 1');
    await loadRepository(dir, { cache, environment: 'dev' });
    expect(cache.stats.parsed).toBe(0);
    await replaceLine(dir, 'dqctl.yaml', '        orders_min: 10', '        orders_min: 11');
    const changed = await loadRepository(dir, { cache, environment: 'dev' });
    expect(cache.stats.parsed).toBe(1);
    expect((objectSpec(changed, 'shop_oltp/public.orders') as any).monitoring_checks.daily.volume.daily_row_count.error.min_count).toBe(11);

    // without --env the same cache reports the references, and back in prod all is as it was
    const none = await loadRepository(dir, { cache });
    expect(none.diagnostics.map((d) => d.code)).toEqual(['variable_without_environment', 'variable_without_environment']);
    const prodAgain = await loadRepository(dir, { cache, environment: 'prod' });
    expect(prodAgain.objects).toEqual(prod.objects);
  });
});

function objectSpec(state: Awaited<ReturnType<typeof loadRepository>>, name: string) {
  return state.objects.find((o) => o.name === name)!.spec;
}
