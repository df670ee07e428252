import { h } from './dom.js';

// The reader's own locale for numbers and dates; timestamps from the API are ISO 8601 UTC.
const numberFormat = new Intl.NumberFormat();
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function number(n: unknown): string {
  return typeof n === 'number' && Number.isFinite(n) ? numberFormat.format(n) : '–';
}

export function credits(n: unknown): string {
  return `${number(n)} ${n === 1 ? 'credit' : 'credits'}`;
}

/** A ledger amount with its sign: +1,000 or −505. */
export function signed(n: unknown): string {
  if (typeof n !== 'number') return '–';
  return n > 0 ? `+${number(n)}` : n < 0 ? `\u2212${number(-n)}` : '0';
}

export function dateTime(iso: string | null | undefined): string {
  const d = iso ? new Date(iso) : null;
  return d && !Number.isNaN(d.getTime()) ? dateTimeFormat.format(d) : '–';
}

export function date(iso: string | null | undefined): string {
  const d = iso ? new Date(iso) : null;
  return d && !Number.isNaN(d.getTime()) ? dateFormat.format(d) : '–';
}

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "5 minutes ago", for ages in lists. */
export function relative(iso: string | null | undefined, now: number = Date.now()): string {
  const t = Date.parse(iso ?? '');
  if (Number.isNaN(t)) return '–';
  const seconds = Math.round((t - now) / 1000);
  if (Math.abs(seconds) < 5) return 'just now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relativeFormat.format(Math.trunc(seconds / size), unit);
  }
  return 'just now';
}

/** A <time> element: readable text, the exact instant in datetime and as a tooltip. */
export function time(iso: string | null | undefined, text: string = dateTime(iso)): HTMLElement {
  if (!iso) return h('span', { class: 'muted' }, 'never');
  return h('time', { datetime: iso, title: dateTime(iso) }, text);
}

export function durationMs(ms: unknown): string {
  if (typeof ms !== 'number') return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function seconds(s: unknown): string {
  return typeof s === 'number' && Number.isFinite(s) ? `${s.toFixed(s < 10 ? 1 : 0)} s` : '–';
}

const usdFormat = new Intl.NumberFormat(undefined, {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});

/** US dollars, to the cent or finer (upstream costs are often fractions of a cent): $0.40, −$1.25. */
export function usd(n: unknown): string {
  return typeof n === 'number' && Number.isFinite(n) ? usdFormat.format(n) : '–';
}
