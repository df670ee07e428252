import {
  validateAddClip,
  validateCreateProject,
  validateCreateVideo,
  validateExport,
  validateGetProjectQuery,
  validateImportAsset,
  validateInstruct,
  validateMoveClip,
  validateRename,
  validateSetAspectRatio,
  validateUpdateContext,
} from './editor.validators';

const EMOJI = '\u{1F3AC}'; // one character, two UTF-16 units
const URL_A = 'https://cdn.example.com/a.png';

describe('editor request validation', () => {
  describe('create project', () => {
    it('fills the defaults for an empty body, for nulls, and for a request sent without a body', () => {
      const defaults = { ok: true, value: { name: 'Untitled project', description: null, aspect_ratio: '9:16' } };
      expect(validateCreateProject({})).toEqual(defaults);
      expect(validateCreateProject({ name: null, description: null, aspect_ratio: null })).toEqual(defaults);
      expect(validateCreateProject(undefined)).toEqual(defaults);
    });

    it('keeps the given fields as they are', () => {
      expect(validateCreateProject({ name: 'Trailer', description: 'A short one', aspect_ratio: '16:9' })).toEqual({
        ok: true,
        value: { name: 'Trailer', description: 'A short one', aspect_ratio: '16:9' },
      });
    });

    it('counts the name in characters: 120 emoji are accepted, 121 are not', () => {
      expect(validateCreateProject({ name: EMOJI.repeat(120) })).toMatchObject({
        ok: true,
        value: { name: EMOJI.repeat(120) },
      });
      expect(validateCreateProject({ name: EMOJI.repeat(121) })).toEqual({
        ok: false,
        error: 'name must be 1-120 characters',
      });
    });

    it.each<[string, unknown]>([
      ['empty', ''],
      ['blank', ' \t\n '],
      ['121 characters', 'n'.repeat(121)],
      ['a number', 5],
      ['an array', ['a']],
    ])('refuses a %s name with "name must be 1-120 characters"', (_what, name) => {
      expect(validateCreateProject({ name })).toEqual({ ok: false, error: 'name must be 1-120 characters' });
    });

    it('accepts a description of 1000 characters and an empty one', () => {
      expect(validateCreateProject({ description: EMOJI.repeat(1000) }).ok).toBe(true);
      expect(validateCreateProject({ description: '' })).toMatchObject({ ok: true, value: { description: '' } });
    });

    it.each<[string, unknown]>([
      ['of 1001 characters', 'd'.repeat(1001)],
      ['that is not a string', 12],
    ])('refuses a description %s with "description must be at most 1000 characters"', (_what, description) => {
      expect(validateCreateProject({ description })).toEqual({
        ok: false,
        error: 'description must be at most 1000 characters',
      });
    });

    it.each(['9:16', '1:1', '4:5', '16:9', '4:3'])('accepts the aspect ratio %s', (aspect) => {
      expect(validateCreateProject({ aspect_ratio: aspect })).toMatchObject({
        ok: true,
        value: { aspect_ratio: aspect },
      });
    });

    it.each<unknown>(['21:9', '3:4', '', 1.77, ['9:16']])(
      'refuses the aspect ratio %p with the list of accepted ones',
      (aspect) => {
        expect(validateCreateProject({ aspect_ratio: aspect })).toEqual({
          ok: false,
          error: 'aspect_ratio must be one of 9:16, 1:1, 4:5, 16:9, 4:3',
        });
      },
    );

    it('names an unknown field and lists the accepted ones', () => {
      expect(validateCreateProject({ name: 'x', title: 'y' })).toEqual({
        ok: false,
        error: 'unknown field: title (accepted: name, description, aspect_ratio)',
      });
      expect(validateCreateProject({ a: 1, b: 2 })).toEqual({
        ok: false,
        error: 'unknown fields: a, b (accepted: name, description, aspect_ratio)',
      });
    });

    it.each<unknown>([null, [], 'name', 42, true])(
      'answers "Request body must be a JSON object" to the non-object body %p',
      (body) => {
        expect(validateCreateProject(body)).toEqual({ ok: false, error: 'Request body must be a JSON object' });
      },
    );
  });

  describe('instruct', () => {
    it('accepts an instruction alone, with image_urls defaulting to none', () => {
      expect(validateInstruct({ instruction: 'make a teaser' })).toEqual({
        ok: true,
        value: { instruction: 'make a teaser', image_urls: [] },
      });
    });

    it('accepts image_urls alone, with the instruction defaulting to empty', () => {
      expect(validateInstruct({ image_urls: [URL_A] })).toEqual({
        ok: true,
        value: { instruction: '', image_urls: [URL_A] },
      });
      expect(validateInstruct({ instruction: null, image_urls: [URL_A] })).toEqual({
        ok: true,
        value: { instruction: '', image_urls: [URL_A] },
      });
    });

    it('passes a target video along', () => {
      expect(validateInstruct({ instruction: 'yes', video_id: 'vid_abc' })).toEqual({
        ok: true,
        value: { instruction: 'yes', image_urls: [], video_id: 'vid_abc' },
      });
    });

    it.each<[string, unknown]>([
      ['an empty body', {}],
      ['an empty instruction and no image_urls', { instruction: '' }],
      ['a blank instruction and empty image_urls', { instruction: '   ', image_urls: [] }],
      ['nulls for both', { instruction: null, image_urls: null }],
    ])('refuses %s with "instruction or image_urls is required"', (_what, body) => {
      expect(validateInstruct(body)).toEqual({ ok: false, error: 'instruction or image_urls is required' });
    });

    it('counts the instruction in characters: 8000 emoji are accepted, 8001 characters are not', () => {
      expect(validateInstruct({ instruction: EMOJI.repeat(8000) }).ok).toBe(true);
      expect(validateInstruct({ instruction: 'i'.repeat(8001) })).toEqual({
        ok: false,
        error: 'instruction must be at most 8000 characters',
      });
    });

    it.each<unknown>([5, true, ['a'], { text: 'a' }])(
      'refuses the instruction %p with "instruction must be a string"',
      (instruction) => {
        expect(validateInstruct({ instruction })).toEqual({ ok: false, error: 'instruction must be a string' });
      },
    );

    it('accepts 10 image_urls', () => {
      expect(validateInstruct({ image_urls: Array(10).fill(URL_A) })).toMatchObject({
        ok: true,
        value: { image_urls: Array(10).fill(URL_A) },
      });
    });

    it.each<[string, unknown]>([
      ['11 URLs', Array(11).fill(URL_A)],
      ['a string', URL_A],
      ['an object', { 0: URL_A }],
    ])('refuses image_urls of %s with "image_urls must be an array of at most 10 https URLs"', (_what, imageUrls) => {
      expect(validateInstruct({ instruction: 'x', image_urls: imageUrls })).toEqual({
        ok: false,
        error: 'image_urls must be an array of at most 10 https URLs',
      });
    });

    it.each<unknown>([
      'http://cdn.example.com/a.png',
      'ftp://cdn.example.com/a.png',
      'not a url',
      'https://',
      'https://cdn.example.com/a b.png',
      7,
      null,
    ])('refuses the image URL %p with "image_urls items must be https URLs"', (item) => {
      expect(validateInstruct({ instruction: 'x', image_urls: [URL_A, item] })).toEqual({
        ok: false,
        error: 'image_urls items must be https URLs',
      });
    });

    it('refuses a non-string video_id with "video_id must be a string"', () => {
      expect(validateInstruct({ instruction: 'x', video_id: 3 })).toEqual({
        ok: false,
        error: 'video_id must be a string',
      });
    });

    it('names an unknown field', () => {
      expect(validateInstruct({ instruction: 'x', prompt: 'y' })).toEqual({
        ok: false,
        error: 'unknown field: prompt (accepted: instruction, image_urls, video_id)',
      });
    });

    it('answers "Request body must be a JSON object" to an array body', () => {
      expect(validateInstruct(['make a teaser'])).toEqual({ ok: false, error: 'Request body must be a JSON object' });
    });
  });

  describe('export', () => {
    it('defaults fit to "fit" and the video to none', () => {
      expect(validateExport({})).toEqual({ ok: true, value: { fit: 'fit' } });
      expect(validateExport({ fit: null, video_id: null })).toEqual({ ok: true, value: { fit: 'fit' } });
    });

    it('accepts fill for a given video', () => {
      expect(validateExport({ fit: 'fill', video_id: 'vid_1' })).toEqual({
        ok: true,
        value: { fit: 'fill', video_id: 'vid_1' },
      });
    });

    it.each<unknown>(['crop', 'FIT', 1])('refuses the fit %p with "fit must be one of fit, fill"', (fit) => {
      expect(validateExport({ fit })).toEqual({ ok: false, error: 'fit must be one of fit, fill' });
    });

    it('refuses a non-string video_id with "video_id must be a string"', () => {
      expect(validateExport({ video_id: ['vid_1'] })).toEqual({ ok: false, error: 'video_id must be a string' });
    });
  });

  describe('create video and rename', () => {
    it('names a new video "Untitled video" when no name is given', () => {
      expect(validateCreateVideo({})).toEqual({ ok: true, value: { name: 'Untitled video' } });
      expect(validateCreateVideo({ name: null })).toEqual({ ok: true, value: { name: 'Untitled video' } });
      expect(validateCreateVideo({ name: 'B-roll' })).toEqual({ ok: true, value: { name: 'B-roll' } });
    });

    it('refuses a blank or too long video name with the name message', () => {
      expect(validateCreateVideo({ name: '  ' })).toEqual({ ok: false, error: 'name must be 1-120 characters' });
      expect(validateCreateVideo({ name: 'v'.repeat(121) })).toEqual({
        ok: false,
        error: 'name must be 1-120 characters',
      });
    });

    it('needs the new name to rename', () => {
      expect(validateRename({ name: 'Renamed' })).toEqual({ ok: true, value: { name: 'Renamed' } });
      expect(validateRename({})).toEqual({ ok: false, error: 'name must be 1-120 characters' });
      expect(validateRename({ name: null })).toEqual({ ok: false, error: 'name must be 1-120 characters' });
      expect(validateRename({ name: '' })).toEqual({ ok: false, error: 'name must be 1-120 characters' });
    });

    it('names an unknown field of a rename', () => {
      expect(validateRename({ name: 'x', video_id: 'vid_1' })).toEqual({
        ok: false,
        error: 'unknown field: video_id (accepted: name)',
      });
    });
  });

  describe('import asset', () => {
    it('accepts a https URL', () => {
      expect(validateImportAsset({ url: URL_A })).toEqual({ ok: true, value: { url: URL_A } });
    });

    it.each<unknown>([
      '',
      'http://cdn.example.com/a.png',
      'file:///etc/passwd',
      `https://x.test/${'a'.repeat(4096)}`,
      42,
    ])('refuses the url %p with "url must be a https URL"', (url) => {
      expect(validateImportAsset({ url })).toEqual({ ok: false, error: 'url must be a https URL' });
    });

    it('accepts a job id, with or without an index', () => {
      expect(validateImportAsset({ job_id: 'job_1' })).toEqual({ ok: true, value: { job_id: 'job_1' } });
      expect(validateImportAsset({ job_id: 'job_1', index: 2 })).toEqual({
        ok: true,
        value: { job_id: 'job_1', index: 2 },
      });
    });

    it.each<[string, unknown]>([
      ['neither url nor job_id', {}],
      ['a null url alone', { url: null }],
    ])('refuses %s with the url message a url-only body always got', (_, body) => {
      expect(validateImportAsset(body)).toEqual({ ok: false, error: 'url must be a https URL' });
    });

    it('refuses both url and job_id: one source only', () => {
      expect(validateImportAsset({ url: URL_A, job_id: 'job_1' })).toEqual({
        ok: false,
        error: 'either url or job_id is required, not both',
      });
    });

    it.each<unknown>([-1, 1.5, 'first'])('refuses the index %p', (index) => {
      expect(validateImportAsset({ job_id: 'job_1', index })).toEqual({
        ok: false,
        error: 'index must be an integer of at least 0',
      });
    });

    it('refuses an index without a job id', () => {
      expect(validateImportAsset({ url: URL_A, index: 0 })).toEqual({
        ok: false,
        error: 'index applies to job_id only',
      });
    });
  });

  describe('add clip', () => {
    it('accepts the required fields alone, leaving the rest to the service', () => {
      expect(validateAddClip({ track: 'video', asset_id: 'ast_1' })).toEqual({
        ok: true,
        value: { track: 'video', asset_id: 'ast_1' },
      });
    });

    it('treats nulls as not given', () => {
      expect(
        validateAddClip({
          track: 'music',
          asset_id: 'ast_1',
          video_id: null,
          idx: null,
          duration_sec: null,
          start_sec: null,
          volume: null,
        }),
      ).toEqual({
        ok: true,
        value: { track: 'music', asset_id: 'ast_1' },
      });
    });

    it('keeps every optional field at its limits', () => {
      expect(
        validateAddClip({
          video_id: 'vid_1',
          track: 'voice',
          asset_id: 'ast_1',
          idx: 0,
          duration_sec: 0.1,
          start_sec: 3600,
          volume: 2,
        }),
      ).toEqual({
        ok: true,
        value: {
          video_id: 'vid_1',
          track: 'voice',
          asset_id: 'ast_1',
          idx: 0,
          duration_sec: 0.1,
          start_sec: 3600,
          volume: 2,
        },
      });
      expect(validateAddClip({ track: 'sfx', asset_id: 'ast_1', duration_sec: 600, start_sec: 0, volume: 0 }).ok).toBe(
        true,
      );
    });

    it('caps a position far past any track at the contract maximum (both append)', () => {
      expect(validateAddClip({ track: 'video', asset_id: 'ast_1', idx: 1_000_000 })).toMatchObject({
        ok: true,
        value: { idx: 10_000 },
      });
    });

    it.each<unknown>([undefined, 'subtitles', 'Video', 0])('refuses the track %p with the list of tracks', (track) => {
      expect(validateAddClip({ track, asset_id: 'ast_1' })).toEqual({
        ok: false,
        error: 'track must be one of video, voice, sfx, music',
      });
    });

    it.each<unknown>([undefined, null, '', 12])('refuses the asset_id %p with "asset_id is required"', (assetId) => {
      expect(validateAddClip({ track: 'video', asset_id: assetId })).toEqual({
        ok: false,
        error: 'asset_id is required',
      });
    });

    it.each<unknown>([-1, 1.5, '2'])('refuses the idx %p with "idx must be an integer of at least 0"', (idx) => {
      expect(validateAddClip({ track: 'video', asset_id: 'ast_1', idx })).toEqual({
        ok: false,
        error: 'idx must be an integer of at least 0',
      });
    });

    it.each<unknown>([0, 0.09, 600.5, '3'])('refuses the duration_sec %p', (duration) => {
      expect(validateAddClip({ track: 'video', asset_id: 'ast_1', duration_sec: duration })).toEqual({
        ok: false,
        error: 'duration_sec must be a number between 0.1 and 600',
      });
    });

    it.each<unknown>([-0.5, 3600.01, '0'])('refuses the start_sec %p', (start) => {
      expect(validateAddClip({ track: 'music', asset_id: 'ast_1', start_sec: start })).toEqual({
        ok: false,
        error: 'start_sec must be a number between 0 and 3600',
      });
    });

    it.each<unknown>([-0.1, 2.01, '1', true])('refuses the volume %p', (volume) => {
      expect(validateAddClip({ track: 'music', asset_id: 'ast_1', volume })).toEqual({
        ok: false,
        error: 'volume must be a number between 0 and 2',
      });
    });

    it('refuses a non-string video_id', () => {
      expect(validateAddClip({ track: 'video', asset_id: 'ast_1', video_id: 1 })).toEqual({
        ok: false,
        error: 'video_id must be a string',
      });
    });

    it('names an unknown field', () => {
      expect(validateAddClip({ track: 'video', asset_id: 'ast_1', position: 2 })).toEqual({
        ok: false,
        error: 'unknown field: position (accepted: video_id, track, asset_id, idx, duration_sec, start_sec, volume)',
      });
    });
  });

  describe('move clip', () => {
    it('needs the new position', () => {
      expect(validateMoveClip({ idx: 3 })).toEqual({ ok: true, value: { idx: 3 } });
      expect(validateMoveClip({})).toEqual({ ok: false, error: 'idx must be an integer of at least 0' });
      expect(validateMoveClip({ idx: -2 })).toEqual({ ok: false, error: 'idx must be an integer of at least 0' });
    });
  });

  describe('update context', () => {
    it('accepts an empty context (clearing it) and one of 100000 characters', () => {
      expect(validateUpdateContext({ context_md: '' })).toEqual({ ok: true, value: { context_md: '' } });
      expect(validateUpdateContext({ context_md: EMOJI.repeat(100_000) }).ok).toBe(true);
    });

    it.each<[string, unknown]>([
      ['absent', {}],
      ['null', { context_md: null }],
      ['not a string', { context_md: 5 }],
      ['100001 characters', { context_md: 'c'.repeat(100_001) }],
    ])('refuses a context_md that is %s', (_what, body) => {
      expect(validateUpdateContext(body)).toEqual({
        ok: false,
        error: 'context_md must be a string of at most 100000 characters',
      });
    });
  });

  describe('set aspect ratio', () => {
    it('needs one of the project aspect ratios', () => {
      expect(validateSetAspectRatio({ aspect_ratio: '4:5' })).toEqual({ ok: true, value: { aspect_ratio: '4:5' } });
      expect(validateSetAspectRatio({})).toEqual({
        ok: false,
        error: 'aspect_ratio must be one of 9:16, 1:1, 4:5, 16:9, 4:3',
      });
      expect(validateSetAspectRatio({ aspect_ratio: '21:9' })).toEqual({
        ok: false,
        error: 'aspect_ratio must be one of 9:16, 1:1, 4:5, 16:9, 4:3',
      });
    });
  });

  describe('get project query', () => {
    it('passes a video_id, and treats an absent or empty one as not given', () => {
      expect(validateGetProjectQuery({ video_id: 'vid_1' })).toEqual({ ok: true, value: { video_id: 'vid_1' } });
      expect(validateGetProjectQuery({})).toEqual({ ok: true, value: {} });
      expect(validateGetProjectQuery({ video_id: '' })).toEqual({ ok: true, value: {} });
    });

    it('ignores other query parameters', () => {
      expect(validateGetProjectQuery({ utm_source: 'x' })).toEqual({ ok: true, value: {} });
    });

    it('refuses a repeated or nested video_id with "video_id must be a string"', () => {
      expect(validateGetProjectQuery({ video_id: ['vid_1', 'vid_2'] })).toEqual({
        ok: false,
        error: 'video_id must be a string',
      });
      expect(validateGetProjectQuery({ video_id: { a: 'b' } })).toEqual({
        ok: false,
        error: 'video_id must be a string',
      });
    });
  });
});
