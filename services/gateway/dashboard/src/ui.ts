import { h, uid, type Child } from './dom.js';
import { ApiError } from './api.js';

// Shared pieces of the interface: the live regions, confirmation dialogs, one-time secrets, forms.

// index.html always has both.
const statusRegion = (): HTMLElement => document.getElementById('status')!;
const errorRegion = (): HTMLElement => document.getElementById('errors')!;

/** Says something politely to screen readers and shows it in the status line. */
let lastAnnounced = 0;

export function announce(message: string): void {
  lastAnnounced = Date.now();
  const region = statusRegion();
  // Emptied first so that the same message twice in a row is announced twice.
  region.textContent = '';
  window.setTimeout(() => {
    region.textContent = message;
  }, 50);
}

/** Shows an error in the always-present alert region (errors from the API included). */
export function showError(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const region = errorRegion();
  const item: HTMLElement = h(
    'div',
    { class: 'error-message' },
    h('p', null, message),
    h(
      'button',
      { type: 'button', class: 'link-button', 'aria-label': 'Dismiss this error', onclick: (): void => item.remove() },
      'Dismiss',
    ),
  );
  // Only the latest few: a stuck poll must not fill the page.
  while (region.children.length >= 3) region.firstElementChild?.remove();
  region.append(item);
}

/** Empties the status line on navigation, unless it was just set (by the action that navigated). */
export function clearStaleStatus(): void {
  if (Date.now() - lastAnnounced > 1500) statusRegion().textContent = '';
}

export function clearErrors(): void {
  errorRegion().replaceChildren();
}

/**
 * Runs an action from a button: the button is disabled and marked busy meanwhile (no double
 * submits), and any error is shown. Resolves the action's result, or undefined after an error.
 */
/** A control a busy action disables. */
export type Control = HTMLButtonElement | HTMLSelectElement | HTMLInputElement;

export async function withBusy<T>(button: Control | Control[], action: () => Promise<T>): Promise<T | undefined> {
  const buttons = Array.isArray(button) ? button : [button];
  for (const b of buttons) {
    b.disabled = true;
    b.setAttribute('aria-busy', 'true');
  }
  let waitSec = 0;
  try {
    return await action();
  } catch (err) {
    showError(err);
    waitSec = retryAfterOf(err);
    return undefined;
  } finally {
    for (const b of buttons) b.removeAttribute('aria-busy');
    if (waitSec > 0) holdUntilRetry(buttons, waitSec);
    else for (const b of buttons) b.disabled = false;
  }
}

/** The seconds a 429 asks to wait (its retry_after), else 0. */
function retryAfterOf(err: unknown): number {
  const seconds = err instanceof ApiError && err.status === 429 && err.body ? Number(err.body.retry_after) : 0;
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 0;
}

/** Keeps the buttons disabled while the server asks to wait, counting down on the first one. */
function holdUntilRetry(buttons: Control[], seconds: number): void {
  const first = buttons[0];
  const label = first.textContent;
  let left = seconds;
  const tick = (): void => {
    if (left <= 0 || !first.isConnected) {
      first.textContent = label;
      for (const b of buttons) b.disabled = false;
      return;
    }
    first.textContent = `Try again in ${left} s`;
    left -= 1;
    window.setTimeout(tick, 1000);
  };
  tick();
}

/**
 * A modal confirmation built on <dialog>: focus stays inside, Escape cancels, and focus returns to
 * where it was. The safe choice (cancel) has the initial focus.
 */
export function confirmDialog({
  title,
  body,
  confirmLabel,
  danger = false,
}: {
  title: string;
  body: Child;
  confirmLabel: string;
  danger?: boolean;
}): Promise<boolean> {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const titleId = uid('dialog-title');
    const bodyId = uid('dialog-body');
    const cancel = h(
      'button',
      { type: 'button', class: 'secondary', autofocus: true, onclick: () => close(false) },
      'Cancel',
    );
    const confirm = h(
      'button',
      { type: 'button', class: danger ? 'danger' : 'primary', onclick: () => close(true) },
      confirmLabel,
    );
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId, 'aria-describedby': bodyId },
      h('h2', { id: titleId }, title),
      h('p', { id: bodyId }, body),
      h('div', { class: 'actions' }, cancel, confirm),
    );
    let answered = false;
    function close(answer: boolean): void {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(answer);
    }
    // Escape: the browser fires "cancel" and closes; treat it as the cancel button.
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

/** Copies text; falls back to selecting the field (clipboard API needs a secure context). */
export async function copyText(
  text: string,
  field?: HTMLInputElement | HTMLTextAreaElement | HTMLElement,
): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    announce('Copied to the clipboard.');
    return;
  } catch {
    /* not allowed here: select it instead */
  }
  if (field) {
    field.focus();
    if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) field.select();
    else window.getSelection()?.selectAllChildren(field); // a <pre>: select its text
    // Deprecated, but the only copy left where the clipboard API is not allowed (plain http).
    const copied = typeof document.execCommand === 'function' && document.execCommand('copy');
    announce(copied ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C (or Cmd+C) to copy.');
  }
}

/**
 * A secret the server shows exactly once (an API key, a signing secret): read-only field, copy
 * button, the warning, and a button that removes it once stored.
 */
export function secretBox({
  heading,
  label,
  value,
  note,
  testId,
}: {
  heading: string;
  label: string;
  value: string;
  note: Child;
  testId?: string;
}): HTMLElement {
  const inputId = uid('secret');
  const noteId = uid('secret-note');
  const input = h('input', {
    id: inputId,
    type: 'text',
    class: 'secret-value',
    readonly: true,
    value,
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': noteId,
    'data-testid': testId,
  });
  const box: HTMLElement = h(
    'section',
    { class: 'card secret-box', 'aria-label': heading },
    h('h3', null, heading),
    h('label', { for: inputId }, label),
    h(
      'div',
      { class: 'secret-row' },
      input,
      h('button', { type: 'button', class: 'primary', onclick: () => void copyText(value, input) }, 'Copy'),
    ),
    h('p', { id: noteId, class: 'warning' }, note),
    h('button', { type: 'button', class: 'secondary', onclick: (): void => box.remove() }, 'I have stored it, hide it'),
  );
  return box;
}

/** A labelled form field; `hint` becomes the input's description. */
export function field(labelText: Child, input: HTMLElement, hint?: Child): HTMLElement {
  if (!input.id) input.id = uid('field');
  const parts: Child[] = [h('label', { for: input.id }, labelText)];
  if (hint) {
    const hintId = uid('hint');
    input.setAttribute('aria-describedby', hintId);
    parts.push(input, h('p', { id: hintId, class: 'hint' }, hint));
  } else {
    parts.push(input);
  }
  return h('div', { class: 'field' }, parts);
}

export function pageHeading(text: string): HTMLHeadingElement {
  // tabindex -1: the router moves focus here after navigation, for screen-reader and keyboard users.
  return h('h1', { tabindex: '-1' }, text);
}

export function loading(text = 'Loading…'): HTMLElement {
  // Not a live region: a "Loading…" read out on every page would be noise.
  return h('p', { class: 'loading' }, text);
}

export function badge(status: string): HTMLElement {
  return h('span', { class: `badge badge-${String(status).replace(/[^a-z_-]/gi, '')}` }, status);
}

export function empty(text: string): HTMLElement {
  return h('p', { class: 'empty' }, text);
}
