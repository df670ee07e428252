import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parseYamlDocuments } from './k8s';
import { REPO_ROOT } from './paths';

export const COMPOSE_SCHEMA_FILE = path.join(REPO_ROOT, 'deploy', 'schemas', 'compose-spec.json');

let validator: ValidateFunction | undefined;

/** The ajv validator of deploy/schemas/compose-spec.json (a subset of the Compose Specification's schema). */
export function composeValidator(): ValidateFunction {
  if (validator) return validator;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  // Compose's own formats: Go-style durations ("30s", "1m30s", "1h") and port specs.
  ajv.addFormat('duration', /^[-+]?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('ports', /^([^:\s]+:)?(\d+(-\d+)?|\$\{[A-Z0-9_]+(:-[^}]*)?\}):?(\d+(-\d+)?)?(\/(tcp|udp|sctp))?$|^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  validator = ajv.compile(JSON.parse(fs.readFileSync(COMPOSE_SCHEMA_FILE, 'utf8')) as object);
  return validator;
}

/** Parses a compose file's text (YAML merge keys resolved, as Compose does). */
export function parseCompose(text: string, source = 'docker-compose.yml'): Record<string, unknown> {
  const docs = parseYamlDocuments(text, source);
  if (docs.length !== 1) throw new Error(`${source}: expected one YAML document, got ${docs.length}`);
  return docs[0] as Record<string, unknown>;
}

/** Schema errors of a compose file's text (empty when valid). */
export function composeErrors(text: string): string[] {
  const validate = composeValidator();
  if (validate(parseCompose(text))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
}
