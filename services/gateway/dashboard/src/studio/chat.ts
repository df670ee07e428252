import { api, ApiError, seg } from '../api.js';
import { h, replace, uid } from '../dom.js';
import { credits, time } from '../format.js';
import { postForEvents, type StreamedEvent } from '../event-stream.js';
import { announce, badge, empty } from '../ui.js';
import type { DashboardReplies, ThreadTurn, Video } from '../contracts.js';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function pastTurn(t: ThreadTurn): HTMLElement {
  return h(
    'li',
    { class: 'turn' },
    h(
      'div',
      { class: 'message message-user' },
      h('p', { class: 'message-meta' }, 'You · ', time(t.created_at)),
      h('p', { class: 'message-text' }, t.instruction || '(images only)'),
    ),
    h(
      'div',
      { class: 'message message-agent' },
      h('p', { class: 'message-meta' }, 'Editor ', t.status && t.status !== 'done' ? badge(t.status) : null),
      h('p', { class: 'message-text' }, t.assistant_text || (t.status === 'running' ? 'Working…' : '(no reply)')),
    ),
  );
}

/**
 * A turn as it happens: the agent's steps and tool calls, each generation with its progress bar,
 * then the reply (or the error), from the streamed instruct (docs/editor-api.md).
 */
class LiveTurn {
  readonly element: HTMLElement;
  private readonly steps = h('ol', { class: 'turn-steps', 'aria-label': 'Steps of this turn' });
  private readonly reply = h('p', { class: 'message-text' }, 'Working…');
  private readonly footer = h('p', { class: 'message-meta turn-credits' });
  private readonly generations = new Map<string, HTMLProgressElement>();

  constructor(instruction: string) {
    this.element = h(
      'li',
      { class: 'turn turn-live', dataset: { state: 'running' } },
      h(
        'div',
        { class: 'message message-user' },
        h('p', { class: 'message-meta' }, 'You · now'),
        h('p', { class: 'message-text' }, instruction),
      ),
      h(
        'div',
        { class: 'message message-agent', 'aria-live': 'polite' },
        h('p', { class: 'message-meta' }, 'Editor'),
        this.steps,
        this.reply,
        this.footer,
      ),
    );
  }

  private step(kind: string, ...content: (string | Node)[]): HTMLLIElement {
    const li = h('li', { class: `turn-step step-${kind}`, dataset: { kind } }, ...content);
    this.steps.append(li);
    return li;
  }

  event({ name, data }: StreamedEvent): void {
    if (name === 'step') this.step('step', `Thinking (step ${Number(data.step ?? 1)})`);
    else if (name === 'tool_call') this.step('tool_call', 'Tool: ', h('code', null, text(data.name)));
    else if (name === 'tool_result') this.step('tool_result', `✓ ${text(data.name)}: ${text(data.summary)}`);
    else if (name === 'tool_error') this.step('tool_error', `✗ ${text(data.name)}: ${text(data.error)}`);
    else if (name === 'message') this.reply.textContent = text(data.text) || this.reply.textContent;
    else if (name === 'generation') this.generation(data);
    else if (name === 'reply') this.finish('done', text(data.assistant_text) || '(no reply)');
    else if (name === 'error' && typeof data.status === 'number')
      this.finish('failed', text(data.error) || 'The turn failed.');
    else if (name === 'error') this.step('tool_error', `Error: ${text(data.error)}`);
  }

  private generation(data: Record<string, unknown>): void {
    const jobId = text(data.job_id);
    if (!jobId) return;
    let bar = this.generations.get(jobId);
    if (!bar) {
      bar = h('progress', { max: 100, value: 0, 'aria-label': `Generation ${jobId}` });
      this.generations.set(jobId, bar);
      const cost = typeof data.credits === 'number' ? ` · ${credits(data.credits)}` : '';
      this.step(
        'generation',
        `Generating ${text(data.kind) || 'media'} `,
        h('a', { href: `#/jobs/${seg(jobId)}`, class: 'job-id' }, jobId),
        cost,
        ' ',
        bar,
      );
    }
    if (typeof data.progress === 'number') bar.value = data.progress;
    if (data.status === 'completed') bar.value = 100;
    if (typeof data.status === 'string') bar.dataset.status = data.status;
  }

  finish(state: 'done' | 'failed', message: string): void {
    this.element.dataset.state = state;
    this.reply.textContent = message;
    if (state === 'failed') this.reply.classList.add('error-text');
  }

  spent(amount: number | null): void {
    replace(this.footer, amount === null ? null : `Credits spent: ${credits(amount)}`);
    if (amount !== null) this.footer.dataset.credits = String(amount);
  }
}

async function balance(): Promise<number | null> {
  try {
    return (await api.get<DashboardReplies['GET /balance']>('/balance')).credits_remaining;
  } catch {
    return null;
  }
}

/**
 * The chat of a video: its past turns, then a box for the next instruction. A turn is streamed
 * (each step live), the credits it took shown from the balance before and after, and `onTurnDone`
 * redraws the project (the turn may have added media and clips).
 */
export function chatPanel(
  projectId: string,
  video: Video,
  turns: readonly ThreadTurn[],
  onTurnDone: () => void,
): HTMLElement {
  const ordered = [...turns].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const thread = h('ol', { class: 'thread' }, ordered.map(pastTurn));
  const none = ordered.length ? null : empty('No messages yet. Tell the editor what to make.');
  const inputId = uid('instruction');
  const input = h('textarea', {
    id: inputId,
    name: 'instruction',
    rows: 3,
    maxlength: 8000,
    required: true,
    placeholder: 'e.g. Make a 4 second video of a kite taking off and put it on the timeline',
  });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const form = h(
    'form',
    { class: 'chat-form' },
    h('label', { for: inputId }, 'Instruction'),
    input,
    h(
      'div',
      { class: 'form-actions' },
      send,
      h(
        'span',
        { class: 'hint' },
        'Each turn is charged, and so is any media it makes: the cost shows with the reply.',
      ),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const instruction = input.value.trim();
    if (!instruction || send.disabled) return;
    none?.remove();
    send.disabled = true;
    const turn = new LiveTurn(instruction);
    thread.append(turn.element);
    input.value = '';
    void (async () => {
      const before = await balance();
      try {
        await postForEvents(`/projects/${seg(projectId)}/instruct`, { instruction, video_id: video.id }, (e) =>
          turn.event(e),
        );
      } catch (err) {
        turn.finish('failed', err instanceof ApiError ? err.message : 'The turn could not be sent.');
      }
      if (turn.element.dataset.state === 'running')
        turn.finish(
          'failed',
          'The connection ended before the reply; the turn may still finish: reload the page to see it.',
        );
      const after = await balance();
      turn.spent(before !== null && after !== null ? Math.max(0, before - after) : null);
      send.disabled = false;
      announce(turn.element.dataset.state === 'done' ? 'The editor replied.' : 'The turn failed.');
      onTurnDone();
    })();
  });
  return h('section', { class: 'chat', 'aria-label': 'Chat' }, h('h3', null, 'Chat'), thread, none, form);
}
