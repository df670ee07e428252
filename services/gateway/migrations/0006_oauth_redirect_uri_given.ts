import type { Migration } from '@mf/db';

export const oauthRedirectUriGiven: Migration = {
  name: '0006_oauth_redirect_uri_given',
  async up(knex) {
    await knex.raw(`
      -- Whether the authorization request named its redirect_uri (it may leave it out when the
      -- client registered one only). When it did, the token request must repeat it (RFC 6749
      -- §4.1.3). Codes issued before this column existed came from requests that named it.
      ALTER TABLE oauth_codes ADD COLUMN redirect_uri_given boolean NOT NULL DEFAULT true;
    `);
  },
  async down(knex) {
    await knex.raw('ALTER TABLE oauth_codes DROP COLUMN redirect_uri_given;');
  },
};
