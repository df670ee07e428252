import { parseProvidersDocument } from './providers-document';

const env = { REPLICATE_API_TOKEN: 'r8_test', FAL_KEY: 'fal_test' };

const yamlText = `
providers:
  rep:   { type: replicate, base_url: https://api.replicate.com/v1, api_key_env: REPLICATE_API_TOKEN }
  fal:   { type: fal, api_key_env: FAL_KEY }
  local: { type: local }
routes:
  imagegen-2:      [ { provider: rep, model: black-forest-labs/flux-schnell }, { provider: local } ]
  vidgen-2.0:      [ { provider: fal } ]
  vidgen-2.0-fast: [ { provider: local } ]
`;

const jsonDoc = {
  providers: {
    rep: { type: 'replicate', base_url: 'https://api.replicate.com/v1', api_key_env: 'REPLICATE_API_TOKEN' },
    fal: { type: 'fal', api_key_env: 'FAL_KEY' },
    local: { type: 'local' },
  },
  routes: {
    'imagegen-2': [{ provider: 'rep', model: 'black-forest-labs/flux-schnell' }, { provider: 'local' }],
    'vidgen-2.0': [{ provider: 'fal' }],
    'vidgen-2.0-fast': [{ provider: 'local' }],
  },
};

describe('providers document', () => {
  it('reads a YAML document as the same routing as its JSON form', () => {
    const fromYaml = parseProvidersDocument({ text: yamlText, source: 'PROVIDERS_FILE p.yaml', yaml: true }, env);
    const fromJson = parseProvidersDocument(
      { text: JSON.stringify(jsonDoc), source: 'PROVIDERS_JSON', yaml: false },
      env,
    );
    expect(fromYaml).toEqual(fromJson);
    expect(fromYaml.routes['imagegen-2'].map((r) => r.provider)).toEqual(['rep', 'local']);
  });

  it('names the file and the YAML error when the document does not parse', () => {
    expect(() =>
      parseProvidersDocument({ text: 'providers: [unclosed', source: 'PROVIDERS_FILE p.yaml', yaml: true }, env),
    ).toThrow(/^Invalid configuration: PROVIDERS_FILE p\.yaml: not valid YAML \(/);
  });
});
