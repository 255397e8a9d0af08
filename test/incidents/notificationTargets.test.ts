import { describe, expect, it } from 'vitest';
import { dqopsHashOf } from '../../src/model/index.js';
import { incidentKeyOf, messageText, notificationSettings, recipientsOf, slackText, type NotificationSettings } from '../../src/incidents/index.js';
import { checkAddress } from '../../src/manifest/notificationAddresses.js';
import { resolveAddress } from '../../src/incidents/notificationAddresses.js';
import type { JsonObject, SeverityNumber } from '../../src/model/index.js';

/**
 * Who gets a message (DQOps's rules, as plain values): filtered notifications by priority, the first match
 * taken, process_additional_filters going on to the next match and to the connection's addresses, disabled
 * filters skipped, `*` wildcards on names; the defaults' addresses for empty connection fields. Also the
 * address syntax, the grouping key and the text.
 */
const subject = {
  connection: 'shop',
  schema: 'public',
  table: 'fact_orders',
  tablePriority: 1,
  dataGroup: 'EU',
  qualityDimension: 'Completeness',
  checkCategory: 'nulls',
  checkType: 'monitoring' as const,
  checkName: 'daily_nulls_count',
  highestSeverity: 3 as SeverityNumber,
};

function settings(filters: JsonObject, own: JsonObject = { incident_opened_addresses: 'own@example.com' }, defaults: JsonObject = {}): NotificationSettings {
  return notificationSettings({ incident_grouping: { incident_notification: { ...own, filtered_notifications: filters } } }, defaults);
}

const target = (address: string) => ({ incident_opened_addresses: address });

describe('recipients of an incident event', () => {
  it('takes the first matching filter by priority, and only it, unless it processes additional filters', () => {
    const filters = {
      later: { priority: 5, filter: { table: 'fact_*' }, target: target('later@example.com') },
      first: { priority: 1, filter: { table: 'fact_*', highest_severity: 3 }, target: target('first@example.com'), message: 'page' },
      other: { priority: 0, filter: { table: 'dim_*' }, target: target('other@example.com') },
    };
    expect(recipientsOf('open', subject, settings(filters))).toEqual([{ address: 'first@example.com', filterName: 'first', location: 'connection', message: 'page' }]);
    const goOn = { ...filters, first: { ...filters.first, process_additional_filters: true } };
    expect(recipientsOf('open', subject, settings(goOn)).map((r) => r.address)).toEqual(['first@example.com', 'later@example.com']);
    const allGoOn = { ...goOn, later: { ...filters.later, process_additional_filters: true } };
    expect(recipientsOf('open', subject, settings(allGoOn)).map((r) => r.address)).toEqual(['first@example.com', 'later@example.com', 'own@example.com']);
  });

  it('skips disabled filters, sends the connection addresses when nothing matches, and matches names with * wildcards', () => {
    const filters = { off: { priority: 1, disabled: true, filter: {}, target: target('off@example.com') } };
    expect(recipientsOf('open', subject, settings(filters)).map((r) => r.address)).toEqual(['own@example.com']);
    const wild = { w: { filter: { connection: 'sh*', schema: '*', table: '*_orders', check_name: 'daily_*', data_group_name: 'E*' }, target: target('w@example.com') } };
    expect(recipientsOf('open', subject, settings(wild)).map((r) => r.address)).toEqual(['w@example.com']);
    const exact = { e: { filter: { quality_dimension: 'Validity' }, target: target('e@example.com') } };
    expect(recipientsOf('open', subject, settings(exact)).map((r) => r.address)).toEqual(['own@example.com']);
    // a matching filter without addresses for this event sends nothing (and stops, as in DQOps)
    const silent = { s: { filter: {}, target: { incident_resolved_addresses: 'r@example.com' } } };
    expect(recipientsOf('open', subject, settings(silent))).toEqual([]);
    expect(recipientsOf('resolved', subject, settings(silent)).map((r) => r.address)).toEqual(['r@example.com']);
  });

  it("falls back to the defaults' addresses field by field, and evaluates the defaults' filters after the connection's", () => {
    const defaults = {
      incident_opened_addresses: 'default-open@example.com',
      incident_muted_addresses: 'default-muted@example.com',
      filtered_notifications: { g: { priority: 0, filter: { table: 'fact_*' }, target: target('global@example.com') } },
    };
    const s = notificationSettings({ incident_grouping: { incident_notification: { incident_muted_addresses: 'own-muted@example.com' } } }, defaults);
    expect(recipientsOf('open', subject, s)).toEqual([{ address: 'global@example.com', filterName: 'g', location: 'global', message: null }]);
    // the matching global filter has no muted addresses: it is taken, and sends nothing (DQOps's rule)
    expect(recipientsOf('muted', subject, s)).toEqual([]);
    expect(recipientsOf('muted', { ...subject, table: 'dim_x' }, s).map((r) => r.address)).toEqual(['own-muted@example.com']);
    const noFilters = notificationSettings({}, { incident_opened_addresses: 'a@example.com, ${HOOK}' });
    expect(recipientsOf('open', subject, noFilters).map((r) => r.address)).toEqual(['a@example.com', '${HOOK}']);
  });
});

