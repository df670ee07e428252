import type { Migration } from '@mf/db';

/**
 * SIGNUP_CREDITS: what a new account was promised when it signed up (the setting may change
 * later; the promise does not) and when billing confirmed the grant. A grant that billing did not
 * confirm at sign-up is retried until it does (docs/dashboard-api.md, "Sign-up credits").
 */
export const signupCredits: Migration = {
  name: '0007_signup_credits',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE users ADD COLUMN signup_credits integer NOT NULL DEFAULT 0 CHECK (signup_credits >= 0);
      ALTER TABLE users ADD COLUMN signup_credits_granted_at timestamptz;
    `);
  },
  async down(knex) {
    await knex.raw('ALTER TABLE users DROP COLUMN signup_credits_granted_at, DROP COLUMN signup_credits;');
  },
};
