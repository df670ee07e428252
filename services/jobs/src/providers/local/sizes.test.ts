import { IMAGE_SIZES, imageSize, VIDEO_SIZES, videoSize } from './sizes';

describe('video and image sizes', () => {
  it('gives every video aspect an even frame whose short side is 720 at 720p and 480 at 480p', () => {
    for (const [aspect, byResolution] of Object.entries(VIDEO_SIZES)) {
      const [aw, ah] = aspect.split(':').map(Number);
      for (const [resolution, { width, height }] of Object.entries(byResolution)) {
        expect(width % 2).toBe(0);
        expect(height % 2).toBe(0);
        expect(Math.min(width, height)).toBe(resolution === '720p' ? 720 : 480);
        // The long side is the exact aspect, rounded to an even number of pixels.
        expect(Math.abs(width / height - aw / ah)).toBeLessThan(0.005);
      }
    }
  });

  it('looks up the documented sizes', () => {
    expect(videoSize('16:9', '720p')).toEqual({ width: 1280, height: 720 });
    expect(videoSize('16:9', '480p')).toEqual({ width: 854, height: 480 });
    expect(videoSize('9:16', '480p')).toEqual({ width: 480, height: 854 });
    expect(videoSize('21:9', '720p')).toEqual({ width: 1680, height: 720 });
    expect(videoSize('3:4', '480p')).toEqual({ width: 480, height: 640 });
    expect(imageSize('1:1')).toEqual({ width: 1024, height: 1024 });
    expect(imageSize('16:9')).toEqual({ width: 1344, height: 768 });
    expect(imageSize('3:4')).toEqual({ width: 864, height: 1152 });
  });

  it('gives every image aspect about one megapixel in multiples of 16', () => {
    for (const { width, height } of Object.values(IMAGE_SIZES)) {
      expect(width % 16).toBe(0);
      expect(height % 16).toBe(0);
      expect(width * height).toBeGreaterThan(0.95e6);
      expect(width * height).toBeLessThan(1.1e6);
    }
  });

  it('returns copies, so a caller cannot change the tables', () => {
    const size = videoSize('1:1', '720p');
    size.width = 1;
    expect(VIDEO_SIZES['1:1']['720p'].width).toBe(720);
  });

  it('rejects an aspect that is not in the table', () => {
    expect(() => imageSize('21:9' as never)).toThrow(RangeError);
  });
});
