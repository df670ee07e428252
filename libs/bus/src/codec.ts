import { randomUUID } from 'node:crypto';
import type { Envelope } from '@mf/contracts';

export function encode(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

export function decode(content: Buffer): unknown {
  return JSON.parse(content.toString('utf8'));
}

export function envelope<T>(
  type: string,
  version: number,
  payload: T,
  ids: { messageId?: string; correlationId?: string } = {},
): Envelope<T> {
  return {
    type,
    version,
    messageId: ids.messageId ?? randomUUID(),
    correlationId: ids.correlationId,
    occurredAt: new Date().toISOString(),
    payload,
  };
}
