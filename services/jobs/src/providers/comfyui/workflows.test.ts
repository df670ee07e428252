import path from 'node:path';
import { fillWorkflow, loadWorkflow, placeholderValues } from './workflows';

const DEPLOY = path.resolve(__dirname, '../../../../../deploy/comfyui');

describe('ComfyUI workflows', () => {
  it('loads the shipped text-to-image workflow and fills every placeholder with typed values', () => {
    const wf = loadWorkflow(path.join(DEPLOY, 'flux-schnell.text-to-image.json'));
    expect([...wf.placeholders].sort()).toEqual(['batch_size', 'height', 'prompt', 'seed', 'width']);
    const values = placeholderValues(
      { prompt: 'a fox', image_urls: [], num_images: 2, aspect_ratio: '16:9', seed: 42 },
      'image',
      wf.meta,
    );
    const graph = fillWorkflow(wf.graph, values) as Record<string, { inputs: Record<string, unknown> }>;
    expect(graph['5'].inputs).toEqual({ width: 1344, height: 768, batch_size: 2 });
    expect(graph['6'].inputs.text).toBe('a fox');
    expect(graph['3'].inputs.seed).toBe(42);
    expect(JSON.stringify(graph)).not.toContain('{{');
    expect(graph).not.toHaveProperty('mediaforge');
  });

  it('derives Wan’s frame count (4k + 1 at 16 fps) and multiple-of-16 sizes for the image-to-video workflow', () => {
    const wf = loadWorkflow(path.join(DEPLOY, 'wan-2.1-i2v.image-to-video.json'));
    const values = placeholderValues(
      {
        prompt: 'p',
        image_url: 'https://x.example/a.png',
        fast: false,
        duration_seconds: 5,
        aspect_ratio: '16:9',
        resolution: '480p',
        generate_audio: false,
        seed: 1,
      },
      'video',
      wf.meta,
      'mediaforge-ref.png',
    );
    expect(values).toMatchObject({ frames: 81, fps: 16, width: 848, height: 480, image: 'mediaforge-ref.png' });
  });
});
