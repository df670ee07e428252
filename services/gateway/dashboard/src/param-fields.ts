import { h, uid } from './dom.js';
import type { ParamSpec } from './contracts.js';
import type { FormParam } from './param-form.js';

// Form fields built from a model's `params` (GET /models: type, required, default, enum, limits,
// format; param-form.ts), so the playground asks for exactly what the API takes, within the contract's limits.

function describe(spec: ParamSpec): string {
  const parts = [spec.description];
  if (spec.max_length) parts.push(`Up to ${spec.max_length} characters.`);
  if (spec.max_items) parts.push(`One https URL per line, up to ${spec.max_items}.`);
  if (spec.type === 'integer' && spec.min !== undefined && spec.max !== undefined)
    parts.push(`${spec.min}-${spec.max}.`);
  return parts.join(' ');
}

/** A value a parameter's field gives, as the request body takes it. */
export type ParamValue = string | number | boolean | string[];

/** A field for one parameter: read() is the value to send, or undefined to leave it out. */
export interface ParamField {
  name: string;
  el: HTMLElement;
  read: () => ParamValue | undefined;
}

export function paramField({ name, label, control, spec }: FormParam, onChange: () => void): ParamField {
  const id = uid('param');
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  let read: () => ParamValue | undefined;
  if (control === 'select') {
    const select = h(
      'select',
      { id, name },
      (spec.enum ?? []).map((v) => h('option', { value: String(v), selected: v === spec.default }, String(v))),
    );
    input = select;
    read = () => (spec.type === 'integer' ? Number(select.value) : select.value);
  } else if (control === 'checkbox') {
    const box = h('input', { type: 'checkbox', id, name, checked: spec.default === true });
    read = () => box.checked;
    const el = h(
      'div',
      { class: 'check param' },
      box,
      h('div', null, h('label', { for: id }, label), h('p', { class: 'hint' }, spec.description)),
    );
    box.addEventListener('change', onChange);
    return { name, el, read };
  } else if (control === 'number') {
    // The catalog gives every integer's limits (the seed's included).
    const min = spec.min ?? 0;
    const max = spec.max ?? Number.MAX_SAFE_INTEGER;
    const number = h('input', {
      type: 'number',
      id,
      name,
      min: String(min),
      max: String(max),
      step: '1',
      inputmode: 'numeric',
      value: spec.default ?? '',
      placeholder: spec.default === null ? 'random' : '',
    });
    input = number;
    read = () => {
      if (number.value === '') return undefined;
      const n = Number(number.value);
      if (!Number.isInteger(n) || n < min || n > max)
        throw new Error(`${label} must be a whole number from ${min} to ${max}.`);
      return n;
    };
  } else if (control === 'lines') {
    const lines = h('textarea', { id, name, rows: '2', spellcheck: 'false', placeholder: 'https://…' });
    input = lines;
    read = () => {
      const urls = lines.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      return urls.length ? urls : undefined;
    };
  } else if (control === 'url') {
    const url = h('input', { type: 'url', id, name, placeholder: 'https://…', autocomplete: 'off' });
    input = url;
    read = () => url.value.trim() || undefined;
  } else {
    const text = h('textarea', {
      id,
      name,
      rows: name === 'prompt' ? '4' : '2',
      required: spec.required,
      maxlength: spec.max_length ? String(spec.max_length) : null,
    });
    input = text;
    read = () => text.value;
  }
  input.addEventListener('input', onChange);
  input.addEventListener('change', onChange);
  const hintId = uid('param-hint');
  input.setAttribute('aria-describedby', hintId);
  const el = h(
    'div',
    { class: 'field param' },
    h('label', { for: id }, label, spec.required ? h('span', { class: 'required' }, ' (required)') : null),
    input,
    h('p', { id: hintId, class: 'hint' }, describe(spec)),
  );
  return { name, el, read };
}

/** The request body of the fields: every given value; optional fields left empty are left out (their default applies). */
export function readParams(fields: readonly ParamField[]): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const f of fields) {
    const v = f.read();
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}
