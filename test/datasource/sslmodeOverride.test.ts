import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/datasource/connectionConfig.js';
import { parseSslmodeOverride, withSslmodeOverrides } from '../../src/datasource/sslmodeOverride.js';

const spec = { provider_type: 'postgresql', postgresql: { host: 'db', sslmode: 'verify-full' } };

describe('DQCTL_SSLMODE_OVERRIDE', () => {
  it('replaces the sslmode of the connections it names, and only those', async () => {
    const env = { DQCTL_SSLMODE_OVERRIDE: 'shop_oltp=disable, analytics_dwh=require' };
    expect((await resolveConnection('shop_oltp', spec, { env })).config.ssl).toBe(false);
    expect((await resolveConnection('analytics_dwh', spec, { env })).config.ssl).toEqual({ rejectUnauthorized: false });
    expect((await resolveConnection('other', spec, { env })).config.ssl).toEqual({ rejectUnauthorized: true });
    expect((await resolveConnection('shop_oltp', spec, { env: {} })).config.ssl).toEqual({ rejectUnauthorized: true });
  });

  it('takes the last entry of a connection; refuses what is not connection=sslmode', () => {
    expect([...parseSslmodeOverride(withSslmodeOverrides('a=require', [['a', 'disable']]))]).toEqual([['a', 'disable']]);
    expect(() => parseSslmodeOverride('a=off')).toThrow(/not <connection>=<sslmode>/);
    expect(() => parseSslmodeOverride('=disable')).toThrow(/not <connection>=<sslmode>/);
    expect(parseSslmodeOverride('').size).toBe(0);
  });
});
