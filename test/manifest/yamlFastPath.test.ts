/**
 * parseYamlFile reads a file with js-yaml and clears it of depth and storability faults with one walk that builds
 * no path; the `yaml` library (parseWithPositions) reads the files js-yaml refuses. Both must agree: on every
 * document js-yaml accepts, the slow path gives the same value and the same diagnostics at the same
 * file:line:column, whether the fault is found or the document is clear.
 */
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH, parseWithPositions, parseYamlFile } from '../../src/manifest/yamlDocument.js';

/** Lists under a root mapping: the innermost list lies `levels` levels down. */
const nestedLists = (levels: number) => `a: ${'['.repeat(levels)}1${']'.repeat(levels)}\n`;
/** Mappings under the root mapping: the innermost lies `levels - 1` levels down. */
const nestedMaps = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1\n';

const CASES: Array<{ name: string; text: string; codes: string[] }> = [
  { name: 'a clean document', text: 'apiVersion: dqo/v1\nkind: table\nspec:\n  columns:\n    id: { type_snapshot: { column_type: INT } }\n', codes: [] },
  { name: 'a NUL escape in a value', text: 'spec:\n  status: "ship\\0ped"\n', codes: ['unstorable_text'] },
  { name: 'a \\x00 escape in a value', text: 'spec:\n  - "a\\x00b"\n', codes: ['unstorable_text'] },
  { name: 'a lone surrogate escape in a key', text: 'spec:\n  "status\\ud800": 1\n', codes: ['unstorable_text'] },
  { name: 'a paired surrogate escape (storable)', text: 'spec:\n  v: "\\ud83d\\ude00"\n', codes: [] },
  { name: 'an escape that is storable', text: 'spec:\n  v: "tab\\there"\n', codes: [] },
  { name: 'a raw lone surrogate (text from a request, no escape)', text: 'spec:\n  v: "a\ud800b"\n', codes: ['unstorable_text'] },
  { name: 'a raw lone surrogate in a plain key', text: 'spec:\n  k\udc00: 1\n', codes: ['unstorable_text'] },
  { name: '.inf', text: 'spec:\n  max: .inf\n', codes: ['unstorable_number'] },
  { name: '-.Inf in a list', text: 'spec:\n  - 1\n  - -.Inf\n', codes: ['unstorable_number'] },
  { name: '.NaN', text: 'spec: { v: .NaN }\n', codes: ['unstorable_number'] },
  { name: '.inf behind an alias (reported at the anchor and at the alias)', text: 'a: &x { v: .inf }\nb: *x\n', codes: ['unstorable_number', 'unstorable_number'] },
  { name: `lists ${MAX_NESTING_DEPTH - 1} levels down`, text: nestedLists(MAX_NESTING_DEPTH - 1), codes: [] },
  { name: `lists ${MAX_NESTING_DEPTH} levels down`, text: nestedLists(MAX_NESTING_DEPTH), codes: ['too_deeply_nested'] },
  { name: `mappings ${MAX_NESTING_DEPTH - 1} levels down`, text: nestedMaps(MAX_NESTING_DEPTH), codes: [] },
  { name: `mappings ${MAX_NESTING_DEPTH} levels down`, text: nestedMaps(MAX_NESTING_DEPTH + 1), codes: ['too_deeply_nested'] },
  { name: 'deep and unstorable: depth is reported', text: `b: .nan\n${nestedLists(MAX_NESTING_DEPTH + 2)}`, codes: ['too_deeply_nested'] },
  { name: 'several unstorable values', text: 'a: .inf\nb: "x\\0"\nc: [1, .nan]\n', codes: ['unstorable_number', 'unstorable_text', 'unstorable_number'] },
];

describe('parseYamlFile (js-yaml, screened) and parseWithPositions (the yaml library) agree', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const fast = parseYamlFile('f.yaml', c.text);
      const slow = parseWithPositions('f.yaml', c.text);
      expect(fast.diagnostics.map((d) => d.code)).toEqual(c.codes);
      expect(fast.diagnostics).toEqual(slow.diagnostics);
      expect(fast.parsed?.value).toEqual(slow.parsed?.value);
      expect(fast.parsed === undefined).toBe(c.codes.length > 0);
    });
  }
});

describe('where the two parsers differ (js-yaml reads every file the yaml library does not have to)', () => {
  it('a number beyond a double: js-yaml keeps the text (a string, storable), the yaml library reads Infinity', () => {
    const text = 'spec:\n  v: 1e999\n';
    expect(parseYamlFile('f.yaml', text)).toMatchObject({ diagnostics: [], parsed: { value: { spec: { v: '1e999' } } } });
    expect(parseWithPositions('f.yaml', text).diagnostics.map((d) => d.code)).toEqual(['unstorable_number']);
  });
});
