/**
 * A small kustomize resolver for the features deploy/k8s uses, so the overlays can be checked
 * without the kustomize binary:
 *   resources (files and directories holding a kustomization, recursively), patches (strategic
 *   merge matched on kind + name, or JSON 6902 with a target), patchesStrategicMerge, images,
 *   namespace, commonLabels, labels (pairs, includeSelectors, includeTemplates), commonAnnotations.
 * Any other kustomization key fails loudly rather than being silently ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { parseYamlDocuments, type K8sObject } from './k8s';

type Json = unknown;
type Dict = Record<string, Json>;

interface PatchEntry {
  path?: string;
  patch?: string;
  target?: { kind?: string; name?: string; group?: string; version?: string; namespace?: string };
}
interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}
interface LabelEntry {
  pairs: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
}
interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  patches?: PatchEntry[];
  patchesStrategicMerge?: string[];
  images?: ImageEntry[];
  namespace?: string;
  commonLabels?: Record<string, string>;
  labels?: LabelEntry[];
  commonAnnotations?: Record<string, string>;
}

const KNOWN_KEYS = new Set([
  'apiVersion', 'kind', 'resources', 'patches', 'patchesStrategicMerge', 'images', 'namespace', 'commonLabels', 'labels', 'commonAnnotations',
]);

const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PersistentVolume', 'StorageClass', 'IngressClass', 'PriorityClass']);

/** Merge keys of the strategic-merge lists the manifests use (as in the Kubernetes API's patchMergeKey). */
const MERGE_KEYS: Record<string, string | ((items: Dict[]) => string)> = {
  containers: 'name',
  initContainers: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  env: 'name',
  ports: (items) => (items.some((i) => 'containerPort' in i) ? 'containerPort' : 'port'),
};

const isDict = (v: Json): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Resolves the kustomization in dir into the list of objects `kustomize build dir` would output. */
export function buildKustomization(dir: string): K8sObject[] {
  const file = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
  if (!file) throw new Error(`${dir}: no kustomization.yaml`);
  const raw: unknown = parse(fs.readFileSync(file, 'utf8'));
  if (!isDict(raw)) throw new Error(`${file}: not a mapping`);
  const k = raw as Kustomization;
  for (const key of Object.keys(k)) if (!KNOWN_KEYS.has(key)) throw new Error(`${file}: unsupported kustomization key "${key}"`);
  if (k.kind !== undefined && k.kind !== 'Kustomization') throw new Error(`${file}: kind must be Kustomization`);

  let objects: K8sObject[] = [];
  for (const res of k.resources ?? []) {
    const full = path.resolve(dir, res);
    if (!fs.existsSync(full)) throw new Error(`${file}: resource ${res} does not exist`);
    if (fs.statSync(full).isDirectory()) objects.push(...buildKustomization(full));
    else objects.push(...(parseYamlDocuments(fs.readFileSync(full, 'utf8'), full) as K8sObject[]));
  }
  assertUnique(objects, file);

  for (const p of k.patchesStrategicMerge ?? []) applyPatch(objects, { path: p }, dir, file);
  for (const p of k.patches ?? []) applyPatch(objects, p, dir, file);
  for (const image of k.images ?? []) objects.forEach((o) => setImages(o, image));
  if (k.commonLabels) objects = objects.map((o) => addLabels(o, k.commonLabels!, true, true));
  for (const l of k.labels ?? []) objects = objects.map((o) => addLabels(o, l.pairs, l.includeSelectors ?? false, l.includeTemplates ?? false));
  if (k.commonAnnotations) {
    for (const o of objects) {
      o.metadata = { ...o.metadata, annotations: { ...o.metadata?.annotations, ...k.commonAnnotations } };
    }
  }
  if (k.namespace) {
    for (const o of objects) if (!CLUSTER_SCOPED.has(String(o.kind))) o.metadata = { ...o.metadata, namespace: k.namespace };
  }
  assertUnique(objects, file);
  return objects;
}

