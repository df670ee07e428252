import Joi from 'joi';
import { exportError } from './exports';
import type { ExportEventPayload, RenderProgress } from './generated/types';
import { eventDef } from './event-def';
import { ROUTING_KEYS } from './names';
import { named } from './schema/rules';

/** The states of a background export: rendering, then completed or failed. */
export const EXPORT_STATUSES = ['rendering', 'completed', 'failed'] as const;
export type ExportStatusValue = (typeof EXPORT_STATUSES)[number];

/** A background export's id: `exp_` and letters or digits. */
export const EXPORT_ID = /^exp_[A-Za-z0-9]{1,64}$/;

/** Why a background export failed: the body the blocking export would have answered with. */
export const exportFailure = named(exportError, 'ExportFailure');

/** GET /api/v1/media-studio/projects/:id/exports/:exportId: one background export as it is now. */
export const exportStatus = named(
  Joi.object({
    export_id: Joi.string().pattern(EXPORT_ID).required(),
    project_id: Joi.string().required(),
    video_id: Joi.string().required().description('The video exported.'),
    status: Joi.string()
      .valid(...EXPORT_STATUSES)
      .required(),
    progress: Joi.number()
      .integer()
      .min(0)
      .max(100)
      .required()
      .description("Percent rendered, read from ffmpeg's progress; 100 once completed."),
    asset_id: Joi.string().allow(null).required().description('The export asset, once completed.'),
    video_url: Joi.string().allow(null).required().description('The mp4 (permanent URL), once completed.'),
    duration_sec: Joi.number().allow(null).required().description('Once completed.'),
    error: exportFailure.allow(null).required().description('Once failed: the blocking export’s error body.'),
    created_at: Joi.string().isoDate().required().description('ISO 8601, UTC.'),
    completed_at: Joi.string().isoDate().allow(null).required().description('When it completed or failed.'),
  }),
  'ExportStatus',
);

/** A project's background exports, newest first. */
export const exportList = named(Joi.object({ exports: Joi.array().items(exportStatus).required() }), 'ExportList');

/** The 202 answer of `POST .../export` with `Prefer: respond-async`. */
export const exportAccepted = named(
  Joi.object({
    export_id: Joi.string().pattern(EXPORT_ID).required(),
    status: Joi.string().valid('rendering').required(),
    progress: Joi.number().integer().valid(0).required(),
  }),
  'ExportAccepted',
);

/** The export events of the user's event log: progress, then completed or failed. */
export const EXPORT_EVENT_TYPES = ['export.progress', 'export.completed', 'export.failed'] as const;
export type ExportEventType = (typeof EXPORT_EVENT_TYPES)[number];

/**
 * An export event as the editor records it in the user's event log (through jobs' outbox) and the
 * relay publishes it on the `events` exchange (then with the log's `event_id`).
 */
export const exportEventSchema = named(
  Joi.object({
    user_id: Joi.number().integer().min(1).required(),
    project_id: Joi.string().required(),
    export_id: Joi.string().pattern(EXPORT_ID).required(),
    export: exportStatus.required().description('The export at this event (as GET .../exports/:exportId).'),
    event_id: Joi.string()
      .pattern(/^evt_\d{16}$/)
      .description("The event log's id of this event (set by the outbox relay; absent in the stored row)."),
  }),
  'ExportEventPayload',
);

export const exportEvents = {
  progress: eventDef<ExportEventPayload>(ROUTING_KEYS.exportProgress, exportEventSchema),
  completed: eventDef<ExportEventPayload>(ROUTING_KEYS.exportCompleted, exportEventSchema),
  failed: eventDef<ExportEventPayload>(ROUTING_KEYS.exportFailed, exportEventSchema),
} as const;

/** export-renderer's progress of one render (transient: for the editor waiting on it). */
export const renderProgressSchema = named(
  Joi.object({
    export_id: Joi.string().pattern(EXPORT_ID).required(),
    progress: Joi.number().integer().min(0).max(100).required(),
  }),
  'RenderProgress',
);
export const renderProgressEvent = eventDef<RenderProgress>(ROUTING_KEYS.renderProgress, renderProgressSchema);
