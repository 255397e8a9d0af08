import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/model/index.js';
import {
  compilePolicies,
  policiesMatchingColumn,
  policiesMatchingTable,
  tableRefOf,
} from '../../src/policy/index.js';
import { columnPolicy, rowCountPolicy, table, tablePolicy } from './policyFixtures.js';

const orders = table('shop/public.orders', {
  stage: 'landing',
  priority: 2,
  labels: ['gold', 'team=sales'],
  columns: {
    id: { type_snapshot: { column_type: 'int8', nullable: false }, labels: ['key'] },
    email: { type_snapshot: { column_type: 'varchar(255)' }, labels: ['pii'] },
    created_at: { type_snapshot: { column_type: 'timestamptz' } },
    notes: {},
  },
});
const shopConnection: JsonObject = { provider_type: 'postgresql', labels: ['prod', 'eu'] };

function matchesTable(target: JsonObject, t = orders, connection: JsonObject | undefined = shopConnection): boolean {
  return policiesMatchingTable(t, connection, [rowCountPolicy('p', target)]).length === 1;
}

function matchesColumn(target: JsonObject, column: string, t = orders, connection: JsonObject | undefined = shopConnection): boolean {
  return policiesMatchingColumn(t, column, connection, [columnPolicy('p', { target })]).length === 1;
}

describe('table policy targets', () => {
  it('matches everything with no target or an empty one', () => {
    expect(policiesMatchingTable(orders, shopConnection, [tablePolicy('p', {})])).toEqual(['p']);
    expect(matchesTable({})).toBe(true);
    expect(matchesTable({ connection: '', schema: '  ', table: '', stage: '', label: '' })).toBe(true);
    expect(matchesTable({ connection: null, table_priority: null })).toBe(true);
  });

  it('matches connection, schema and table names with lists and wildcards', () => {
    expect(matchesTable({ connection: 'shop' })).toBe(true);
    expect(matchesTable({ connection: 'crm, shop' })).toBe(true);
    expect(matchesTable({ connection: 'sh*' })).toBe(true);
    expect(matchesTable({ connection: 'crm' })).toBe(false);
    expect(matchesTable({ schema: 'public' })).toBe(true);
    expect(matchesTable({ schema: 'pub*c' })).toBe(true);
    expect(matchesTable({ schema: 'staging' })).toBe(false);
    expect(matchesTable({ table: '*ders' })).toBe(true);
    expect(matchesTable({ table: '*rde*' })).toBe(true);
    expect(matchesTable({ table: 'order' })).toBe(false);
  });

  it('is case-sensitive', () => {
    expect(matchesTable({ table: 'Orders' })).toBe(false);
    expect(matchesTable({ connection: 'SHOP' })).toBe(false);
  });

  it('requires every set field to match', () => {
    expect(matchesTable({ connection: 'shop', schema: 'public', table: 'orders' })).toBe(true);
    expect(matchesTable({ connection: 'shop', schema: 'public', table: 'customers' })).toBe(false);
    expect(matchesTable({ connection: 'shop', stage: 'staging' })).toBe(false);
  });

  it('matches the stage; a table without a stage never matches a stage filter', () => {
    expect(matchesTable({ stage: 'landing' })).toBe(true);
    expect(matchesTable({ stage: 'land*' })).toBe(true);
    expect(matchesTable({ stage: 'staging' })).toBe(false);
    expect(matchesTable({ stage: '*' }, table('shop/public.x'))).toBe(false);
  });

  it('table_priority matches tables whose own priority is set and at most the value', () => {
    expect(matchesTable({ table_priority: 2 })).toBe(true);
    expect(matchesTable({ table_priority: 3 })).toBe(true);
    expect(matchesTable({ table_priority: 1 })).toBe(false);
    expect(matchesTable({ table_priority: 0 })).toBe(false);
    expect(matchesTable({ table_priority: 100 }, table('shop/public.x'))).toBe(false);
    expect(matchesTable({ table_priority: 0 }, table('shop/public.x', { priority: 0 }))).toBe(true);
  });

  it('matches labels of the connection or of the table', () => {
    expect(matchesTable({ label: 'gold' })).toBe(true);
    expect(matchesTable({ label: 'prod' })).toBe(true);
    expect(matchesTable({ label: 'team=*' })).toBe(true);
    expect(matchesTable({ label: 'silver, eu' })).toBe(true);
    expect(matchesTable({ label: 'silver' })).toBe(false);
    expect(matchesTable({ label: 'prod' }, orders, {})).toBe(false);
    expect(matchesTable({ label: 'pii' })).toBe(false); // a column label does not count for table policies
    expect(matchesTable({ label: '*' }, table('shop/public.x'), {})).toBe(false);
  });

  it('reads numbers written where text is expected as text', () => {
    expect(matchesTable({ table: 2024 }, table('shop/public.2024'))).toBe(true);
  });
});

