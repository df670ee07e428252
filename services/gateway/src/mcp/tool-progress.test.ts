import type { Job } from '@mf/contracts';
import { EventHub } from '../core/events/event-hub';
import { withToolProgress, type ProgressReport } from './tool-progress';

const editorJob = (projectId: string, progress: number | null): Job => ({
  job_id: 'job_gen1',
  status: 'processing',
  model: 'VidGen 2.0',
  type: 'video',
  credits_consumed: 100,
  created_at: '2026-01-01T00:00:00.000Z',
  completed_at: null,
  result: null,
  error: null,
  input: {
    prompt: 'p',
    image_url: null,
    fast: false,
    duration_seconds: 5,
    aspect_ratio: '16:9',
    resolution: '720p',
    generate_audio: true,
    seed: 1,
  },
  source: 'editor',
  project_id: projectId,
  progress,
});

describe('withToolProgress', () => {
  it("reports the real percentage of the project's generation as it comes, rising, and stops listening at the end", async () => {
    const hub = new EventHub();
    const reports: ProgressReport[] = [];
    let finish: () => void = () => {};
    const work = new Promise<string>((resolve) => (finish = () => resolve('done')));
    const running = withToolProgress(
      {
        toolName: 'video_editor_instruct',
        intervalMs: 60_000,
        report: (r) => Promise.resolve(void reports.push(r)),
        events: { hub, userId: 7, projectId: 'prj_a' },
      },
      () => work,
    );
    const publish = (projectId: string, progress: number | null, userId = 7) =>
      hub.publish({
        id: 'evt_0000000000000001',
        type: 'job.progress',
        jobId: 'job_gen1',
        userId,
        data: editorJob(projectId, progress),
      });
    publish('prj_a', 20);
    publish('prj_b', 90); // another project
    publish('prj_a', 90, 8); // another user
    publish('prj_a', null); // no figure
    publish('prj_a', 55);
    finish();
    await expect(running).resolves.toBe('done');
    expect(reports).toEqual([
      { progress: 20, total: 100, message: 'video_editor_instruct: generating job_gen1, 20%' },
      { progress: 55, total: 100, message: 'video_editor_instruct: generating job_gen1, 55%' },
    ]);
    expect(hub.size).toBe(0);
  });
});
