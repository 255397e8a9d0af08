import { CORE_SCHEMA, load } from 'js-yaml';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { emitYaml } from '../../src/app/emitYaml.js';
import type { Ordered } from '../../src/app/orderBySchema.js';
import type { JsonValue } from '../../src/model/index.js';

/** Ordered (Maps) → plain JSON, to compare with what a parser reads back. */
function plain(value: Ordered): JsonValue {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

function roundTrips(value: Ordered): void {
  const text = emitYaml(value);
  const expected = plain(value);
  expect(load(text, { schema: CORE_SCHEMA }), text).toEqual(expected);
  expect(parse(text), text).toEqual(expected);
}

/** A small seeded PRNG, so a failure names its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const POOL = [
  'a', 'Z', '0', '9', ' ', '  ', '-', '?', ':', ': ', ',', '[', ']', '{', '}', '#', ' #', '&', '*', '!', '|', '>', "'", '"', '%',
  '@', '`', '+', '.', '~', '\\', '/', '\n', '\n\n', '\t', '\r', '\u0000', '\u007f', '\u0085', '\u00a0', '\u2028', '\ufeff', 'ü', '😀',
  'yes', 'no', 'on', 'off', 'null', 'true', 'False', '0x1F', '0o7', '0755', '1:20', '1e3', '.5', '.inf', '.NaN', '2025-03-04', '=', '${X}',
];

describe('emitYaml: the YAML of exported files', () => {
  it('writes block style with the shapes of the yaml library', () => {
    const doc: Ordered = new Map<string, Ordered>([
      ['apiVersion', 'dqo/v1'],
      ['spec', new Map<string, Ordered>([
        ['labels', ['a', 'team:checkout']],
        ['empty', new Map()],
        ['none', []],
        ['comments', [new Map<string, Ordered>([['date', '2025-03-04T09:15:00'], ['comment', 'x']])]],
        ['sql', 'select 1\nfrom t\n'],
        ['port', '5432'],
        ['num', 1.5],
        ['flag', false],
        ['nothing', null],
        ['2024', 'yes'],
      ])],
    ]);
    expect(emitYaml(doc)).toBe(
      [
        'apiVersion: dqo/v1',
        'spec:',
        '  labels:',
        '    - a',
        '    - team:checkout',
        '  empty: {}',
        '  none: []',
        '  comments:',
        '    - date: "2025-03-04T09:15:00"',
        '      comment: x',
        '  sql: |',
        '    select 1',
        '    from t',
        '  port: "5432"',
        '  num: 1.5',
        '  flag: false',
        '  nothing: null',
        '  "2024": "yes"',
        '',
      ].join('\n'),
    );
  });

  it('literal blocks keep trailing newlines exactly (strip, clip, keep); other multi-line strings are quoted', () => {
    for (const text of ['a\nb', 'a\nb\n', 'a\nb\n\n\n', ' lead\nx', 'x\n  \ny', 'tab\there\n', 'cr\r\nlf', '\nfirst empty', 'a\n\n\nb']) {
      roundTrips(new Map([['k', text]]));
      roundTrips([text, 'after']);
    }
  });

  it('nested sequences and maps in sequences', () => {
    roundTrips(new Map<string, Ordered>([['x', [[1, 2], [], [new Map([['a', [new Map([['b', 'c']])]]])], new Map()]]]));
  });

  it('random strings as keys and values read back identical with js-yaml (dqctl) and yaml', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const random = rng(seed);
      const pick = () => {
        let s = '';
        const parts = 1 + Math.floor(random() * 4);
        for (let i = 0; i < parts; i++) s += POOL[Math.floor(random() * POOL.length)];
        return s;
      };
      const map = new Map<string, Ordered>();
      for (let i = 0; i < 5; i++) map.set(pick().replace(/\n|\r/g, ''), pick());
      try {
        roundTrips(new Map<string, Ordered>([['m', map], ['s', [pick(), pick()]]]));
      } catch (error) {
        throw new Error(`seed ${seed}: ${(error as Error).message}`);
      }
    }
  });
});
