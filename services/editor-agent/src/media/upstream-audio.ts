import axios, { type AxiosInstance } from 'axios';
import type { ProbeResult } from '@mf/media';
import type { AudioFile, AudioGenerator } from './audio';

export interface UpstreamAudioOptions {
  /** AUDIO_UPSTREAM_URL: the endpoint that makes audio (POST, JSON). */
  url: string;
  /** AUDIO_UPSTREAM_KEY, sent as a Bearer token when set. */
  apiKey?: string;
  /** For the POST; the download has its own limits (the download function's). */
  timeoutMs: number;
  /** Safe download of the returned URL (SSRF guard, size and time limits): the context's download. */
  download: (url: string, destPath: string, accept: string[]) => Promise<{ contentType: string | null; bytes: number }>;
  probe: (file: string) => Promise<ProbeResult>;
}

type UpstreamRequest =
  | { kind: 'voice'; text: string; voice?: string }
  | { kind: 'music' | 'sfx'; prompt: string; duration_sec: number; seed: number };

/**
 * Audio from an upstream HTTP service (AUDIO_PROVIDER=upstream): POST
 * `{kind, text | prompt, duration_sec, seed}`, answer `{url}`; the file at that URL is downloaded
 * like any user-supplied URL (it comes from outside) and must be decodable audio.
 */
export class UpstreamAudioGenerator implements AudioGenerator {
  private readonly http: AxiosInstance;

  constructor(private readonly opts: UpstreamAudioOptions) {
    this.http = axios.create({ timeout: opts.timeoutMs, maxContentLength: 64 * 1024, maxRedirects: 0 });
  }

  voice(o: { text: string; voice?: string; outFile: string }): Promise<AudioFile> {
    return this.make({ kind: 'voice', text: o.text, ...(o.voice ? { voice: o.voice } : {}) }, o.outFile);
  }

  music(o: { prompt: string; durationSec: number; seed: number; outFile: string }): Promise<AudioFile> {
    return this.make({ kind: 'music', prompt: o.prompt, duration_sec: o.durationSec, seed: o.seed }, o.outFile);
  }

  sfx(o: { prompt: string; durationSec: number; seed: number; outFile: string }): Promise<AudioFile> {
    return this.make({ kind: 'sfx', prompt: o.prompt, duration_sec: o.durationSec, seed: o.seed }, o.outFile);
  }

  private async make(body: UpstreamRequest, outFile: string): Promise<AudioFile> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    let url: unknown;
    try {
      const res = await this.http.post<{ url?: unknown }>(this.opts.url, body, { headers });
      url = res.data?.url;
    } catch (err) {
      // Only the status or error code: the upstream's body and our key stay out of errors.
      const status = axios.isAxiosError(err) ? (err.response?.status ?? err.code ?? 'network') : 'error';
      throw new Error(`audio upstream request failed (${status})`);
    }
    if (typeof url !== 'string' || !url) throw new Error('audio upstream answered without a url');
    const { contentType } = await this.opts.download(url, outFile, ['audio/']);
    const info = await this.opts.probe(outFile);
    if (!info.audio || !(info.durationSec > 0)) throw new Error('audio upstream returned a file without audio');
    return { path: outFile, contentType: contentType ?? 'audio/mpeg', durationSec: info.durationSec };
  }
}
