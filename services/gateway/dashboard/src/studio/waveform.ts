import { svg } from '../dom.js';

const BARS = 48;
/** Decoded peaks by URL: a timeline redrawn after an edit does not fetch and decode again. */
const peaksByUrl = new Map<string, Promise<number[] | null>>();

/**
 * An audio clip's waveform: an SVG of its peaks, drawn once the file is fetched and decoded in the
 * browser (Web Audio). Until then, and if the file cannot be decoded, a flat line stands in.
 */
export function waveform(url: string): SVGSVGElement {
  const picture = svg('svg', {
    class: 'waveform',
    viewBox: `0 0 ${BARS} 20`,
    preserveAspectRatio: 'none',
    'aria-hidden': 'true',
    dataset: { state: 'loading' },
  });
  picture.append(svg('line', { x1: 0, y1: 10, x2: BARS, y2: 10, class: 'waveform-flat' }));
  let peaks = peaksByUrl.get(url);
  if (!peaks) {
    peaks = decodePeaks(url);
    peaksByUrl.set(url, peaks);
  }
  void peaks.then((values) => {
    if (!values) {
      picture.dataset.state = 'unavailable';
      return;
    }
    picture.replaceChildren(
      ...values.map((v, i) => {
        const height = Math.max(1, v * 20);
        return svg('rect', { x: i + 0.15, y: (20 - height) / 2, width: 0.7, height, class: 'waveform-bar' });
      }),
    );
    picture.dataset.state = 'drawn';
  });
  return picture;
}

async function decodePeaks(url: string): Promise<number[] | null> {
  try {
    const res = await fetch(url, { credentials: 'same-origin' });
    if (!res.ok) return null;
    const audio = await new OfflineAudioContext(1, 1, 44_100).decodeAudioData(await res.arrayBuffer());
    const samples = audio.getChannelData(0);
    const per = Math.max(1, Math.floor(samples.length / BARS));
    const peaks: number[] = [];
    for (let bar = 0; bar < BARS; bar++) {
      let peak = 0;
      for (let i = bar * per; i < Math.min(samples.length, (bar + 1) * per); i++)
        peak = Math.max(peak, Math.abs(samples[i]));
      peaks.push(peak);
    }
    const loudest = Math.max(...peaks, 1e-6);
    return peaks.map((p) => p / loudest);
  } catch {
    return null;
  }
}
