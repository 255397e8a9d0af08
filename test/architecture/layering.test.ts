import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importsOf, moduleOf, sourceFiles, type ImportEdge } from './importGraph.js';

/**
 * ARCHITECTURE.md is the map, and this test keeps it true: the layer of every module and the packages that
 * have one home are read from its tables, and every import under src/ must agree. A module may import its
 * own layer or a lower one, never a higher one; modules must not import each other in a cycle; files must
 * not import each other in a cycle.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const MAP = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');

function layerTable(): Map<string, number> {
  const layers = new Map<string, number>();
  for (const match of MAP.matchAll(/^\| (\d+) \| `([a-z]+)` \|/gm)) layers.set(match[2], Number(match[1]));
  return layers;
}

function packageHomes(): Map<string, string[]> {
  const homes = new Map<string, string[]>();
  for (const match of MAP.matchAll(/^\| package `([^`]+)` \| ([^|]+) \|/gm)) {
    homes.set(match[1], match[2].split(',').map((m) => m.trim().replace(/`/g, '')));
  }
  return homes;
}

const files = sourceFiles(ROOT);
const edges: ImportEdge[] = files.flatMap((file) => importsOf(ROOT, file));
const layers = layerTable();
const where = (edge: ImportEdge) => `${edge.from}:${edge.line} imports ${edge.to}`;

describe('the layering that ARCHITECTURE.md states', () => {
  it('has a layer for every module under src/, and no module that does not exist', () => {
    const modules = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(layers.size).toBeGreaterThan(10);
    expect(modules.filter((m) => !layers.has(m))).toEqual([]);
    expect([...layers.keys()].filter((m) => !existsSync(join(ROOT, 'src', m)))).toEqual([]);
  });

  it('no module imports a module of a higher layer', () => {
    const upward = edges
      .filter((e) => !e.external && moduleOf(e.from) !== moduleOf(e.to))
      .filter((e) => (layers.get(moduleOf(e.to)) ?? Infinity) > (layers.get(moduleOf(e.from)) ?? -Infinity))
      .map((e) => `${where(e)} (layer ${layers.get(moduleOf(e.from))} -> ${layers.get(moduleOf(e.to))})`);
    expect(upward).toEqual([]);
  });

  it('the console imports nothing of the rest of src/: it talks to the REST API only', () => {
    const reaching = edges.filter((e) => !e.external && moduleOf(e.from) === 'console' && moduleOf(e.to) !== 'console').map(where);
    expect(reaching).toEqual([]);
  });

  it('the CLI and the server reach the domain through app alone: below the layer of app they import only model', () => {
    const appLayer = layers.get('app')!;
    const below = edges
      .filter((e) => !e.external && ['cli', 'server'].includes(moduleOf(e.from)))
      .filter((e) => moduleOf(e.to) !== 'model' && (layers.get(moduleOf(e.to)) ?? Infinity) < appLayer)
      .map(where);
    expect(below).toEqual([]);
  });

  it('modules do not import each other in a cycle', () => {
    const graph = new Map<string, Set<string>>();
    for (const module of layers.keys()) graph.set(module, new Set());
    for (const e of edges) if (!e.external && moduleOf(e.from) !== moduleOf(e.to)) graph.get(moduleOf(e.from))?.add(moduleOf(e.to));
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('files do not import each other in a cycle', () => {
    const graph = new Map<string, Set<string>>(files.map((f) => [f, new Set<string>()]));
    for (const e of edges) if (!e.external) graph.get(e.from)!.add(e.to);
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('every relative import names a file that exists', () => {
    const missing = edges.filter((e) => !e.external && !existsSync(join(ROOT, e.to))).map(where);
    expect(missing).toEqual([]);
  });

  it('packages with one home are imported only there', () => {
    const homes = packageHomes();
    expect(homes.size).toBeGreaterThan(2);
    const strays: string[] = [];
    for (const e of edges) {
      if (!e.external) continue;
      for (const [pattern, allowed] of homes) {
        const matches = pattern.endsWith('/*') ? e.to.startsWith(pattern.slice(0, -1)) : e.to === pattern;
        if (matches && !allowed.includes(moduleOf(e.from))) strays.push(`${where(e)} (only in ${allowed.join(', ')})`);
      }
    }
    expect(strays).toEqual([]);
  });
});

describe('the checker itself', () => {
  it('finds a cycle and an upward import in a made-up graph', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(new Map([['x', new Set(['x'])]]))).toEqual([['x']]);
    expect(cyclesOf(new Map([['x', new Set(['y'])], ['y', new Set<string>()]]))).toEqual([]);
  });

  it('reads static, type-only, re-exported and dynamic imports', () => {
    const seen = importsOf(ROOT, 'test/architecture/fixtures/imports.ts').map((e) => e.to);
    expect(seen).toEqual(['src/model/index.ts', 'src/diff/diff.ts', 'src/plan/plan.ts', 'src/store/index.ts', 'node:', 'pg', '@electric-sql/pglite']);
  });
});