describe('addresses, keys and text', () => {
  it('accepts URLs, e-mail addresses and ${ENV} references, and nothing else', () => {
    expect(checkAddress('https://hooks.slack.com/services/${PATH}')).toEqual({ kind: 'webhook' });
    expect(checkAddress('ops@example.com')).toEqual({ kind: 'email' });
    expect(checkAddress('${HOOK}')).toEqual({ kind: 'reference' });
    for (const bad of ['ftp://x.example.com', 'not an address', 'a@b', 'http://', '${BROKEN']) expect(checkAddress(bad)).toHaveProperty('invalid');
    expect(() => resolveAddress('https://h.example.com/${TOKEN}', {})).toThrow(/TOKEN .*not set/);
    expect(resolveAddress('${HOOK}', { HOOK: 'https://h.example.com/x' })).toEqual({ address: 'https://h.example.com/x', kind: 'webhook' });
  });

  it('keys incidents by the grouping level, with a stable hash', () => {
    const fields = { connection: 'shop', schema: 'public', table: 't', dataGroup: 'EU', qualityDimension: 'Completeness', checkCategory: 'nulls', checkType: 'monitoring' as const, checkName: 'daily_nulls_count' };
    const table = incidentKeyOf(fields, { groupingLevel: 'table', divideByDataGroups: false });
    expect(table).toMatchObject({ qualityDimension: null, checkCategory: null, dataGroup: null });
    expect(incidentKeyOf({ ...fields, checkName: 'other', dataGroup: 'US' }, { groupingLevel: 'table', divideByDataGroups: false }).incidentHash).toBe(table.incidentHash);
    const byName = incidentKeyOf(fields, { groupingLevel: 'table_dimension_category_name', divideByDataGroups: true });
    expect(byName).toMatchObject({ qualityDimension: 'Completeness', checkCategory: 'nulls', checkType: 'monitoring', checkName: 'daily_nulls_count', dataGroup: 'EU' });
    expect(byName.incidentHash).not.toBe(table.incidentHash);
    // DQOps's hash of the key's parts (model/dqopsHashes.ts), a non-negative 64-bit integer
    expect(byName.incidentHash).toBe(dqopsHashOf(['shop', 'public', 't', 'EU', 'Completeness', 'nulls', 'monitoring', 'daily_nulls_count']));
    expect(table.incidentHash).toBe(dqopsHashOf(['shop', 'public', 't']));
    expect(BigInt(byName.incidentHash) >= 0n).toBe(true);
    expect(incidentKeyOf(fields, { groupingLevel: 'table_dimension_category_name', divideByDataGroups: true }).incidentHash).toBe(byName.incidentHash);
  });

  it('writes names literally in the text, and escapes them for Slack only', () => {
    const payload = { status: 'open', schema: 'public', table: `a&b<c>"ü"`, connection: 'shop', failed_checks_count: 2, highest_severity: 2, first_seen: '2026-11-20T10:00:00.000Z' };
    const text = messageText(payload, 'http://x/api/incidents/shop/2026/11/id');
    expect(text).toBe('Incident opened on table public.a&b<c>"ü" (connection shop): 2 failed checks, highest severity error, first seen 2026-11-20T10:00:00.000Z. http://x/api/incidents/shop/2026/11/id');
    expect(slackText(text)).toContain('public.a&amp;b&lt;c&gt;"ü"');
  });
});
