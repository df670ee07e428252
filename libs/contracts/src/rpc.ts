import type Joi from 'joi';
import type { WireError } from '@mf/errors';

/**
 * A request/reply operation: its wire type, version and the schema its request must satisfy.
 * Req and Res are carried as phantom types so client and server agree at compile time.
 */
export interface RpcMethod<Req, Res> {
  readonly type: string;
  readonly version: number;
  readonly request: Joi.Schema<Req>;
  /** Phantom field: never set, only carries the reply type. */
  readonly __reply?: Res;
}

/**
 * `Req` is the type generated from `request` (scripts/generate), so the cast restates what the
 * generator guarantees; joi's own generics cannot carry it.
 */
export function rpcMethod<Req, Res>(type: string, request: Joi.Schema, version = 1): RpcMethod<Req, Res> {
  return { type, version, request: request as Joi.Schema<Req> };
}

// `any` here only constrains generic parameters; every concrete method has exact types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRpcMethod = RpcMethod<any, any>;

export interface RpcService<M extends Record<string, AnyRpcMethod>> {
  /** Durable queue the serving service consumes. */
  readonly queue: string;
  readonly methods: M;
}

export type RpcRequestOf<M> = M extends RpcMethod<infer Req, unknown> ? Req : never;
export type RpcReplyOf<M> = M extends RpcMethod<unknown, infer Res> ? Res : never;

/** What travels back to the caller's reply queue. */
export type RpcReplyBody<T> = { ok: true; result: T } | { ok: false; error: WireError };
