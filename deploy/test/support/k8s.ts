import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './paths';

export type K8sObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
};

/** Every *.yaml / *.yml file under dir, sorted. */
export function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...yamlFiles(full));
    else if (/\.ya?ml$/.test(entry.name)) out.push(full);
  }
  return out.sort();
}

/** Parses every document of a YAML text; throws on the first syntax error or warning. Empty documents are skipped. */
export function parseYamlDocuments(text: string, source: string): unknown[] {
  const docs = parseAllDocuments(text, { merge: true });
  if (!Array.isArray(docs)) throw new Error(`${source}: not a YAML stream`);
  const out: unknown[] = [];
  docs.forEach((doc, i) => {
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw new Error(`${source} (document ${i + 1}): ${problem.message}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  });
  return out;
}

export function isKustomization(file: string): boolean {
  return /^kustomization\.ya?ml$/.test(path.basename(file));
}

/** An overlay's patch file: a partial object, checked only once merged into its base. */
export function isPatch(file: string): boolean {
  return file.split(path.sep).includes('patches');
}

/** A file a kustomization turns into an object (configMapGenerator's `files/`), not a manifest itself. */
export function isGeneratorInput(file: string): boolean {
  return file.split(path.sep).includes('files');
}

/** The complete manifests under dir: neither kustomization files, nor patches, nor generator inputs. */
export function manifestFiles(dir: string): string[] {
  return yamlFiles(dir).filter((f) => !isKustomization(f) && !isPatch(f) && !isGeneratorInput(f));
}

export type ValidationResult = { ok: true } | { ok: false; error: string };

/**
 * Validates objects against the Kubernetes schemas with kubernetes-models (an ESM-only package, so
 * in a child Node process: support/validate-k8s.mjs). One result per object; unknown kinds fail.
 */
export function validateK8sObjects(objects: unknown[]): ValidationResult[] {
  const res = spawnSync(process.execPath, [path.join(__dirname, 'validate-k8s.mjs')], {
    cwd: REPO_ROOT,
    input: JSON.stringify(objects),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (res.status !== 0) throw new Error(`validate-k8s.mjs exited ${res.status}: ${res.stderr}`);
  const results = JSON.parse(res.stdout) as ValidationResult[];
  if (results.length !== objects.length) throw new Error('validate-k8s.mjs: result count mismatch');
  return results;
}

/** "Kind/name: error" for every invalid object (empty when all are valid). */
export function k8sErrors(objects: unknown[]): string[] {
  const results = validateK8sObjects(objects);
  const errors: string[] = [];
  results.forEach((r, i) => {
    if (!r.ok) {
      const o = objects[i] as K8sObject;
      errors.push(`${o?.kind ?? '?'}/${o?.metadata?.name ?? '?'}: ${r.error}`);
    }
  });
  return errors;
}

/** The pod template of a Deployment or Job (its spec.template.spec). */
export function podSpec(o: K8sObject): Record<string, unknown> {
  const spec = (o.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec;
  if (!spec) throw new Error(`${o.kind}/${o.metadata?.name} has no pod template`);
  return spec;
}
