import { seededRandom } from '@mf/media';

export const SAMPLE_RATE = 44_100;

/**
 * Deterministic synthesis: the ffmpeg filter graphs (lavfi sources) that make music and sound
 * effects from a prompt and a seed. The same inputs give the same graph, so the same bytes.
 */

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)];
const num = (v: number): string => v.toFixed(4);

const MAJOR = [0, 2, 4, 5, 7, 9, 11];
const MINOR = [0, 2, 3, 5, 7, 8, 10];
/** Four-chord progressions as scale degrees (0 = tonic). */
const MAJOR_PROGRESSIONS = [
  [0, 4, 5, 3],
  [0, 5, 3, 4],
  [0, 3, 4, 3],
  [5, 3, 0, 4],
  [0, 3, 0, 4],
];
const MINOR_PROGRESSIONS = [
  [0, 5, 2, 6],
  [0, 3, 4, 0],
  [0, 5, 3, 4],
  [0, 6, 5, 6],
];

/** The three notes (Hz) of the triad on a scale degree, above the given root. */
function triad(rootHz: number, scale: number[], degree: number): number[] {
  return [0, 2, 4].map((step) => {
    const i = degree + step;
    const semis = scale[i % 7] + 12 * Math.floor(i / 7);
    return rootHz * 2 ** (semis / 12);
  });
}

/** An expression choosing one of four values by the chord index c (0-3). */
function byChord(c: string, values: number[]): string {
  return `if(eq(${c},0),${num(values[0])},if(eq(${c},1),${num(values[1])},if(eq(${c},2),${num(values[2])},${num(values[3])})))`;
}

/**
 * A gentle four-chord piece: a sustained triad pad, a bass note and a plucked arpeggio, with soft
 * attacks and releases on every chord (no clicks at chord changes), a little echo and fades. Key,
 * progression, chord length and timbre come from the seed; "sad/dark" words pick a minor key and
 * "calm"/"upbeat" words the pace.
 */