describe('column policy targets', () => {
  it('adds the column name, with lists and wildcards', () => {
    expect(matchesColumn({ column: 'email' }, 'email')).toBe(true);
    expect(matchesColumn({ column: 'id, *_at' }, 'created_at')).toBe(true);
    expect(matchesColumn({ column: 'id, *_at' }, 'email')).toBe(false);
    expect(matchesColumn({ column: 'Email' }, 'email')).toBe(false);
  });

  it('keeps the table fields', () => {
    expect(matchesColumn({ table: 'orders', column: 'id' }, 'id')).toBe(true);
    expect(matchesColumn({ table: 'customers', column: 'id' }, 'id')).toBe(false);
    expect(matchesColumn({ table_priority: 1 }, 'id')).toBe(false);
    expect(matchesColumn({ stage: 'landing', connection: 'shop', schema: 'public' }, 'id')).toBe(true);
  });

  it('matches labels of the connection, the table or the column', () => {
    expect(matchesColumn({ label: 'pii' }, 'email')).toBe(true);
    expect(matchesColumn({ label: 'pii' }, 'id')).toBe(false);
    expect(matchesColumn({ label: 'gold' }, 'id')).toBe(true);
    expect(matchesColumn({ label: 'eu' }, 'id')).toBe(true);
  });

  it('data_type matches type_snapshot.column_type as written', () => {
    expect(matchesColumn({ data_type: 'varchar(255)' }, 'email')).toBe(true);
    expect(matchesColumn({ data_type: 'varchar*' }, 'email')).toBe(true);
    expect(matchesColumn({ data_type: 'VARCHAR(255)' }, 'email')).toBe(false);
    expect(matchesColumn({ data_type: 'int8, int4' }, 'id')).toBe(true);
    expect(matchesColumn({ data_type: '*' }, 'notes')).toBe(false); // no type
  });

  it('data_type_category matches the category derived from the column type', () => {
    expect(matchesColumn({ data_type_category: 'numeric_integer' }, 'id')).toBe(true);
    expect(matchesColumn({ data_type_category: 'text' }, 'email')).toBe(true);
    expect(matchesColumn({ data_type_category: 'datetime_timestamp' }, 'created_at')).toBe(true);
    expect(matchesColumn({ data_type_category: 'text' }, 'id')).toBe(false);
    expect(matchesColumn({ data_type_category: 'other' }, 'notes')).toBe(false);
  });

  it('matches columns the table spec does not list, by name only', () => {
    expect(matchesColumn({ column: 'unlisted' }, 'unlisted')).toBe(true);
    expect(matchesColumn({ data_type_category: 'text' }, 'unlisted')).toBe(false);
  });
});

describe('policiesMatchingTable / policiesMatchingColumn', () => {
  const policies = [
    rowCountPolicy('late', {}, { priority: 50 }),
    rowCountPolicy('early', {}, { priority: 5 }),
    rowCountPolicy('default', {}),
    rowCountPolicy('off', {}, { priority: 1, disabled: true }),
    rowCountPolicy('elsewhere', { connection: 'crm' }, { priority: 1 }),
    columnPolicy('col', { target: { column: 'id' } }),
  ];

  it('lists the enabled matching policies of the right kind in the order they apply', () => {
    expect(policiesMatchingTable(orders, shopConnection, policies)).toEqual(['early', 'late', 'default']);
    expect(policiesMatchingColumn(orders, 'id', shopConnection, policies)).toEqual(['col']);
    expect(policiesMatchingColumn(orders, 'email', shopConnection, policies)).toEqual([]);
  });

  it('lists disabled ones on request', () => {
    expect(policiesMatchingTable(orders, shopConnection, policies, { includeDisabled: true })).toEqual(['off', 'early', 'late', 'default']);
  });

  it('matches a disabled table by its target alone', () => {
    expect(policiesMatchingTable(table('shop/public.orders', { disabled: true }), undefined, policies)).toEqual(['early', 'late', 'default']);
  });

  it('accepts compiled policies, and ignores objects of other kinds', () => {
    const compiled = compilePolicies([...policies, { kind: 'table', name: 'shop/public.orders', spec: {} }]);
    expect(compiled.table.map((p) => p.name)).toEqual(['elsewhere', 'off', 'early', 'late', 'default']);
    expect(compiled.column.map((p) => p.name)).toEqual(['col']);
    expect(policiesMatchingTable(orders, shopConnection, compiled)).toEqual(['early', 'late', 'default']);
  });

  it('breaks priority ties by policy name and defaults the priority to 1000', () => {
    const compiled = compilePolicies([rowCountPolicy('b', {}), rowCountPolicy('a', {}, { priority: 1000 }), rowCountPolicy('c', {}, { priority: 999 })]);
    expect(compiled.table.map((p) => [p.name, p.priority])).toEqual([['c', 999], ['a', 1000], ['b', 1000]]);
  });
});

describe('tableRefOf', () => {
  it('splits connection/schema.table on the first slash and the first dot after it', () => {
    expect(tableRefOf('shop/public.orders', {})).toEqual({ connection: 'shop', schema: 'public', table: 'orders', spec: {} });
    expect(tableRefOf('shop/public.a.b', {})).toMatchObject({ schema: 'public', table: 'a.b' });
    expect(tableRefOf('shop/public.a/b', {})).toMatchObject({ schema: 'public', table: 'a/b' });
    expect(tableRefOf('shop', {})).toBeUndefined();
    expect(tableRefOf('shop/public', {})).toBeUndefined();
  });
});
