import type { Scope } from '@mf/contracts';
import type Joi from 'joi';

/** A JSON value of the OpenAPI document (a parameter, a response, a schema reference). */
export type Json = Record<string, unknown>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One public operation of /api/v1: everything the router, the OpenAPI document, the scope check and
 * the SDK know of it. Its handler (the use case it calls) is bound by id in api/operations.handlers.ts,
 * so this table loads without the gateway's runtime (the SDK generator reads it).
 */
export interface Operation {
  /** The OpenAPI operationId and the SDK's name for it. */
  id: string;
  method: HttpMethod;
  /** Under /api/v1, OpenAPI style: `/jobs/{id}`. */
  path: string;
  /** The key scope the caller needs (403 naming it otherwise); none: any active key. */
  scope?: Scope;
  /** The path's parameters, documented once on the path (the first operation of a path declares them). */
  pathParams?: readonly Json[];
  /** The query string's schema: each field one optional parameter. */
  query?: Joi.ObjectSchema;
  /** Further parameters of this operation only (headers, or a path parameter documented on it). */
  parameters?: readonly Json[];
  body?: Joi.Schema;
  /**
   * The operation also takes a multipart/form-data upload (field `file`), streamed by its handler:
   * the JSON body parser and Idempotency-Key leave such a request alone.
   */
  upload?: { description: string };
  /** Default true; false: a request without a body uses every default. */
  bodyRequired?: boolean;
  /** The success answer. */
  reply: {
    status: 200 | 202;
    description: string;
    /** Component schema name of the reply, or a whole OpenAPI response (an event stream). */
    schema: string | { response: Json };
    /**
     * `Cache-Control: no-store` on the reply ('reply'), or set before the use case runs so its
     * error answers carry it as well ('always').
     */
    noStore?: 'reply' | 'always';
  };
  /** The statuses beyond the ones every authenticated operation can answer. */
  statuses?: Json;
  /** Replaces every documented response (an operation whose errors have their own shapes). */
  allResponses?: Json;
  summary: string;
  tag: string;
  description?: string;
  /**
   * The MCP tool that offers the same operation, if any. Its description and inputs are the tool's
   * (mcp/tools): a tool may serve several operations (job_status, generate_media).
   */
  mcp?: { name: string };
  /**
   * The SDK's client offers each operation as a method named by its id, generated from this table
   * (sdk/src/generated/operation-methods.ts). 'hand-written': the client has its own for it (other
   * arguments or name, a stream, pages, CSV: sdk/src/client.ts and its sub-APIs).
   */
  sdk?: 'hand-written';
}

/** The express form of an OpenAPI path: `/jobs/{id}` is `/jobs/:id`. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** The names of a path's parameters, in order. */
export const pathParamNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
