import type { Bus } from '@mf/bus';
import { EXPORT_ID } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { scopeOf } from '../../operations/table';
import { assertScope, type EditorCaller } from '../auth/auth-context';
import { validateExport } from '../validation/editor.validators';
import { call, projectRef, videoRef, type EditorCallOptions, type Reply } from './editor.usecase';
import { valid } from './validated';

/** Background exports (docs/editor-api.md): started with `Prefer: respond-async`, then followed. */

/** `Prefer: respond-async` asks for the export in the background (RFC 7240). */
export function prefersAsync(prefer: string | undefined): boolean {
  return (prefer ?? '').split(',').some((p) => p.split(';')[0].trim().toLowerCase() === 'respond-async');
}

/** The same export, checked now and rendered in the background: 202 with the export to follow. */
export async function startExport(
  bus: Bus,
  auth: EditorCaller,
  projectId: unknown,
  body: unknown,
  opts: EditorCallOptions = {},
): Promise<Reply<'startExport'>> {
  assertScope(auth, scopeOf('exportVideo'));
  const project = projectRef(auth, projectId);
  return call(bus, 'startExport', { ...project, ...videoRef(valid(validateExport(body))) }, opts);
}

export async function getExport(
  bus: Bus,
  auth: EditorCaller,
  projectId: unknown,
  exportId: unknown,
  opts: EditorCallOptions = {},
): Promise<Reply<'getExport'>> {
  assertScope(auth, scopeOf('getExport'));
  const project = projectRef(auth, projectId);
  if (typeof exportId !== 'string' || !EXPORT_ID.test(exportId)) throw AppError.notFound('Export not found');
  return call(bus, 'getExport', { ...project, export_id: exportId }, opts);
}

export async function listExports(
  bus: Bus,
  auth: EditorCaller,
  projectId: unknown,
  opts: EditorCallOptions = {},
): Promise<Reply<'listExports'>> {
  assertScope(auth, scopeOf('listExports'));
  return call(bus, 'listExports', projectRef(auth, projectId), opts);
}