export function musicGraph(prompt: string, durationSec: number, seed: number): string {
  const rand = seededRandom(seed);
  const p = prompt.toLowerCase();
  const minor =
    /\b(sad|dark|melanchol|somber|sombre|tense|tension|mysterious|moody|suspense|eerie|horror|minor)/.test(p) ||
    (!/\b(happy|bright|cheer|joy)/.test(p) && rand() < 0.3);
  const pace = /\b(upbeat|energetic|fast|exciting|action|dance|driving|party)/.test(p)
    ? 'fast'
    : /\b(calm|ambient|slow|peaceful|relax|soft|gentle|meditat|dreamy|sleep)/.test(p)
      ? 'slow'
      : 'mid';
  const scale = minor ? MINOR : MAJOR;
  const progression = pick(rand, minor ? MINOR_PROGRESSIONS : MAJOR_PROGRESSIONS);
  const root = 110 * 2 ** (Math.floor(rand() * 12) / 12); // A2 .. G#3
  const chordSec = pace === 'fast' ? 1.2 + rand() * 0.6 : pace === 'slow' ? 3 + rand() * 1.2 : 2 + rand();
  const D = num(chordSec);
  const S = num(chordSec / 4);
  const chords = progression.map((deg) => triad(root * 2, scale, deg));

  const c = `mod(floor(t/${D}),4)`;
  const x = `mod(t,${D})`;
  // Each chord fades in over 80 ms and out over the last 80 ms, so frequency changes are silent.
  const chordEnv = `min(1,${x}/0.08)*min(1,(${D}-${x})/0.08)*(0.65+0.35*exp(-${x}*1.5))`;
  const pad = [0, 1, 2]
    .map(
      (i) =>
        `${num(0.09 - i * 0.01)}*sin(2*PI*${byChord(
          c,
          chords.map((ch) => ch[i]),
        )}*t)`,
    )
    .join('+');
  const bass = `0.16*sin(2*PI*${byChord(
    c,
    chords.map((ch) => ch[0] / 2),
  )}*t)`;
  // Arpeggio: four notes per chord, in a seed-chosen pattern, an octave up, each plucked and decaying.
  const pattern = pick(rand, [
    [0, 1, 2, 1],
    [0, 2, 1, 2],
    [2, 1, 0, 1],
    [0, 1, 2, 2],
  ]);
  const a = `floor(${x}/${S})`;
  const y = `mod(t,${S})`;
  const arpFreq = `if(eq(${a},0),${byChord(
    c,
    chords.map((ch) => ch[pattern[0]] * 2),
  )},if(eq(${a},1),${byChord(
    c,
    chords.map((ch) => ch[pattern[1]] * 2),
  )},if(eq(${a},2),${byChord(
    c,
    chords.map((ch) => ch[pattern[2]] * 2),
  )},${byChord(
    c,
    chords.map((ch) => ch[pattern[3]] * 2),
  )})))`;
  const arpEnv = `min(1,${y}/0.01)*min(1,(${S}-${y})/0.01)*exp(-${y}*${num(4 + rand() * 4)})`;
  const arp = `${num(0.07 + rand() * 0.05)}*sin(2*PI*${arpFreq}*t)*${arpEnv}`;

  const body = `(${pad})*${chordEnv}+${bass}*${chordEnv}`;
  const left = `${body}+0.8*${arp}`;
  const right = `${body}+1.0*${arp}`;
  const fadeIn = Math.min(1, durationSec / 4);
  const fadeOut = Math.min(2, durationSec / 3);
  return (
    `aevalsrc=exprs='${left}|${right}':s=${SAMPLE_RATE}:d=${num(durationSec + 0.5)},` +
    `aecho=0.8:0.6:${Math.round(40 + rand() * 80)}:0.25,volume=1.8,` +
    `afade=t=in:d=${num(fadeIn)},afade=t=out:st=${num(Math.max(0, durationSec - fadeOut))}:d=${num(fadeOut)}[pre]`
  );
}

type SfxKind = 'whoosh' | 'impact' | 'chime' | 'ambience' | 'riser';

/** The effect family a prompt asks for; the seed decides when the prompt says nothing we know. */
export function sfxKind(prompt: string, rand: () => number): SfxKind {
  const p = prompt.toLowerCase();
  if (/\b(whoosh|swoosh|swish|swipe|woosh|transition|fly|flyby|pass)/.test(p)) return 'whoosh';
  if (/\b(boom|impact|hit|thud|punch|explosion|explode|slam|crash|drum|knock|kick)/.test(p)) return 'impact';
  if (/\b(chime|bell|ding|beep|notification|ping|sparkle|magic|twinkle|alert)/.test(p)) return 'chime';
  if (/\b(rise|riser|build|tension|sweep|uplift|rising)/.test(p)) return 'riser';
  if (/\b(rain|wind|ambien|room|crowd|static|ocean|sea|waves|water|fire|forest|noise|hum|storm)/.test(p))
    return 'ambience';
  return pick(rand, ['whoosh', 'impact', 'chime', 'ambience', 'riser'] as const);
}

