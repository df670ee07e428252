import type { Migration } from '@mf/db';

export const balancesLedger: Migration = {
  name: '0001_balances_ledger',
  async up(knex) {
    await knex.raw(`
      CREATE TABLE balances (
        user_id     bigint PRIMARY KEY,
        credits     bigint NOT NULL CHECK (credits >= 0),
        updated_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ledger (
        id            bigserial PRIMARY KEY,
        user_id       bigint NOT NULL,
        kind          text NOT NULL CHECK (kind IN ('charge', 'refund', 'grant')),
        reference     text NOT NULL,
        amount        bigint NOT NULL CHECK (amount >= 0),
        balance_after bigint NOT NULL,
        description   text,
        created_at    timestamptz NOT NULL DEFAULT now(),
        -- One charge, one refund, one grant per reference: repeating an operation is a no-op.
        CONSTRAINT ledger_reference_kind UNIQUE (reference, kind)
      );
      CREATE INDEX ledger_user_id ON ledger (user_id, id DESC);
      CREATE INDEX ledger_user_period ON ledger (user_id, created_at) WHERE kind = 'charge';
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE ledger; DROP TABLE balances;');
  },
};
