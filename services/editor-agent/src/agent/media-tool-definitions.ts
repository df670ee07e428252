import { IMAGE_PRICE, videoCredits } from '@mf/catalog';
import { imageRequest, videoRequest } from '@mf/contracts';
import type { EditorSettings } from '../usecases/context';
import { contractArg } from './contract-args';
import { AUDIO_PROMPT_MAX, generateAudio, MUSIC_SECONDS, SFX_SECONDS, VOICE_TEXT_MAX } from './audio-tools';
import { generateImage, generateVideo } from './media-tools';
import { VIDEO_PROMPT_LAYOUT } from './system-prompt';
import { fn, type Tool } from './tool-kit';

const ONE_PER_TURN =
  'This is a media generation: at most one per turn (generate_image, generate_video, generate_voice, generate_music, generate_sfx together).';
const LIBRARY_ONLY = 'The result goes into the media library only; place it on the timeline with add_clip.';

/** A generation tool's argument: the submit body's field (its type, enum and limits), in the tool's words. */
const image = (field: string, description: string) => contractArg(imageRequest.extract(field), description);
const video = (field: string, description: string) => contractArg(videoRequest.extract(field), description);
const PROJECT_FORMAT = (what: string) => `${what} Omit to use the project's format (4:5 projects get 3:4).`;

const VIDEO_PER_SECOND = videoCredits(false).per_second_by_resolution;

/** The generation tools (one per turn); prices in descriptions come from the catalog and the settings. */
export function mediaTools(settings: EditorSettings): Tool[] {
  return [
    {
      definition: fn(
        'generate_image',
        `Generate one still image from a text prompt (imagegen-2, ${IMAGE_PRICE} credits, about 15 s). ${LIBRARY_ONLY} ${ONE_PER_TURN}`,
        {
          prompt: image('prompt', 'What the image shows: subject, setting, style, lighting, composition.'),
          aspect_ratio: image('aspect_ratio', PROJECT_FORMAT('Image aspect ratio.')),
        },
        ['prompt'],
      ),
      run: generateImage,
    },
    {
      definition: fn(
        'generate_video',
        `Generate one video clip with native sound (vidgen-2.0; ${VIDEO_PER_SECOND['720p']} credits per second at 720p, ${VIDEO_PER_SECOND['480p']} at 480p; takes up to a few minutes). ` +
          `Text-to-video, or image-to-video when image_asset_id names an image of the library (the image becomes the first frame). ${LIBRARY_ONLY} ${ONE_PER_TURN}`,
        {
          prompt: video('prompt', `The shot description. Recommended layout: ${VIDEO_PROMPT_LAYOUT}`),
          duration_seconds: video('duration_seconds', 'Length in seconds. Cost = seconds x price per second.'),
          aspect_ratio: video('aspect_ratio', PROJECT_FORMAT('Frame aspect ratio.')),
          resolution: video('resolution', '720p (default) or the cheaper 480p.'),
          image_asset_id: {
            type: 'string',
            description: 'Optional: id of an image asset of the library to animate (image-to-video).',
          },
        },
        ['prompt', 'duration_seconds'],
      ),
      run: generateVideo,
    },
    {
      definition: fn(
        'generate_voice',
        `Speak a line of narration or dialogue with text-to-speech (${settings.voicePrice} credits). Put it on the voice track with add_clip. ${ONE_PER_TURN}`,
        {
          text: { type: 'string', minLength: 1, maxLength: VOICE_TEXT_MAX, description: 'Exactly the words to speak.' },
          voice: {
            type: 'string',
            description:
              'Optional voice: female, male, british, british-female, american, american-female, or an espeak-ng voice id such as en-us, en-gb, fr, de. Default: american male.',
          },
        },
        ['text'],
      ),
      run: (state, args) => generateAudio(state, 'voice', args),
    },
    {
      definition: fn(
        'generate_music',
        `Compose an instrumental music bed of a given length (${settings.musicPrice} credits). Put it on the music track with add_clip. ${ONE_PER_TURN}`,
        {
          prompt: {
            type: 'string',
            minLength: 1,
            maxLength: AUDIO_PROMPT_MAX,
            description: 'Mood, tempo and style, e.g. "calm ambient", "upbeat energetic", "dark tense".',
          },
          duration_sec: {
            type: 'number',
            minimum: MUSIC_SECONDS.min,
            maximum: MUSIC_SECONDS.max,
            description: 'Length in seconds; usually the length of the video timeline.',
          },
        },
        ['prompt', 'duration_sec'],
      ),
      run: (state, args) => generateAudio(state, 'music', args),
    },
    {
      definition: fn(
        'generate_sfx',
        `Make a sound effect of a given length (${settings.sfxPrice} credits), e.g. whoosh, impact, chime, riser, rain or wind ambience. Put it on the sfx track with add_clip. ${ONE_PER_TURN}`,
        {
          prompt: {
            type: 'string',
            minLength: 1,
            maxLength: AUDIO_PROMPT_MAX,
            description: 'The sound, e.g. "whoosh transition", "deep impact", "soft chime", "rain ambience".',
          },
          duration_sec: {
            type: 'number',
            minimum: SFX_SECONDS.min,
            maximum: SFX_SECONDS.max,
            description: 'Length in seconds.',
          },
        },
        ['prompt', 'duration_sec'],
      ),
      run: (state, args) => generateAudio(state, 'sfx', args),
    },
  ];
}
