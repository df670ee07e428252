import { h, svg, uid } from './dom.js';
import { credits, date, dateTime, number } from './format.js';
import type { LedgerEntry } from './contracts.js';

/** The plot's margins in pixels; the left one fits the widest y label (yLabelWidth). */
export const PAD = { right: 16, top: 16, bottom: 36 };
const FONT_PX = 12;

/** The left margin that fits the widest of the y axis' labels. */
export function yLabelWidth(yTicks: readonly number[]): number {
  return Math.round(Math.max(...yTicks.map((v) => number(v).length)) * FONT_PX * 0.62 + 14);
}

/** The y axis from `left` to `right`: a grid line and its label at each tick. */
export function yAxis(
  yTicks: readonly number[],
  y: (v: number) => number,
  left: number,
  right: number,
): SVGElement[][] {
  return yTicks.map((v) => [
    svg('line', { class: 'chart-grid', x1: left, x2: right, y1: y(v).toFixed(1), y2: y(v).toFixed(1) }),
    svg(
      'text',
      { class: 'chart-label', x: left - 8, y: y(v).toFixed(1), 'text-anchor': 'end', 'dominant-baseline': 'middle' },
      number(v),
    ),
  ]);
}

/** Round tick values (1, 2, 5 x 10^n) from at or below lo to at or above hi. */
export function ticks(lo: number, hi: number, count = 4): number[] {
  const span = hi - lo || 1;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  const top = Math.ceil(hi / step) * step;
  for (let v = Math.floor(lo / step) * step; v <= top + step / 1e6; v += step) out.push(Math.round(v * 1e6) / 1e6);
  return out;
}

/**
 * The balance over time as an inline SVG step line (balance_after of each ledger entry at its
 * created_at, held until the next entry and up to now). The SVG is one image to assistive
 * technology, described by a text summary; the ledger table beside it has every figure.
 * `entries` come newest first, as the API sends them. Drawn at the pixel `width` it is shown at,
 * so its labels stay readable from a phone to a wide screen.
 */
export function creditChart(
  entries: readonly LedgerEntry[],
  { width = 640, now = Date.now() }: { width?: number; now?: number } = {},
): HTMLElement {
  const W = Math.max(260, Math.round(width));
  const H = W < 500 ? 200 : 260;
  const points = entries
    .map((e) => ({ t: Date.parse(e.created_at), v: e.balance_after, e }))
    .filter((p) => Number.isFinite(p.t) && typeof p.v === 'number')
    .sort((a, b) => a.t - b.t || a.e.id - b.e.id);
  if (points.length === 0)
    return h('p', { class: 'empty' }, 'No ledger entries yet: the chart starts with your first grant or charge.');

  const first = points[0];
  const last = points[points.length - 1];
  const values = points.map((p) => p.v);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const t0 = first.t;
  const t1 = Math.max(now, last.t + 1);
  const yTicks = ticks(Math.min(0, low), Math.max(high, 1));
  const v0 = yTicks[0];
  const v1 = yTicks[yTicks.length - 1];
  // Room on the left for the longest tick label.
  const PAD_LEFT = yLabelWidth(yTicks);
  const x = (t: number): number => PAD_LEFT + ((t - t0) / (t1 - t0)) * (W - PAD_LEFT - PAD.right);
  const y = (v: number): number => H - PAD.bottom - ((v - v0) / (v1 - v0 || 1)) * (H - PAD.top - PAD.bottom);

  let d = `M${x(first.t).toFixed(1)},${y(first.v).toFixed(1)}`;
  for (const p of points.slice(1)) d += ` H${x(p.t).toFixed(1)} V${y(p.v).toFixed(1)}`;
  d += ` H${x(t1).toFixed(1)}`;

  const summary =
    points.length === 1
      ? `One ledger entry: ${credits(first.v)} after it, on ${dateTime(first.e.created_at)}.`
      : `${number(points.length)} ledger entries from ${dateTime(first.e.created_at)} to ${dateTime(last.e.created_at)}. ` +
        `The balance went from ${credits(first.v)} to ${credits(last.v)}; lowest ${credits(low)}, highest ${credits(high)}.`;

  const titleId = uid('chart-title');
  const descId = uid('chart-desc');
  const chart = svg(
    'svg',
    {
      class: 'chart',
      width: W,
      height: H,
      viewBox: `0 0 ${W} ${H}`,
      role: 'img',
      'aria-labelledby': `${titleId} ${descId}`,
      preserveAspectRatio: 'xMidYMid meet',
    },
    svg('title', { id: titleId }, 'Credits over time'),
    svg('desc', { id: descId }, summary),
    yAxis(yTicks, y, PAD_LEFT, W - PAD.right),
    svg('text', { class: 'chart-label', x: PAD_LEFT, y: H - 10, 'text-anchor': 'start' }, date(first.e.created_at)),
    svg('text', { class: 'chart-label', x: W - PAD.right, y: H - 10, 'text-anchor': 'end' }, 'now'),
    svg('path', { class: 'chart-line', d }),
    points.map((p) =>
      svg(
        'circle',
        { class: 'chart-point', cx: x(p.t).toFixed(1), cy: y(p.v).toFixed(1), r: 3.5 },
        svg('title', null, `${dateTime(p.e.created_at)}: ${credits(p.v)} (${p.e.kind})`),
      ),
    ),
  );
  return h(
    'figure',
    { class: 'chart-figure' },
    chart,
    h('figcaption', { class: 'hint' }, summary, ' Every entry is listed in the ledger table.'),
  );
}
