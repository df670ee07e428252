import type Joi from 'joi';

export interface EventDef<T> {
  readonly routingKey: string;
  readonly version: number;
  /** T is the type generated from this schema (scripts/generate). */
  readonly schema: Joi.Schema<T>;
}

/** An event type; the cast restates what the generator guarantees (T is generated from `schema`). */
export function eventDef<T>(routingKey: string, schema: Joi.Schema, version = 1): EventDef<T> {
  return { routingKey, version, schema: schema as Joi.Schema<T> };
}
