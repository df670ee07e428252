import type WebSocket from 'ws';
import type { Logger } from '@mf/logger';

/**
 * ComfyUI's `/ws?clientId=...` as a progress source: ComfyUI sends `progress` messages
 * ({ value, max, prompt_id }) to the client id that queued the prompt, so the replica that
 * submitted a prompt learns its progress (others simply report none). The socket opens on first
 * use, reconnects with a growing delay while prompts are followed, and never keeps the process alive.
 */
export class ProgressSocket {
  private socket: WebSocket | null = null;
  private readonly progress = new Map<string, number>();
  private retryMs = 1000;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly wsUrl: string,
    private readonly logger: Logger,
  ) {}

  /** Starts following progress (idempotent). */
  ensureOpen(): void {
    if (this.closed || this.socket || this.timer) return;
    // ws loads only where a ComfyUI backend is used (the memory bench, bench/README.md).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
    const WebSocketClient = require('ws') as typeof import('ws');
    const socket = new WebSocketClient(this.wsUrl, { handshakeTimeout: 5000 });
    this.socket = socket;
    socket.on('open', () => {
      this.retryMs = 1000;
      (socket as unknown as { _socket?: { unref?: () => void } })._socket?.unref?.();
    });
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      this.onMessage(text.toString('utf8'));
    });
    socket.on('error', (err) => this.logger.debug({ err: err.message }, 'comfyui progress socket error'));
    socket.on('close', () => {
      this.socket = null;
      if (this.closed || this.progress.size === 0) return;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.ensureOpen();
      }, this.retryMs);
      this.timer.unref();
      this.retryMs = Math.min(30_000, this.retryMs * 2);
    });
  }

  /** 0..1, or undefined when nothing was heard about the prompt here. */
  progressOf(promptId: string): number | undefined {
    return this.progress.get(promptId);
  }

  follow(promptId: string): void {
    if (!this.progress.has(promptId)) this.progress.set(promptId, 0);
    this.ensureOpen();
  }

  forget(promptId: string): void {
    this.progress.delete(promptId);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.terminate();
    this.socket = null;
  }

  private onMessage(text: string): void {
    let msg: { type?: unknown; data?: Record<string, unknown> };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    const id = msg.data?.prompt_id;
    if (typeof id !== 'string' || !this.progress.has(id)) return;
    if (msg.type === 'progress') {
      const value = Number(msg.data?.value);
      const max = Number(msg.data?.max);
      if (max > 0 && value >= 0) this.progress.set(id, Math.min(1, value / max));
    } else if (msg.type === 'execution_success') {
      this.progress.set(id, 1);
    }
  }
}