/** A seed-dependent effect of one family: filtered noise and tones shaped by envelopes. */
export function sfxGraph(prompt: string, durationSec: number, seed: number): string {
  const rand = seededRandom(seed);
  const kind = sfxKind(prompt, rand);
  const T = num(durationSec);
  const d = num(durationSec + 0.5);
  const noiseSeed = seed >>> 0;
  const colour = pick(rand, ['pink', 'white', 'brown'] as const);
  switch (kind) {
    case 'whoosh': {
      // Noise swelling to a peak (seed-placed) and fading: something passing by.
      const peak = num(durationSec * (0.35 + rand() * 0.3));
      const centre = Math.round(500 + rand() * 2500);
      return (
        `anoisesrc=c=${colour}:a=0.6:seed=${noiseSeed}:r=${SAMPLE_RATE}:d=${d},bandpass=f=${centre}:t=h:w=${Math.round(centre * 0.8)},` +
        `volume='if(lt(t,${peak}),pow(t/${peak},2),pow(max(0,(${T}-t)/(${T}-${peak})),1.5))':eval=frame,volume=3[pre]`
      );
    }
    case 'impact': {
      // A falling low thump plus a short noise burst, both decaying fast.
      const base = num(40 + rand() * 30);
      const drop = num(80 + rand() * 120);
      const decay = num(4 + rand() * 4);
      return (
        `aevalsrc=exprs='0.8*sin(2*PI*(${base}*t+${drop}*(1-exp(-t*25))/25))*exp(-t*${decay})':s=${SAMPLE_RATE}:d=${d}[thump];` +
        `anoisesrc=c=brown:a=0.7:seed=${noiseSeed}:r=${SAMPLE_RATE}:d=${d},lowpass=f=${Math.round(800 + rand() * 2000)},volume='exp(-t*${num(10 + rand() * 10)})':eval=frame[burst];` +
        `[thump][burst]amix=inputs=2:normalize=0,afade=t=in:d=0.003[pre]`
      );
    }
    case 'chime': {
      // Bell partials (inharmonic ratios), struck once or a few times.
      const f = 600 + rand() * 900;
      const strikes = 1 + Math.floor(rand() * 3);
      const every = num(Math.max(0.15, durationSec / (strikes + 1)));
      const u = `mod(t,${every})`;
      const gate = `lt(t,${num(Number(every) * strikes)})+gte(t,${num(Number(every) * strikes)})*exp(-(t-${num(Number(every) * strikes)})*3)`;
      const partials = [1, 2.76, 5.4]
        .map((r, i) => `${num(0.3 / (i + 1))}*sin(2*PI*${num(f * r)}*t)*exp(-${u}*${num(3 + i * 3)})`)
        .join('+');
      return `aevalsrc=exprs='(${partials})*min(1,${u}/0.004)*(${gate})':s=${SAMPLE_RATE}:d=${d},aecho=0.8:0.5:${Math.round(60 + rand() * 120)}:0.3[pre]`;
    }
    case 'riser': {
      // A rising tone (a chirp) over noise that grows with it.
      const f0 = 120 + rand() * 200;
      const f1 = f0 * (3 + rand() * 4);
      const k = num((f1 - f0) / (2 * durationSec));
      return (
        `aevalsrc=exprs='0.25*sin(2*PI*(${num(f0)}*t+${k}*t*t))*min(1,t/${T})':s=${SAMPLE_RATE}:d=${d}[tone];` +
        `anoisesrc=c=${colour}:a=0.4:seed=${noiseSeed}:r=${SAMPLE_RATE}:d=${d},highpass=f=${Math.round(300 + rand() * 700)},volume='pow(min(1,t/${T}),2)':eval=frame[air];` +
        `[tone][air]amix=inputs=2:normalize=0,afade=t=out:st=${num(Math.max(0, durationSec - 0.05))}:d=0.05[pre]`
      );
    }
    case 'ambience': {
      // Steady filtered noise with a slow seed-paced swell, faded in and out.
      const lp = Math.round(600 + rand() * 4000);
      const swell = num(0.1 + rand() * 0.4);
      const fade = num(Math.min(0.5, durationSec / 4));
      return (
        `anoisesrc=c=${colour}:a=0.5:seed=${noiseSeed}:r=${SAMPLE_RATE}:d=${d},lowpass=f=${lp},highpass=f=60,tremolo=f=${swell}:d=0.4,` +
        `afade=t=in:d=${fade},afade=t=out:st=${num(Math.max(0, durationSec - Number(fade)))}:d=${fade}[pre]`
      );
    }
  }
}
