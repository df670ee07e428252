import { AppError } from '@mf/errors';

/** The parsed JSON body as an object (anything else is a 400). */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw AppError.badRequest('Request body must be a JSON object');
  return body as Record<string, unknown>;
}

export function stringField(
  body: Record<string, unknown>,
  name: string,
  opts: { optional?: boolean; max?: number } = {},
): string {
  const v = body[name];
  if (v === undefined && opts.optional) return '';
  if (typeof v !== 'string') throw AppError.badRequest(`${name} must be a string`);
  if (opts.max !== undefined && v.length > opts.max)
    throw AppError.badRequest(`${name} must be at most ${opts.max} characters`);
  return v;
}

/** A positive integer path parameter; anything else names nothing that exists (404). */
export function idParam(raw: unknown, notFound: string): number {
  const s = typeof raw === 'string' ? raw : '';
  if (!/^\d{1,15}$/.test(s) || Number(s) < 1) throw AppError.notFound(notFound);
  return Number(s);
}

/** An optional positive integer query parameter, at most `max`. */
export function limitQuery(raw: unknown, name: string, max: number): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const s = typeof raw === 'string' ? raw : '';
  if (!/^\d{1,6}$/.test(s) || Number(s) < 1 || Number(s) > max)
    throw AppError.badRequest(`${name} must be an integer from 1 to ${max}`);
  return Number(s);
}
