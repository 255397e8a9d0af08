import { useEffect, useMemo, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ResultEntry } from '../api';
import { formatNumber, formatTime, shortHash } from '../words';
import { chartDataOf, formatTick, MAX_GROUP_LINES, tickSteps, type ChartData, type Severity } from './readoutChartData';
export { isSchemaHashSensor } from './readoutChartData';

export interface Threshold {
  severity: 'warning' | 'error' | 'fatal';
  parameter: string;
  value: number;
}

const HEIGHT = 260;
const DAY_STEPS = [1, 2, 7, 14, 28, 56, 91, 182, 365, 730, 1825].map((days) => days * 86_400);
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const LINE_COLOURS = ['#0a55b8', '#0f7b6c', '#7c3aed', '#b45309', '#be185d', '#0e7490', '#4d7c0f', '#6b7280'];
const SEVERITY_COLOURS: Record<Severity, string> = { valid: '#0a55b8', warning: '#d08a00', error: '#a3161a', fatal: '#6b0f3a' };
const BAND_COLOURS: Record<Threshold['severity'], string> = { warning: 'rgba(208, 138, 0, 0.13)', error: 'rgba(163, 22, 26, 0.11)', fatal: 'rgba(107, 15, 58, 0.13)' };

/** What a rule parameter says, in words: `min_count` 100 → "below 100 (min count)". */
export function thresholdWords(t: Threshold): string {
  const side = t.parameter.startsWith('min_') ? 'below' : 'above';
  return `${t.severity} ${side} ${formatNumber(t.value)} (${t.parameter.replace(/_/g, ' ')})`;
}

/**
 * The readout history of one check as a time series drawn by uPlot: the actual values (a line per data group,
 * failed readouts marked in their severity's colour), the expected values when the rules compute them, and each
 * numeric rule threshold as a band over the values it fails (below a min_, above a max_). A time axis in UTC, tick
 * labels sized to the axis, a tooltip on hover, the width of its card. The tick labels drawn are kept in
 * `data-y-ticks` / `data-x-ticks` (what a test reads: the canvas has no text).
 */
export function ReadoutChart({ results, thresholds, title }: { results: readonly ResultEntry[]; thresholds: readonly Threshold[]; title: string }) {
  const data = useMemo(() => chartDataOf(results), [results]);
  if (data.readouts.length === 0) return <p class="empty">No readouts to draw: every result of this check is an execution error.</p>;
  const first = formatTime(data.times[0] * 1000);
  const last = formatTime(data.times[data.times.length - 1] * 1000);
  return (
    <figure class="chart">
      <Plot data={data} thresholds={thresholds} label={`${title}: ${data.readouts.length} readouts from ${first} to ${last}`} />
      <figcaption>
        {title}, times in UTC: actual value{data.groups.length > 1 ? ` of ${data.groups.length} data groups (a line each)` : ' (solid line)'}
        {data.expected ? ', expected value (dashed)' : ''}; failed readouts in their severity’s colour.
        {thresholds.length > 0 ? ' Rule thresholds as configured now, shaded where a value fails them:' : ' No numeric rule threshold.'}
        {thresholds.length > 0 ? (
          <ul class="thresholds">
            {thresholds.map((t) => (
              <li key={`${t.severity}-${t.parameter}`} class={`threshold-${t.severity}`}>
                {thresholdWords(t)}
              </li>
            ))}
          </ul>
        ) : null}
      </figcaption>
    </figure>
  );
}

