import { editorRpc } from './editor';

describe('editor contract lengths', () => {
  const create = editorRpc.methods.createProject.request;
  const base = { user_id: 1, description: null, aspect_ratio: '9:16' };

  it('counts a name in characters, as the gateway does: 120 emoji pass, 121 do not', () => {
    expect(create.validate({ ...base, name: '😀'.repeat(120) }).error).toBeUndefined();
    expect(create.validate({ ...base, name: '😀'.repeat(121) }).error?.message).toBe('name must be 1-120 characters');
  });

  it('counts an instruction in characters', () => {
    const instruct = editorRpc.methods.instruct.request;
    const req = { user_id: 1, project_id: 'prj_a', api_key_id: 1, image_urls: [] };
    expect(instruct.validate({ ...req, instruction: '😀'.repeat(8000) }).error).toBeUndefined();
    expect(instruct.validate({ ...req, instruction: '😀'.repeat(8001) }).error).toBeDefined();
  });
});
