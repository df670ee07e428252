import { consentPage, escapeHtml } from './consent-page';

const view = {
  clientName: '<script>alert("x")</script> Evil & Co',
  clientId: 'c-1',
  userEmail: 'me@example.test',
  redirectUri: 'http://127.0.0.1:5000/callback?x=1',
  offered: ['models:read', 'jobs:read'] as const,
  csrfToken: 'C'.repeat(43),
  request: { client_id: 'c-1', state: '"><img src=x>', scope: 'models:read jobs:read', resource: undefined },
};

describe('the consent page', () => {
  it('never lets the client name or request values become markup', () => {
    const html = consentPage(view);
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Evil &amp; Co');
    expect(html).not.toContain('"><img');
    expect(html).toContain('value="&quot;&gt;&lt;img src=x&gt;"');
    expect(escapeHtml(`a'b`)).toBe('a&#39;b');
  });

  it('posts the request back with the CSRF token, the offered scopes checked and models:read always on', () => {
    const html = consentPage(view);
    expect(html).toContain('<form class="card" method="post" action="/oauth/authorize"');
    expect(html).toContain(`<input type="hidden" name="csrf_token" value="${'C'.repeat(43)}">`);
    expect(html).toContain('<input type="hidden" name="client_id" value="c-1">');
    expect(html).not.toContain('name="resource"');
    expect(html).toMatch(
      /<input type="checkbox" id="scope-models-read" checked disabled><input type="hidden" name="scope_granted" value="models:read">/,
    );
    expect(html).toContain(
      '<input type="checkbox" id="scope-jobs-read" name="scope_granted" value="jobs:read" checked>',
    );
    expect(html).toContain('name="decision" value="approve"');
    expect(html).toContain('name="decision" value="deny"');
    expect(html).toContain('<code>http://127.0.0.1:5000/callback</code>');
  });
});
