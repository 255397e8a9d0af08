import { describe, expect, it } from 'vitest';
import { colorWanted } from '../../src/cli/io.js';
import { renderColumns } from '../../src/cli/render/columns.js';
import { renderDiagnosticsText } from '../../src/cli/render/diagnostics.js';
import { BIN } from '../helpers/cli.js';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Text for terminals: columns aligned by the width a terminal shows, colours as NO_COLOR / FORCE_COLOR say. */
describe('table padding with wide and combining characters', () => {
  it('aligns CJK (two columns each), a decomposed ü (a combining accent takes none) and emoji', () => {
    const text = renderColumns(
      ['NAME', 'ROWS'],
      [
        ['mart.kunden\u0075\u0308bersicht', '1'],
        ['mart.顧客', '2'],
        ['mart.🚚shipments', '3'],
        ['mart.plain', '4'],
      ],
    );
    const lines = text.trimEnd().split('\n');
    // the second column starts at the same terminal column on every line
    const shownColumn = (line: string) => {
      const cell = line.slice(0, line.lastIndexOf('  ') + 2);
      let width = 0;
      for (const ch of cell.normalize('NFC')) width += /[\u4e00-\u9fff]|\p{Extended_Pictographic}/u.test(ch) ? 2 : 1;
      return width;
    };
    const columns = lines.map(shownColumn);
    expect(new Set(columns).size, text).toBe(1);
  });
});

describe('colours', () => {
  it('NO_COLOR turns them off, FORCE_COLOR on, otherwise a terminal decides', () => {
    expect(colorWanted({}, true)).toBe(true);
    expect(colorWanted({}, false)).toBe(false);
    expect(colorWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colorWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colorWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colorWanted({ NO_COLOR: '1', FORCE_COLOR: '1' }, false)).toBe(false);
    expect(colorWanted({ TERM: 'dumb' }, true)).toBe(false);
  });

  it('the renderers colour with ANSI codes only when asked', () => {
    const diagnostics = [{ severity: 'error' as const, code: 'wrong_type', summary: 'bad', range: { filename: 'a.yaml', start: { line: 1, column: 1 }, end: { line: 1, column: 3 } } }];
    const texts = new Map([['a.yaml', 'abc\n']]);
    expect(renderDiagnosticsText(diagnostics, texts, false)).not.toContain('\x1b[');
    expect(renderDiagnosticsText(diagnostics, texts, true)).toContain('\x1b[31m');
  });

  it('dqctl validate colours its report with FORCE_COLOR and not with NO_COLOR (not a terminal either way)', () => {
    const repo = join(import.meta.dirname, '../fixtures/diagnostics/wrong_type');
    const run = (env: NodeJS.ProcessEnv) => {
      try {
        execFileSync(process.execPath, [BIN, 'validate', repo], { env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env }, stdio: 'pipe' });
        return '';
      } catch (error) {
        return String((error as { stdout: Buffer }).stdout) + String((error as { stderr: Buffer }).stderr);
      }
    };
    expect(run({ FORCE_COLOR: '1' })).toContain('\x1b[');
    expect(run({ NO_COLOR: '1', FORCE_COLOR: undefined })).not.toContain('\x1b[');
  });
});
