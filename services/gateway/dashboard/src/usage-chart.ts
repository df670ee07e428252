import { PAD, ticks, yAxis, yLabelWidth } from './chart.js';
import { h, svg, uid } from './dom.js';
import { credits, number } from './format.js';

/** One day's figures as the usage report gives them (grouped by day). */
export interface DayUsage {
  day?: string;
  jobs: number;
  credits_net: number;
}

/** Every day (YYYY-MM-DD, UTC) from `from` up to, not including, `to`. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t < Date.parse(`${to}T00:00:00Z`) && days.length < 400; t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/**
 * Credits net per day as SVG bars (below the axis on a day whose refunds outweigh its charges),
 * every day of the range drawn, days without usage as gaps. One image to assistive technology,
 * described by a summary; the tables below have every figure.
 */
export function usageChart(rows: readonly DayUsage[], days: readonly string[], { width = 640 } = {}): HTMLElement {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const values = days.map((d) => byDay.get(d)?.credits_net ?? 0);
  if (!rows.length || !days.length)
    return h('p', { class: 'empty' }, 'No usage in this range: nothing was charged or refunded.');
  const W = Math.max(260, Math.round(width));
  const H = W < 500 ? 200 : 240;
  const yTicks = ticks(Math.min(0, ...values), Math.max(1, ...values));
  const v0 = yTicks[0];
  const v1 = yTicks[yTicks.length - 1];
  const PAD_LEFT = yLabelWidth(yTicks);
  const slot = (W - PAD_LEFT - PAD.right) / days.length;
  const y = (v: number): number => H - PAD.bottom - ((v - v0) / (v1 - v0 || 1)) * (H - PAD.top - PAD.bottom);
  const total = values.reduce((a, b) => a + b, 0);
  const busiest = days[values.indexOf(Math.max(...values))];
  const summary =
    `${number(days.length)} days from ${days[0]} to ${days[days.length - 1]}: ${credits(total)} net, ` +
    `${number(rows.reduce((a, r) => a + r.jobs, 0))} jobs; the most on ${busiest}.`;
  const titleId = uid('usage-title');
  const descId = uid('usage-desc');
  return h(
    'figure',
    { class: 'chart-figure' },
    svg(
      'svg',
      {
        class: 'chart usage-chart',
        width: W,
        height: H,
        viewBox: `0 0 ${W} ${H}`,
        role: 'img',
        'aria-labelledby': `${titleId} ${descId}`,
      },
      svg('title', { id: titleId }, 'Credits net by day'),
      svg('desc', { id: descId }, summary),
      yAxis(yTicks, y, PAD_LEFT, W - PAD.right),
      svg('text', { class: 'chart-label', x: PAD_LEFT, y: H - 10, 'text-anchor': 'start' }, days[0]),
      svg('text', { class: 'chart-label', x: W - PAD.right, y: H - 10, 'text-anchor': 'end' }, days[days.length - 1]),
      days.map((d, i) =>
        values[i] === 0 && !byDay.has(d)
          ? null
          : svg(
              'rect',
              {
                class: 'chart-bar',
                dataset: { day: d },
                x: (PAD_LEFT + i * slot + slot * 0.15).toFixed(1),
                width: Math.max(1, slot * 0.7).toFixed(1),
                y: Math.min(y(values[i]), y(0)).toFixed(1),
                height: Math.max(1, Math.abs(y(values[i]) - y(0))).toFixed(1),
              },
              svg('title', null, `${d}: ${credits(values[i])} net, ${number(byDay.get(d)?.jobs ?? 0)} jobs`),
            ),
      ),
    ),
    h('figcaption', { class: 'hint' }, summary),
  );
}
