import type { ParamSpec } from './contracts.js';

// What the playground's form asks for, read off a model's `params` (GET /models, itself read off
// the submit body's schema): one field per parameter, its control chosen by the parameter's type.

const LABELS: Record<string, string> = {
  prompt: 'Prompt',
  image_url: 'Reference image URL',
  image_urls: 'Reference image URLs',
  duration_seconds: 'Duration (seconds)',
  aspect_ratio: 'Aspect ratio',
  resolution: 'Resolution',
  generate_audio: 'Generate audio',
  num_images: 'Number of images',
  seed: 'Seed',
};

export type Control = 'select' | 'checkbox' | 'number' | 'lines' | 'url' | 'text';

export interface FormParam {
  name: string;
  label: string;
  control: Control;
  spec: ParamSpec;
}

export function controlOf(spec: ParamSpec): Control {
  if (spec.enum) return 'select';
  if (spec.type === 'boolean') return 'checkbox';
  if (spec.type === 'integer') return 'number';
  if (spec.type === 'string[]') return 'lines';
  return spec.format === 'https-url' ? 'url' : 'text';
}

/** The form's fields for a model: every parameter but `fast` (the model choice selects it), in the catalog's order. */
export function formParams(params: Record<string, ParamSpec>): FormParam[] {
  return Object.entries(params)
    .filter(([name]) => name !== 'fast')
    .map(([name, spec]) => ({ name, label: LABELS[name] || name, control: controlOf(spec), spec }));
}
