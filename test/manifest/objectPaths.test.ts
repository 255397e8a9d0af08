import { describe, expect, it } from 'vitest';
import { classifyPath, decodeNamePart, encodeNamePart } from '../../src/manifest/objectPaths.js';

describe('classifyPath: names come from paths as DQOps derives them', () => {
  it('names a connection after its folder', () => {
    expect(classifyPath('sources/shop/connection.dqoconnection.yaml')).toMatchObject({ type: 'object', kind: 'source', name: 'shop' });
  });

  it('splits a table file name on the FIRST dot and decodes %XX', () => {
    expect(classifyPath('sources/shop/public.orders.v2.dqotable.yaml')).toMatchObject({
      kind: 'table',
      name: 'shop/public.orders.v2',
      schema: 'public',
      table: 'orders.v2',
    });
    expect(classifyPath('sources/shop/public.a%2Fb%3Ac.dqotable.yaml')).toMatchObject({ name: 'shop/public.a/b:c', table: 'a/b:c' });
    expect(classifyPath('sources/shop/staging.web events.dqotable.yaml')).toMatchObject({ name: 'shop/staging.web events' });
    expect(classifyPath('sources/shop/mart.kundenübersicht.dqotable.yaml')).toMatchObject({ table: 'kundenübersicht' });
  });

  it('names rules and policies by their path, with sub-folders and spaces', () => {
    expect(classifyPath('rules/custom/ratio.dqorule.yaml')).toMatchObject({ kind: 'rule', name: 'custom/ratio' });
    expect(classifyPath('rules/custom/ratio.py')).toEqual({ type: 'attachment', ownerPath: 'rules/custom/ratio.dqorule.yaml' });
    expect(classifyPath('patterns/Detect empty tables daily.dqotablepattern.yaml')).toMatchObject({
      kind: 'default_table_checks',
      name: 'Detect empty tables daily',
    });
    expect(classifyPath('patterns/pii/emails.dqocolumnpattern.yaml')).toMatchObject({ kind: 'default_column_checks', name: 'pii/emails' });
  });

  it('names sensors by their folder, check definitions by their path under checks/, dictionaries by their file name', () => {
    expect(classifyPath('sensors/column/custom/accepted_count/sensordefinition.dqosensor.yaml')).toMatchObject({ kind: 'sensor', name: 'column/custom/accepted_count' });
    expect(classifyPath('sensors/column/custom/accepted_count/postgresql.sql.jinja2')).toEqual({
      type: 'attachment',
      ownerPath: 'sensors/column/custom/accepted_count/sensordefinition.dqosensor.yaml',
    });
    expect(classifyPath('sensors/column/custom/accepted_count/bigquery.dqoprovidersensor.yaml')).toMatchObject({ type: 'attachment' });
    expect(classifyPath('sensors/column/custom/accepted_count/postgresql.sample.sql.jinja2')).toEqual({
      type: 'attachment',
      ownerPath: 'sensors/column/custom/accepted_count/sensordefinition.dqosensor.yaml',
    });
    expect(classifyPath('sensors/dialects/postgresql.sql.jinja2')).toEqual({ type: 'ignored' });
    expect(classifyPath('sensors/column/custom/x/definition.dqosensor.yaml')).toMatchObject({ type: 'invalid', code: 'file_name_invalid' });
    expect(classifyPath('checks/table/profiling/volume/my_rows.dqocheck.yaml')).toMatchObject({ kind: 'check', name: 'table/profiling/volume/my_rows' });
    expect(classifyPath('checks/column/partitioned/daily/nulls/few_nulls.dqocheck.yaml')).toMatchObject({ kind: 'check', name: 'column/partitioned/daily/nulls/few_nulls' });
    expect(classifyPath('checks/column/partitioned/hourly/nulls/few_nulls.dqocheck.yaml')).toMatchObject({ type: 'invalid', code: 'file_name_invalid' });
    expect(classifyPath('checks/column/monitoring/nulls/few_nulls.dqocheck.yaml')).toMatchObject({ type: 'invalid', code: 'file_name_invalid' });
    expect(classifyPath('dictionaries/countries.csv')).toMatchObject({ kind: 'dictionary', name: 'countries.csv' });
    expect(classifyPath('dictionaries/eu/countries.csv')).toMatchObject({ kind: 'dictionary', name: 'eu/countries.csv' });
  });

  it('rejects file names that do not decode or have no schema part', () => {
    expect(classifyPath('sources/shop/public.bad%ZZ.dqotable.yaml')).toMatchObject({ type: 'invalid', code: 'file_name_invalid' });
    expect(classifyPath('sources/shop/public.bad%2.dqotable.yaml')).toMatchObject({ type: 'invalid', code: 'file_name_invalid' });
    expect(classifyPath('sources/shop/orders.dqotable.yaml')).toMatchObject({ type: 'invalid', code: 'file_name_invalid' });
    expect(classifyPath('sources/shop/settings.dqoconnection.yaml')).toMatchObject({ type: 'invalid', code: 'file_name_invalid' });
  });

  it('warns about YAML files that are not DQOps files, and ignores the rest', () => {
    expect(classifyPath('sources/shop/notes.yaml')).toMatchObject({ type: 'invalid', code: 'unrecognized_file' });
    expect(classifyPath('patterns/readme.md')).toEqual({ type: 'ignored' });
    expect(classifyPath('rules/x.dqotable.yaml')).toMatchObject({ type: 'invalid', code: 'unrecognized_file' });
  });

  it('encodes what it decodes', () => {
    for (const name of ['a/b', 'x:y', 'q"u\'o', 'p%q', 'plain name.with.dots']) {
      expect(decodeNamePart(encodeNamePart(name))).toBe(name);
    }
    expect(encodeNamePart('a/b')).toBe('a%2Fb');
  });
});
