import type { Validated } from '@mf/contracts';
import { AppError } from '@mf/errors';

/** The value of a validation, or the 400 carrying its message. */
export function valid<T>(result: Validated<T>): T {
  if (!result.ok) throw AppError.badRequest(result.error);
  return result.value;
}
