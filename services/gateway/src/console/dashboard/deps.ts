import type { Bus } from '@mf/bus';
import type { FalEndpoints } from '@mf/catalog';
import type { Knex } from '@mf/db';
import type { Storage } from '@mf/storage';
import type { Request, Response } from 'express';
import type { EditorCaller } from '../../core/auth/auth-context';
import type { LoginThrottle } from '../../core/accounts/login-throttle';
import type { KeyRevocations } from '../../core/auth/key-revocations';
import type { CookiePolicy } from './session-cookie';
import type { SessionStore } from '../../core/accounts/session-store';

/** What the dashboard API needs, passed in (tests give their own store, throttle and clock). */
export interface DashboardDeps {
  db: Knex;
  bus: Bus;
  sessions: SessionStore;
  throttle: LoginThrottle;
  cookies: CookiePolicy;
  /** Origin of state-changing requests a browser may send besides the request's own host. */
  publicBaseUrl: string;
  /** How long the webhook test may take (longer than the dispatcher's delivery timeout). */
  webhookTestTimeoutMs: number;
  /** Credits each new account gets once, through billing (SIGNUP_CREDITS; 0: none). */
  signupCredits: number;
  /** The catalog's upstream endpoint map (the playground's models, the sample webhook's model). */
  falEndpoints: FalEndpoints;
  /** How long a playground submit may take (charge + provider submit). */
  submitTimeoutMs: number;
  /** Tells every gateway replica's key cache about a revoked key. */
  keyRevocations: KeyRevocations;
  /** What one credit is worth in US dollars (CREDIT_VALUE_USD): the operator report's revenue. */
  creditValueUsd: number;
  /** The project page's editing: what the public editor routes use too. */
  studio: StudioDeps;
}

export interface StudioDeps {
  /** The public instruct's event stream (api/sse/instruct-stream.ts), wired in by main.ts. */
  streamInstruct(c: {
    req: Request;
    res: Response;
    auth: EditorCaller;
    projectId: string;
    correlationId: string;
  }): Promise<void>;
  storage: Storage;
  uploadMaxBytes: number;
  instructTimeoutMs: number;
  importTimeoutMs: number;
}
