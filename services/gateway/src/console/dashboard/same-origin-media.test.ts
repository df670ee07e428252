import { relativeMediaUrls } from './same-origin-media';

describe('media URLs for the dashboard', () => {
  const base = 'http://localhost:8080';

  it('makes every media URL of the public origin relative, deep in any answer', () => {
    const job = {
      job_id: 'job_1',
      result: { images: [`${base}/media/jobs/job_1/image-1.png`, `${base}/media/jobs/job_1/image-2.png`] },
      input: { prompt: 'x', image_urls: [] },
    };
    expect(relativeMediaUrls({ jobs: [job] }, base)).toEqual({
      jobs: [{ ...job, result: { images: ['/media/jobs/job_1/image-1.png', '/media/jobs/job_1/image-2.png'] } }],
    });
    expect(
      relativeMediaUrls({ asset: { url: `${base}/media/editor/prj_1/a.mp4`, n: 3, ok: true, none: null } }, `${base}/`),
    ).toEqual({ asset: { url: '/media/editor/prj_1/a.mp4', n: 3, ok: true, none: null } });
  });

  it('leaves other URLs alone: other hosts, other paths of the origin, lookalike prefixes', () => {
    const others = [
      'https://cdn.example/media/x.png',
      `${base}/api/v1/jobs/job_1`,
      `${base}/mediakit/x`,
      `${base}:9/media/x`,
      `http://localhost:80800/media/x`,
    ];
    expect(relativeMediaUrls(others, base)).toEqual(others);
  });
});
