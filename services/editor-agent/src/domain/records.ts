import type { Asset, Clip, ProjectAspectRatio, ProjectSummary, Project, Track, Video } from '@mf/contracts';

export interface ProjectRow {
  id: string;
  user_id: number;
  name: string;
  description: string | null;
  aspect_ratio: ProjectAspectRatio;
  context_md: string;
  created_at: Date;
  updated_at: Date;
}

export interface VideoRow {
  id: string;
  project_id: string;
  name: string;
  aspect_ratio: ProjectAspectRatio;
  is_default: boolean;
  created_at: Date;
}

export interface AssetRow {
  id: string;
  project_id: string;
  kind: 'image' | 'video' | 'audio' | 'export';
  source: string;
  storage_key: string;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export interface ClipRow {
  id: string;
  video_id: string;
  track: Track;
  idx: number;
  asset_id: string;
  duration_sec: number | null;
  start_sec: number | null;
  volume: number;
  created_at: Date;
}

export const DEFAULT_VIDEO_NAME = 'Main video';

export function projectView(p: ProjectRow): Project {
  return {
    id: p.id,
    name: p.name,
    aspect_ratio: p.aspect_ratio,
    context_md: p.context_md,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

export function projectSummary(p: ProjectRow): ProjectSummary {
  return { id: p.id, name: p.name, aspect_ratio: p.aspect_ratio, updated_at: p.updated_at.toISOString() };
}

export function videoView(v: VideoRow): Video {
  return { id: v.id, name: v.name, aspect_ratio: v.aspect_ratio, created_at: v.created_at.toISOString() };
}

export function assetView(a: AssetRow, publicBaseUrl: string): Asset {
  return {
    id: a.id,
    kind: a.kind,
    source: a.source,
    url: `${publicBaseUrl.replace(/\/+$/, '')}/media/${a.storage_key}`,
    metadata: a.metadata,
    created_at: a.created_at.toISOString(),
  };
}

export function clipView(c: ClipRow): Clip {
  return {
    id: c.id,
    video_id: c.video_id,
    track: c.track,
    idx: c.idx,
    asset_id: c.asset_id,
    duration_sec: c.duration_sec,
    start_sec: c.start_sec,
    volume: c.volume,
  };
}
