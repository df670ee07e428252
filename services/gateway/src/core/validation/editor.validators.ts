import type Joi from 'joi';
import {
  addClipBody,
  createProjectBody,
  createVideoBody,
  exportBody,
  getProjectQuery,
  importAssetBody,
  instructBody,
  moveClipBody,
  renameBody,
  setAspectRatioBody,
  updateContextBody,
  validateBody,
  validateValue,
  type AddClipBody,
  type CreateProjectBody,
  type CreateVideoBody,
  type ExportBody,
  type GetProjectQuery,
  type ImportAssetBody,
  type InstructBody,
  type MoveClipBody,
  type RenameBody,
  type SetAspectRatioBody,
  type UpdateContextBody,
  type Validated,
} from '@mf/contracts';

/**
 * The editor's request bodies, validated by their one definition (@mf/contracts api/editor.ts):
 * strict types ("5" is not 5), an unknown field is an error naming it, an explicit null means
 * "not given", and a request without a body counts as {}.
 */

// T is the type generated from the schema (scripts/generate); joi's generics cannot carry it.
const body =
  <T>(schema: Joi.ObjectSchema) =>
  (value: unknown): Validated<T> =>
    validateBody<T>(schema as Joi.ObjectSchema<T>, value, { absent: 'empty' });

export const validateCreateProject = body<CreateProjectBody>(createProjectBody);
export const validateInstruct = body<InstructBody>(instructBody);
export const validateExport = body<ExportBody>(exportBody);
export const validateCreateVideo = body<CreateVideoBody>(createVideoBody);
export const validateRename = body<RenameBody>(renameBody);
export const validateImportAsset = body<ImportAssetBody>(importAssetBody);
export const validateAddClip = body<AddClipBody>(addClipBody);
export const validateMoveClip = body<MoveClipBody>(moveClipBody);
export const validateUpdateContext = body<UpdateContextBody>(updateContextBody);
export const validateSetAspectRatio = body<SetAspectRatioBody>(setAspectRatioBody);

/** The query of GET /media-studio/projects/:id (other parameters are ignored). */
export function validateGetProjectQuery(query: Record<string, unknown>): Validated<GetProjectQuery> {
  return validateValue(getProjectQuery, query);
}
