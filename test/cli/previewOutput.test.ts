import { describe, expect, it } from 'vitest';
import type { PreviewCheck, PreviewDocument } from '../../src/app/preview/previewDocument.js';
import { MARKDOWN_LIMIT, renderPreviewMarkdown, renderPreviewText } from '../../src/cli/render/previewOutput.js';

/** The preview's renderers on documents of known content: one pull-request comment, the largest effects first. */
const counts = (valid: number, warning = 0, error = 0, fatal = 0) => ({ valid, warning, error, fatal });

function check(i: number, moved: number): PreviewCheck {
  return {
    connection: 'warehouse',
    schema: 'mart',
    table: `fact_table_with_a_long_name_${String(i).padStart(5, '0')}`,
    column: null,
    check_type: 'monitoring',
    time_scale: 'daily',
    check_name: 'daily_row_count',
    change: 'modified',
    source: 'patterns/Detect empty tables daily.dqotablepattern.yaml',
    backtest: { readouts: 30, before: counts(30), after: counts(30 - moved, 0, moved) },
    backtest_error: null,
    live: { status: 'ran', actual_value: 1000 + i, expected_value: 10, severity: 'valid', reason: null, partitions: null },
  };
}

const doc = (checks: PreviewCheck[]): PreviewDocument => ({
  format_version: '1.0',
  base: 'a'.repeat(40),
  head: 'b'.repeat(40),
  days: 30,
  checks,
  warnings: [],
});

describe('preview renderers', () => {
  it('markdown of a policy change on 5,000 tables fits one comment: largest effects first, the rest counted', () => {
    // every 100th table would have raised alerts; the most on table 4,900
    const checks = Array.from({ length: 5000 }, (_, i) => check(i, i % 100 === 0 ? i / 100 : 0));
    const markdown = renderPreviewMarkdown(doc(checks));
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown.startsWith('### dqctl preview: 5000 checks changed (0 added, 5000 modified); backtest of 30 days: 0 → 1225 alerts; live: 0 would fail now')).toBe(true);
    const rows = markdown.split('\n').filter((line) => line.startsWith('| `daily_row_count`'));
    expect(rows[0]).toContain('fact_table_with_a_long_name_04900');
    expect(rows[0]).toContain('0 alerts → 49 alerts (error 0 → 49)');
    expect(rows[1]).toContain('fact_table_with_a_long_name_04800');
    const shown = rows.length;
    expect(shown).toBeLessThan(5000);
    expect(markdown).toContain(`_… and ${5000 - shown} more checks (0 with an effect, 0 without history) that do not fit in one comment`);
  });

  it('text names each check, its backtest and its live outcome; not run says why', () => {
    const notRun: PreviewCheck = { ...check(1, 0), backtest: null, change: 'added', live: { status: 'not_run', actual_value: null, expected_value: null, severity: null, reason: 'connect ECONNREFUSED 127.0.0.1:1', partitions: null } };
    const failed: PreviewCheck = { ...check(2, 0), backtest: null, backtest_error: "rule myrules/band: ValueError: no band (on every readout)" };
    const text = renderPreviewText(doc([check(0, 2), notRun, failed]), { color: false });
    expect(text).toContain('~ warehouse.mart.fact_table_with_a_long_name_00000  daily_row_count (monitoring daily, modified; patterns/Detect empty tables daily.dqotablepattern.yaml)');
    expect(text).toContain('backtest: 30 readouts: 0 alerts → 2 alerts (error 0 → 2)');
    expect(text).toContain('+ warehouse.mart.fact_table_with_a_long_name_00001');
    expect(text).toContain('backtest: no history in the last 30 days');
    expect(text).toContain('live:     not run: connect ECONNREFUSED 127.0.0.1:1');
    expect(text).toContain('backtest: not backtested: rule myrules/band: ValueError: no band (on every readout)');
    expect(text).toContain('3 checks changed (1 added, 2 modified); backtest of 30 days: 0 → 2 alerts (1 without history, 1 not backtested); live: 0 would fail now, 1 not run');
    expect(renderPreviewMarkdown(doc([failed]))).toContain('| not backtested: rule myrules/band: ValueError: no band (on every readout) |');
    expect(renderPreviewMarkdown(doc([]))).toContain('_The change adds or modifies no check._');
  });
});
