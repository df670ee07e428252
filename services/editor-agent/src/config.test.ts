import { loadEditorAgentConfig } from './config';

describe('editor-agent config', () => {
  it('refuses to start with NODE_ENV=production with private import URLs allowed, naming the variable', () => {
    expect(() => loadEditorAgentConfig({ NODE_ENV: 'production', ALLOW_PRIVATE_URLS: 'true' })).toThrow(
      /ALLOW_PRIVATE_URLS: is for tests and local development only/,
    );
    expect(loadEditorAgentConfig({ NODE_ENV: 'production', ALLOW_PRIVATE_URLS: 'false' }).ALLOW_PRIVATE_URLS).toBe(
      false,
    );
  });

  it('allows private import URLs outside production (tests and local development)', () => {
    expect(loadEditorAgentConfig({ ALLOW_PRIVATE_URLS: 'true' }).ALLOW_PRIVATE_URLS).toBe(true);
  });
});
