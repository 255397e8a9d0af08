import { describe, expect, it } from 'vitest';
import { lineageFlows, sourceTablesOf, walkLineage, type LineageFlow } from '../../src/app/lineageGraph.js';
import type { TableIdentity as TableRef } from '../../src/model/index.js';
import type { JsonObject } from '../../src/model/index.js';

const t = (table: string, connection = 'c', schema = 's'): TableRef => ({ connection, schema, table });
const flow = (source: string, target: string): LineageFlow => ({ source: t(source), target: t(target) });
const names = (flows: LineageFlow[]) => flows.map((f) => `${f.source.table}>${f.target.table}`);
const sources = (...tables: string[]): JsonObject => ({
  source_tables: tables.map((table) => ({ source_connection: 'c', source_schema: 's', source_table: table })),
});

describe('lineage graph', () => {
  // raw → staging → mart → report, and mart also from dim; other → unrelated
  const graph = [flow('raw', 'staging'), flow('staging', 'mart'), flow('dim', 'mart'), flow('mart', 'report'), flow('other', 'unrelated')];

  it('walks upstream and downstream transitively, breadth first, upstream first', () => {
    expect(names(walkLineage(t('mart'), graph))).toEqual(['staging>mart', 'dim>mart', 'raw>staging', 'mart>report']);
    expect(names(walkLineage(t('staging'), graph))).toEqual(['raw>staging', 'staging>mart', 'mart>report']);
  });

  it('walks one direction only when asked', () => {
    expect(names(walkLineage(t('mart'), graph, { downstream: false }))).toEqual(['staging>mart', 'dim>mart', 'raw>staging']);
    expect(names(walkLineage(t('staging'), graph, { upstream: false }))).toEqual(['staging>mart', 'mart>report']);
    expect(walkLineage(t('mart'), graph, { upstream: false, downstream: false })).toEqual([]);
  });

  it('does not walk sideways into siblings of upstream tables', () => {
    // dim feeds mart; from staging, dim is neither upstream nor downstream
    expect(names(walkLineage(t('staging'), graph))).not.toContain('dim>mart');
  });

  it('ends on a cycle a → b → a and lists each flow once', () => {
    const cycle = [flow('a', 'b'), flow('b', 'a')];
    expect(names(walkLineage(t('a'), cycle))).toEqual(['b>a', 'a>b']);
    expect(names(walkLineage(t('a'), cycle, { upstream: false }))).toEqual(['a>b', 'b>a']);
    const longer = [flow('a', 'b'), flow('b', 'c'), flow('c', 'a'), flow('c', 'd')];
    expect(names(walkLineage(t('b'), longer)).sort()).toEqual(['a>b', 'b>c', 'c>a', 'c>d']);
  });

  it('ends on a table that names itself as a source', () => {
    const self = [flow('a', 'a'), flow('x', 'a')];
    expect(names(walkLineage(t('a'), self))).toEqual(['a>a', 'x>a']);
  });

  it('reads the flows of table specs, skipping incomplete entries and duplicates', () => {
    const spec: JsonObject = {
      source_tables: [
        { source_connection: 'c', source_schema: 's', source_table: 'x' },
        { source_connection: 'c', source_schema: 's' },
        'junk',
        { source_connection: 'c', source_schema: 's', source_table: 'x' },
      ],
    };
    expect(sourceTablesOf(spec)).toEqual([t('x'), t('x')]);
    expect(sourceTablesOf({})).toEqual([]);
    expect(names(lineageFlows([{ ref: t('y'), spec }, { ref: t('z'), spec: sources('y') }]))).toEqual(['x>y', 'y>z']);
  });

  it('tells apart names holding the separators of object names', () => {
    const odd = [{ source: t('b.c', 'a', 's'), target: t('t') }, { source: t('c', 'a', 's.b'), target: t('u') }];
    expect(walkLineage(t('b.c', 'a', 's'), odd)).toEqual([odd[0]]);
  });

  it('walks 10,000 tables in a chain (no recursion limit)', () => {
    const chain = Array.from({ length: 10_000 }, (_, i) => flow(`t${i}`, `t${i + 1}`));
    expect(walkLineage(t('t5000'), chain)).toHaveLength(10_000);
  });
});
