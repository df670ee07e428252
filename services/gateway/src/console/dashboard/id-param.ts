import { AppError } from '@mf/errors';

/**
 * A positive integer path parameter; anything else names nothing that exists (404). Bodies and
 * queries are validated by their schemas (core/validation/dashboard.validators.ts).
 */
export function idParam(raw: unknown, notFound: string): number {
  const s = typeof raw === 'string' ? raw : '';
  if (!/^\d{1,15}$/.test(s) || Number(s) < 1) throw AppError.notFound(notFound);
  return Number(s);
}
