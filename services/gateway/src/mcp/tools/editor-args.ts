import Joi from 'joi';
import { editorFields as F } from '@mf/contracts';
import * as editor from '../../core/usecases/editor.usecase';
import { scopeOf } from '../../operations/table';
import { scopeLine } from './tool';

/** Arguments the editor tools share, in the tools' own words. */
export const projectId = Joi.string()
  .pattern(editor.PROJECT_ID)
  .description('Project id (prj_...), as returned by video_editor_create_project or video_editor_list_projects.');
export const videoIdOf = (what: string) =>
  F.videoId
    .max(100)
    .description(`Video id (vid_...) from video_editor_get_state or video_editor_create_video. ${what}`);
export const recordId = (what: string) => Joi.string().max(100).description(what);
export const WRITE = scopeLine(scopeOf('createProject'));