function assertUnique(objects: K8sObject[], file: string): void {
  const seen = new Set<string>();
  for (const o of objects) {
    const id = `${o.apiVersion}/${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;
    if (seen.has(id)) throw new Error(`${file}: duplicate resource ${id}`);
    seen.add(id);
  }
}

function groupVersion(apiVersion: string | undefined): { group: string; version: string } {
  const parts = String(apiVersion ?? '').split('/');
  return parts.length === 2 ? { group: parts[0], version: parts[1] } : { group: '', version: parts[0] };
}

function matchesTarget(o: K8sObject, t: NonNullable<PatchEntry['target']>): boolean {
  const gv = groupVersion(o.apiVersion);
  return (
    (t.kind === undefined || t.kind === o.kind) &&
    (t.name === undefined || new RegExp(`^${t.name}$`).test(String(o.metadata?.name))) &&
    (t.group === undefined || t.group === gv.group) &&
    (t.version === undefined || t.version === gv.version) &&
    (t.namespace === undefined || t.namespace === o.metadata?.namespace)
  );
}

function applyPatch(objects: K8sObject[], entry: PatchEntry, dir: string, file: string): void {
  const source = entry.path ? path.resolve(dir, entry.path) : `${file} (inline patch)`;
  let text: string;
  if (entry.path) {
    if (!fs.existsSync(source)) throw new Error(`${file}: patch ${entry.path} does not exist`);
    text = fs.readFileSync(source, 'utf8');
  } else if (entry.patch !== undefined) {
    text = entry.patch;
  } else {
    throw new Error(`${file}: a patch needs path or patch`);
  }
  const docs = parseYamlDocuments(text, source);
  if (docs.length === 1 && Array.isArray(docs[0])) {
    // JSON 6902: a list of operations, applied to every object the target selects.
    if (!entry.target) throw new Error(`${source}: a JSON 6902 patch needs a target`);
    const targets = objects.filter((o) => matchesTarget(o, entry.target!));
    if (targets.length === 0) throw new Error(`${source}: target matches no resource`);
    for (const t of targets) {
      const patched = applyJson6902(t, docs[0] as Dict[], source);
      objects.splice(objects.indexOf(t), 1, patched as K8sObject);
    }
    return;
  }
  for (const doc of docs) {
    if (!isDict(doc)) throw new Error(`${source}: a strategic-merge patch must be a mapping`);
    const p = doc as K8sObject;
    const targets = entry.target
      ? objects.filter((o) => matchesTarget(o, entry.target!))
      : objects.filter((o) => o.kind === p.kind && o.metadata?.name === p.metadata?.name);
    if (targets.length === 0) throw new Error(`${source}: no resource ${p.kind}/${p.metadata?.name} to patch`);
    for (const t of targets) {
      const patch = entry.target ? { ...p, metadata: { ...p.metadata, name: t.metadata?.name } } : p;
      const merged = strategicMerge(t, patch, '') as K8sObject;
      objects.splice(objects.indexOf(t), 1, merged);
    }
  }
}

/** Strategic merge of patch into base: maps merge, null deletes, lists with a known merge key merge per item, other lists are replaced. */
export function strategicMerge(base: Json, patch: Json, key: string): Json {
  if (patch === null) return undefined;
  if (isDict(base) && isDict(patch)) {
    const out: Dict = clone(base);
    for (const [k, v] of Object.entries(patch)) {
      const merged = strategicMerge(out[k], v, k);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    }
    return out;
  }
  if (Array.isArray(base) && Array.isArray(patch) && MERGE_KEYS[key] && patch.every(isDict) && base.every(isDict)) {
    const spec = MERGE_KEYS[key];
    const mk = typeof spec === 'function' ? spec([...(base as Dict[]), ...(patch as Dict[])]) : spec;
    const out = clone(base) as Dict[];
    for (const item of patch as Dict[]) {
      const i = out.findIndex((b) => b[mk] === item[mk]);
      if (i === -1) out.push(clone(item));
      else out[i] = strategicMerge(out[i], item, '') as Dict;
    }
    return out;
  }
  return clone(patch);
}

function pointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new Error(`bad JSON pointer ${p}`);
  return p.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** RFC 6902 add, remove, replace, test, copy, move. */
export function applyJson6902(doc: Json, ops: Dict[], source = 'patch'): Json {
  let root = clone(doc);
  const parentOf = (tokens: string[]): { parent: Dict | Json[]; last: string } => {
    let cur: Json = root;
    for (const t of tokens.slice(0, -1)) {
      cur = Array.isArray(cur) ? cur[Number(t)] : isDict(cur) ? cur[t] : undefined;
      if (cur === undefined) throw new Error(`${source}: path /${tokens.join('/')} does not exist`);
    }
    if (!isDict(cur) && !Array.isArray(cur)) throw new Error(`${source}: path /${tokens.join('/')} has no parent container`);
    return { parent: cur, last: tokens[tokens.length - 1] };
  };
  const get = (tokens: string[]): Json => {
    let cur: Json = root;
    for (const t of tokens) {
      cur = Array.isArray(cur) ? cur[Number(t)] : isDict(cur) ? cur[t] : undefined;
      if (cur === undefined) throw new Error(`${source}: path /${tokens.join('/')} does not exist`);
    }
    return cur;
  };
  const remove = (tokens: string[]): Json => {
    const value = get(tokens);
    const { parent, last } = parentOf(tokens);
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
    return value;
  };
  const add = (tokens: string[], value: Json): void => {
    if (tokens.length === 0) {
      root = value;
      return;
    }
    const { parent, last } = parentOf(tokens);
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (!(i >= 0 && i <= parent.length)) throw new Error(`${source}: index ${last} out of range`);
      parent.splice(i, 0, value);
    } else parent[last] = value;
  };
  for (const op of ops) {
    const tokens = pointer(String(op.path));
    switch (op.op) {
      case 'add': add(tokens, clone(op.value)); break;
      case 'remove': remove(tokens); break;
      case 'replace': remove(tokens); add(tokens, clone(op.value)); break;
      case 'test':
        if (JSON.stringify(get(tokens)) !== JSON.stringify(op.value)) throw new Error(`${source}: test failed at ${op.path}`);
        break;
      case 'copy': add(tokens, clone(get(pointer(String(op.from))))); break;
      case 'move': add(tokens, remove(pointer(String(op.from)))); break;
      default: throw new Error(`${source}: unknown JSON 6902 op ${String(op.op)}`);
    }
  }
  return root;
}

/** The pod spec of a workload (Deployment, Job, StatefulSet, DaemonSet...), if it has one. */
export function podSpec(o: K8sObject): Dict | undefined {
  const spec = o.spec as Dict | undefined;
  const template = spec?.template as Dict | undefined;
  return template?.spec as Dict | undefined;
}

function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withoutDigest, digest] = image.split('@');
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  if (colon > slash) return { name: withoutDigest.slice(0, colon), tag: withoutDigest.slice(colon + 1), digest };
  return { name: withoutDigest, digest };
}

function setImages(o: K8sObject, image: ImageEntry): void {
  const spec = podSpec(o);
  if (!spec) return;
  for (const list of ['containers', 'initContainers']) {
    for (const c of (spec[list] as Dict[] | undefined) ?? []) {
      const cur = splitImage(String(c.image));
      if (cur.name !== image.name) continue;
      const name = image.newName ?? cur.name;
      if (image.digest) c.image = `${name}@${image.digest}`;
      else if (image.newTag) c.image = `${name}:${image.newTag}`;
      else c.image = `${name}${cur.tag ? `:${cur.tag}` : ''}${cur.digest ? `@${cur.digest}` : ''}`;
    }
  }
}

function addLabels(o: K8sObject, pairs: Record<string, string>, selectors: boolean, templates: boolean): K8sObject {
  const out = clone(o);
  out.metadata = { ...out.metadata, labels: { ...out.metadata?.labels, ...pairs } };
  const spec = out.spec as Dict | undefined;
  if (!spec) return out;
  if (templates || selectors) {
    const template = spec.template as Dict | undefined;
    if (template) {
      const meta = (template.metadata as Dict | undefined) ?? {};
      template.metadata = { ...meta, labels: { ...(meta.labels as Dict | undefined), ...pairs } };
    }
  }
  if (selectors) {
    if (out.kind === 'Service') spec.selector = { ...(spec.selector as Dict | undefined), ...pairs };
    const sel = (out.kind === 'NetworkPolicy' ? spec.podSelector : spec.selector) as Dict | undefined;
    if (sel && out.kind !== 'Service') sel.matchLabels = { ...(sel.matchLabels as Dict | undefined), ...pairs };
  }
  return out;
}
