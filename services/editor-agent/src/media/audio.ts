/** Voice lines (TTS), music and sound effects, written to a local audio file. */
export interface AudioGenerator {
  voice(opts: { text: string; voice?: string; outFile: string }): Promise<AudioFile>;
  music(opts: { prompt: string; durationSec: number; seed: number; outFile: string }): Promise<AudioFile>;
  sfx(opts: { prompt: string; durationSec: number; seed: number; outFile: string }): Promise<AudioFile>;
}

export interface AudioFile {
  path: string;
  contentType: string;
  durationSec: number;
}
