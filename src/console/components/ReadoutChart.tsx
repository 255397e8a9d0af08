import type { ResultEntry } from '../api';
import { formatTime } from '../words';

export interface Threshold {
  severity: 'warning' | 'error' | 'fatal';
  parameter: string;
  value: number;
}

/**
 * The readout history of one check as an SVG line chart: actual values (one point per time period and data
 * group, the worst severity's colour), expected values when the rule computes them, and each configured rule
 * threshold as a labelled horizontal line. A table of the same numbers follows it for screen readers.
 */
export function ReadoutChart({ results, thresholds, title }: { results: readonly ResultEntry[]; thresholds: readonly Threshold[]; title: string }) {
  const points = results
    .filter((r) => r.actual_value !== null)
    .map((r) => ({ t: new Date(r.time_period).getTime(), run: r.executed_at, v: r.actual_value as number, e: r.expected_value, s: r.severity }))
    .sort((a, b) => a.t - b.t || (a.run < b.run ? -1 : 1));
  if (points.length === 0) return <p class="empty">No readouts to draw: every result of this check is an execution error.</p>;
  const width = 640;
  const height = 220;
  const pad = { left: 56, right: 120, top: 14, bottom: 34 };
  const values = [...points.map((p) => p.v), ...points.flatMap((p) => (p.e === null ? [] : [p.e])), ...thresholds.map((t) => t.value)];
  let min = Math.min(...values);
  let max = Math.max(...values);
  // labelled ticks at the values' own range: its ends and middle
  const ticks = min === max ? [min] : [min, (min + max) / 2, max];
  if (min === max) {
    min -= 1;
    max += 1;
  }
  const span = max - min;
  min -= span * 0.08;
  max += span * 0.08;
  const t0 = points[0].t;
  const t1 = points[points.length - 1].t;
  // evenly spaced in time order: readouts of one period (several runs, data groups) stay apart
  const step = (width - pad.left - pad.right - 16) / Math.max(1, points.length - 1);
  const xs = points.map((_, i) => pad.left + 8 + (points.length === 1 ? (width - pad.left - pad.right - 16) / 2 : i * step));
  const y = (v: number) => pad.top + (1 - (v - min) / (max - min)) * (height - pad.top - pad.bottom);
  const line = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${xs[i].toFixed(1)},${y(p.v).toFixed(1)}`).join(' ');
  const expected = points.map((p, i) => ({ p, x: xs[i] })).filter(({ p }) => p.e !== null);
  const expectedLine = expected.map(({ p, x }, i) => `${i === 0 ? 'M' : 'L'}${x.toFixed(1)},${y(p.e as number).toFixed(1)}`).join(' ');
  const fmt = (v: number) => (Math.abs(v) >= 100 || Number.isInteger(v) ? v.toFixed(0) : String(Number(v.toPrecision(3))));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${points.length} readouts from ${formatTime(new Date(t0).toISOString())}`}>
        <rect x={pad.left} y={pad.top} width={width - pad.left - pad.right} height={height - pad.top - pad.bottom} class="plot" />
        {ticks.map((v) => (
          <g key={v}>
            <line x1={pad.left} x2={width - pad.right} y1={y(v)} y2={y(v)} class="grid" />
            <text x={pad.left - 6} y={y(v) + 4} class="axis" text-anchor="end">
              {fmt(v)}
            </text>
          </g>
        ))}
        {thresholds.map((t) => (
          <g key={`${t.severity}-${t.parameter}`} class={`threshold threshold-${t.severity}`}>
            <line x1={pad.left} x2={width - pad.right} y1={y(t.value)} y2={y(t.value)} />
            <text x={width - pad.right + 4} y={y(t.value) + 4}>
              {t.severity} {t.parameter.replace(/_/g, ' ')} {fmt(t.value)}
            </text>
          </g>
        ))}
        {expected.length > 0 ? <path d={expectedLine} class="expected" /> : null}
        <path d={line} class="actual" />
        {points.map((p, i) => (
          <circle key={i} cx={xs[i]} cy={y(p.v)} r={3.5} class={`point point-${p.s ?? 'none'}`}>
            <title>
              {formatTime(new Date(p.t).toISOString())}: {p.v} ({p.s ?? 'no severity'})
            </title>
          </circle>
        ))}
        <text x={pad.left} y={height - 10} class="axis">
          {formatTime(new Date(t0).toISOString()).slice(0, 10)}
        </text>
        <text x={width - pad.right} y={height - 10} class="axis" text-anchor="end">
          {formatTime(new Date(t1).toISOString()).slice(0, 10)}
        </text>
      </svg>
      <figcaption>
        {title}: actual value (solid){expected.length > 0 ? ', expected value (dashed)' : ''}
        {thresholds.length > 0 ? ', rule thresholds as configured now (horizontal lines)' : ', no numeric rule threshold'}.
      </figcaption>
    </figure>
  );
}

/** The numeric rule parameters of a check's warning, error and fatal rules (e.g. min_count, max_percent). */
export function thresholdsOf(rules: Partial<Record<'warning' | 'error' | 'fatal', Record<string, unknown>>>): Threshold[] {
  const out: Threshold[] = [];
  for (const severity of ['warning', 'error', 'fatal'] as const) {
    const parameters = rules[severity];
    if (!parameters) continue;
    for (const [parameter, value] of Object.entries(parameters)) {
      if (typeof value === 'number' && Number.isFinite(value) && /^(min|max)_/.test(parameter)) out.push({ severity, parameter, value });
    }
  }
  return out;
}
