/** Shared by the poller's tests: the submit they make, and the busiest window at an upstream. */

/** An image job's submit request for `user` (one image, square, fixed seed). */
export const imageRequest = (user: number, prompt: string) => ({
  user_id: user,
  api_key_id: 1,
  type: 'image' as const,
  params: { prompt, image_urls: [], num_images: 1 as const, aspect_ratio: '1:1' as const, seed: 1 },
});

/** The most instants of `at` (ms) that fall in one window of `windowMs`. */
export function busiestWindow(at: number[], windowMs: number): number {
  const sorted = [...at].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j] - sorted[i] >= windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}
