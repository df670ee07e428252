import { redirectUriProblem, redirectUrisProblem } from './redirect-uris';

describe('redirect URIs a client may register', () => {
  it.each([
    'https://app.example.com/callback',
    'https://app.example.com:8443/cb?x=1',
    'http://localhost:3000/callback',
    'http://127.0.0.1/cb',
    'http://[::1]:9/cb',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    ['http://app.example.com/callback', /https, or http on a loopback host/],
    ['http://192.168.1.10/callback', /https, or http on a loopback host/],
    ['cursor://oauth/callback', /https, or http on a loopback host/],
    ['javascript:alert(1)', /https, or http on a loopback host/],
    ['https://app.example.com/cb#frag', /fragment/],
    ['https://user:pw@app.example.com/cb', /credentials/],
    ['not a url', /not a URL/],
  ])('refuses %s', (uri, why) => {
    expect(redirectUriProblem(uri)).toMatch(why);
  });

  it('needs at least one URI and at most ten, and names the first bad one', () => {
    expect(redirectUrisProblem([])).toMatch(/at least one/);
    expect(redirectUrisProblem(Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`))).toMatch(/at most 10/);
    expect(redirectUrisProblem(['https://ok.example/cb', 'http://evil.example/cb'])).toMatch(/evil\.example/);
    expect(redirectUrisProblem(['https://ok.example/cb', 'http://localhost:1/cb'])).toBeNull();
  });
});