function Plot({ data, thresholds, label }: { data: ChartData; thresholds: readonly Threshold[]; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  // drawn again only when the readouts or the thresholds change, not on every render of the page
  const thresholdKey = JSON.stringify(thresholds);
  useEffect(() => {
    const element = host.current!;
    const plot = new uPlot(optionsOf(data, thresholds, Math.max(200, element.clientWidth)), alignedOf(data), element);
    // the full width of the card, following it when the window resizes
    const observer = new ResizeObserver(() => {
      const width = Math.max(200, element.clientWidth);
      if (width !== plot.width) plot.setSize({ width, height: HEIGHT });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [data, thresholdKey]);
  return <div class="plot" ref={host} role="img" aria-label={label} data-testid="readout-chart" />;
}

function alignedOf(data: ChartData): uPlot.AlignedData {
  return [data.times, ...data.values.slice(0, MAX_GROUP_LINES), ...(data.expected ? [data.expected] : [])];
}

let measuring: CanvasRenderingContext2D | null = null;
/** The width of a tick label in the axis font, in CSS pixels. */
function textWidth(text: string): number {
  measuring ??= document.createElement('canvas').getContext('2d');
  if (!measuring) return text.length * 8;
  measuring.font = AXIS_FONT;
  return measuring.measureText(text).width;
}

function optionsOf(data: ChartData, thresholds: readonly Threshold[], width: number): uPlot.Options {
  const limits = [...data.readouts.flatMap((r) => (r.expected === null ? [r.value] : [r.value, r.expected])), ...thresholds.map((t) => t.value)];
  const low = Math.min(...limits);
  const high = Math.max(...limits);
  const lines = data.groups.slice(0, MAX_GROUP_LINES);
  const first = data.times[0];
  const last = data.times[data.times.length - 1];
  const margin = first === last ? 86_400 : (last - first) * 0.03;
  const xRange: [number, number] = [first - margin, last + margin];
  const tooltip = document.createElement('div');
  tooltip.className = 'chart-tooltip';
  tooltip.hidden = true;
  return {
    width,
    height: HEIGHT,
    // times are UTC everywhere in the console
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { size: 7 } },
    scales: {
      // the readouts' own period, a little wider so the first and last points are not on the frame; a day each side of one readout
      x: { time: true, auto: false, range: xRange },
      y: { range: () => uPlot.rangeNum(low, high, 0.1, true) as [number, number] },
    },
    axes: [
      {
        font: AXIS_FONT,
        stroke: '#4a5360',
        grid: { stroke: '#e3e7ec' },
        ticks: { stroke: '#d5d9e0' },
        // daily and monthly periods start at midnight: ticks a day apart at least, so no day is labelled twice
        ...(data.times.every((t) => t % 86_400 === 0) ? { incrs: DAY_STEPS } : {}),
      },
      {
        font: AXIS_FONT,
        stroke: '#4a5360',
        grid: { stroke: '#e3e7ec' },
        ticks: { stroke: '#d5d9e0' },
        incrs: tickSteps(data.whole),
        values: (_u, splits, _axis, _space, step) => splits.map((v) => formatTick(v, step)),
        // as wide as its longest label: nothing clipped, no space wasted
        size: (_u, values) => Math.ceil(Math.max(24, ...(values ?? []).map((v) => textWidth(String(v))))) + 18,
      },
    ],
    series: [
      {},
      ...lines.map((group, i) => ({
        label: group || 'all rows',
        stroke: lines.length === 1 ? LINE_COLOURS[0] : LINE_COLOURS[Math.min(i, LINE_COLOURS.length - 1)],
        width: 2,
        spanGaps: true,
        points: { show: true, size: 6, fill: '#ffffff' },
      })),
      ...(data.expected ? [{ label: 'expected', stroke: '#6b7480', width: 1.5, dash: [5, 4], spanGaps: true, points: { show: false } }] : []),
    ],
    hooks: {
      init: [(u) => u.over.appendChild(tooltip)],
      // the threshold bands under the lines: the values each rule fails
      drawClear: [
        (u) => {
          const { ctx, bbox } = u;
          ctx.save();
          for (const t of thresholds) {
            const edge = Math.round(u.valToPos(t.value, 'y', true));
            const top = t.parameter.startsWith('min_') ? Math.max(bbox.top, edge) : bbox.top;
            const bottom = t.parameter.startsWith('min_') ? bbox.top + bbox.height : Math.min(bbox.top + bbox.height, edge);
            if (bottom <= top) continue;
            ctx.fillStyle = BAND_COLOURS[t.severity];
            ctx.fillRect(bbox.left, top, bbox.width, bottom - top);
            ctx.strokeStyle = SEVERITY_COLOURS[t.severity];
            ctx.setLineDash([3, 3]);
            ctx.beginPath();
            ctx.moveTo(bbox.left, edge);
            ctx.lineTo(bbox.left + bbox.width, edge);
            ctx.stroke();
          }
          ctx.restore();
        },
      ],
      // failed readouts in their severity's colour, over the lines
      draw: [
        (u) => {
          const { ctx } = u;
          ctx.save();
          for (const r of data.readouts) {
            if (r.severity === null || r.severity === 'valid') continue;
            ctx.fillStyle = SEVERITY_COLOURS[r.severity];
            ctx.beginPath();
            ctx.arc(u.valToPos(r.t, 'x', true), u.valToPos(r.value, 'y', true), 5 * devicePixelRatio, 0, 2 * Math.PI);
            ctx.fill();
          }
          ctx.restore();
          const figure = u.root.closest('figure');
          const labels = (axis: number) => JSON.stringify((u.axes[axis] as { _values?: unknown[] })._values ?? []);
          figure?.setAttribute('data-x-ticks', labels(0));
          figure?.setAttribute('data-y-ticks', labels(1));
          figure?.setAttribute('data-y-axis-width', String((u.axes[1] as { _size?: number })._size ?? 0));
        },
      ],
      // the tooltip: the period and every data group's readout then
      setCursor: [
        (u) => {
          const idx = u.cursor.idx;
          if (idx === null || idx === undefined || u.cursor.left === undefined || u.cursor.left < 0) {
            tooltip.hidden = true;
            return;
          }
          const t = data.times[idx];
          const here = data.readouts.filter((r) => r.t === t);
          tooltip.replaceChildren();
          const head = document.createElement('strong');
          head.textContent = formatTime(t * 1000);
          tooltip.appendChild(head);
          for (const r of here.slice(0, 12)) {
            const line = document.createElement('div');
            line.textContent = `${data.groups.length > 1 ? `${r.group || 'all rows'}: ` : ''}${formatNumber(r.value)}${r.expected !== null ? ` (expected ${formatNumber(r.expected)})` : ''} · ${r.severity ?? 'no verdict'}`;
            tooltip.appendChild(line);
          }
          if (here.length > 12) tooltip.appendChild(Object.assign(document.createElement('div'), { textContent: `… and ${here.length - 12} more data groups` }));
          tooltip.hidden = false;
          const left = u.cursor.left;
          const flip = left > u.over.clientWidth / 2;
          tooltip.style.left = flip ? '' : `${left + 12}px`;
          tooltip.style.right = flip ? `${u.over.clientWidth - left + 12}px` : '';
          tooltip.style.top = `${Math.max(0, (u.cursor.top ?? 0) - 10)}px`;
        },
      ],
    },
  };
}

/**
 * The readouts of a schema check (a hash of the column list or types): not a quantity to chart, so each period
 * says whether the schema changed since the readout before, with the short hash as text.
 */
export function SchemaHashReadouts({ results, title }: { results: readonly ResultEntry[]; title: string }) {
  const rows = [...results].filter((r) => r.actual_value !== null).sort((a, b) => (a.time_period < b.time_period ? -1 : a.time_period > b.time_period ? 1 : 0));
  if (rows.length === 0) return <p class="empty">No readouts: every result of this check is an execution error.</p>;
  const previous = new Map<string, number>();
  const shown = rows.map((r) => {
    const before = previous.get(r.data_group);
    previous.set(r.data_group, r.actual_value as number);
    return { r, change: before === undefined ? 'first readout' : before === r.actual_value ? 'unchanged' : 'changed' };
  });
  return (
    <table data-testid="schema-readouts">
      <caption>{title}: the schema’s hash at each period (a hash only tells whether the schema changed)</caption>
      <thead>
        <tr>
          <th scope="col">Time period</th>
          <th scope="col">Data group</th>
          <th scope="col">Schema</th>
          <th scope="col">Hash</th>
          <th scope="col">Severity</th>
        </tr>
      </thead>
      <tbody>
        {shown.reverse().map(({ r, change }) => (
          <tr key={`${r.time_period}/${r.data_group}/${r.executed_at}`}>
            <td class="when">{formatTime(r.time_period)}</td>
            <td>{r.data_group || 'all rows'}</td>
            <td>{change}</td>
            <td>
              <code>{shortHash(r.actual_value as number)}</code>
            </td>
            <td>{r.severity ?? 'execution error'}</td>
          </tr>
        ))}
      </tbody>
    </table>
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
