import type { Migration } from '@mf/db';

export const editorRecords: Migration = {
  name: '0001_editor_records',
  async up(knex) {
    await knex.raw(`
      CREATE TABLE projects (
        id           text PRIMARY KEY,
        user_id      bigint NOT NULL,
        name         text NOT NULL,
        description  text,
        aspect_ratio text NOT NULL,
        context_md   text NOT NULL DEFAULT '',
        created_at   timestamptz NOT NULL DEFAULT now(),
        updated_at   timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX projects_user ON projects (user_id, updated_at DESC);

      CREATE TABLE videos (
        id           text PRIMARY KEY,
        project_id   text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name         text NOT NULL,
        aspect_ratio text NOT NULL,
        is_default   boolean NOT NULL DEFAULT false,
        -- Serialises instruct turns of one video: held while a turn runs, expires if its holder dies.
        turn_lock    text,
        turn_lock_until timestamptz,
        created_at   timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX videos_project ON videos (project_id, created_at);
      CREATE UNIQUE INDEX videos_one_default ON videos (project_id) WHERE is_default;

      CREATE TABLE assets (
        id          text PRIMARY KEY,
        project_id  text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        kind        text NOT NULL CHECK (kind IN ('image', 'video', 'audio', 'export')),
        source      text NOT NULL,
        storage_key text NOT NULL,
        metadata    jsonb NOT NULL DEFAULT '{}',
        created_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX assets_project ON assets (project_id, created_at);

      CREATE TABLE clips (
        id           text PRIMARY KEY,
        video_id     text NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
        track        text NOT NULL CHECK (track IN ('video', 'voice', 'sfx', 'music')),
        idx          integer NOT NULL CHECK (idx >= 0),
        asset_id     text NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        duration_sec double precision,
        start_sec    double precision,
        volume       double precision NOT NULL DEFAULT 1,
        created_at   timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX clips_video ON clips (video_id, track, idx);

      -- The chat thread of a video: one row per instruct turn.
      CREATE TABLE turns (
        id            text PRIMARY KEY,
        video_id      text NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
        user_id       bigint NOT NULL,
        instruction   text NOT NULL,
        image_urls    jsonb NOT NULL DEFAULT '[]',
        status        text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
        assistant_text text,
        -- The model conversation of the turn (assistant and tool messages), for the next turns.
        messages      jsonb NOT NULL DEFAULT '[]',
        error         text,
        created_at    timestamptz NOT NULL DEFAULT now(),
        finished_at   timestamptz
      );
      CREATE INDEX turns_video ON turns (video_id, created_at);

      CREATE TABLE agent_events (
        id       bigserial PRIMARY KEY,
        turn_id  text NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
        seq      integer NOT NULL,
        event    jsonb NOT NULL,
        UNIQUE (turn_id, seq)
      );
    `);
  },
  async down(knex) {
    await knex.raw(
      'DROP TABLE agent_events; DROP TABLE turns; DROP TABLE clips; DROP TABLE assets; DROP TABLE videos; DROP TABLE projects;',
    );
  },
};
