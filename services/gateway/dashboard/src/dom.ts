// DOM building with DOM APIs only. Text always becomes a text node and attributes are set one by
// one, so a value from the API can never turn into markup (no innerHTML anywhere in the app).

const SVG_NS = 'http://www.w3.org/2000/svg';

// Set as properties: the attribute only holds the initial value.
const PROPERTIES = new Set(['value', 'checked', 'indeterminate']);

/** What h() appends: text, numbers, nodes, nested lists; null, undefined and false are skipped. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

// A method's parameters are bivariant: a listener may take the event type it is registered for
// (onkeydown: (e: KeyboardEvent) => ...) where the props only know it is an Event.
type Listener = { handle(event: Event): unknown }['handle'];

/** Attributes (set as text; true as an empty attribute, false/null/undefined left out), on<event> listeners, dataset. */
export interface Props {
  [listener: `on${string}`]: Listener | undefined;
  dataset?: Record<string, string>;
  [attribute: string]: unknown;
}

/** An element: h('a', { href, class: 'x', onclick }, 'text', child, [more children]). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/** An SVG element; same props as h(). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setProps(el, props);
  append(el, children);
  return el;
}

function setProps(el: HTMLElement | SVGElement, props: Props | null | undefined): void {
  if (!props) return;
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2).toLowerCase(), value as Listener);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (PROPERTIES.has(key)) (el as unknown as Record<string, unknown>)[key] = value;
    else if (key === 'href' || key === 'src') el.setAttribute(key, safeUrl(value));
    // Attributes are given as text, numbers or true; an object here would be a mistake to see.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

/** Appends strings (as text), numbers, nodes and nested arrays; skips null, undefined and false. */
export function append<P extends Element>(parent: P, children: readonly Child[]): P {
  // Infinity: the depth is not known statically, so the element type is spelled out.
  for (const child of (children as unknown[]).flat(Infinity) as (Node | string | number | null | undefined | false)[]) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/**
 * Links and media sources from API data: only http(s), blob and same-document URLs. CSP blocks
 * javascript: already; this keeps a bad value from becoming a dead or misleading link too.
 */
export function safeUrl(value: unknown): string {
  const text = String(value);
  if (text.startsWith('#')) return text;
  try {
    const url = new URL(text, window.location.href);
    return ['http:', 'https:', 'blob:'].includes(url.protocol) ? text : 'about:blank';
  } catch {
    return 'about:blank';
  }
}

let sequence = 0;
/** A document-unique id, to tie labels, descriptions and headings to their elements. */
export function uid(prefix = 'id'): string {
  sequence += 1;
  return `${prefix}-${sequence}`;
}

/** Replaces an element's children, with the same rules as h() (unlike replaceChildren, which prints null). */
export function replace<P extends Element>(parent: P, ...children: Child[]): P {
  parent.replaceChildren();
  return append(parent, children);
}

/**
 * 32 random hex characters, for idempotency keys. getRandomValues, not randomUUID: the latter
 * exists only in secure contexts, and the dashboard may be opened over plain http on a LAN name.
 */
export function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}
