/**
 * Static checks of the Dockerfile's COPY lines against the build context (the repository root
 * minus what .dockerignore excludes).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface CopyInstruction {
  line: number;
  from?: string;
  sources: string[];
  dest: string;
}

/** COPY / ADD instructions (continuation lines joined; comments skipped). */
export function parseCopies(dockerfile: string): CopyInstruction[] {
  const logical: { line: number; text: string }[] = [];
  let buf = '';
  let start = 0;
  dockerfile.split('\n').forEach((raw, i) => {
    if (buf === '' && /^\s*#/.test(raw)) return;
    if (buf === '') start = i + 1;
    if (/\\\s*$/.test(raw)) {
      buf += raw.replace(/\\\s*$/, ' ');
      return;
    }
    buf += raw;
    logical.push({ line: start, text: buf.trim() });
    buf = '';
  });
  const out: CopyInstruction[] = [];
  for (const { line, text } of logical) {
    const m = /^(COPY|ADD)\s+(.*)$/i.exec(text);
    if (!m) continue;
    let args: string[];
    const rest = m[2].trim();
    const flags: string[] = [];
    let body = rest;
    while (body.startsWith('--')) {
      const sp = body.search(/\s/);
      flags.push(body.slice(0, sp));
      body = body.slice(sp).trim();
    }
    if (body.startsWith('[')) args = JSON.parse(body) as string[];
    else args = body.split(/\s+/);
    const fromFlag = flags.find((f) => f.startsWith('--from='));
    out.push({ line, from: fromFlag?.slice('--from='.length), sources: args.slice(0, -1), dest: args[args.length - 1] });
  }
  return out;
}

interface IgnoreRule {
  negate: boolean;
  re: RegExp;
}

/** .dockerignore patterns (Go filepath.Match plus `**`, `!` exceptions, the last matching rule wins). */
export function parseDockerignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (let raw of text.split('\n')) {
    raw = raw.trim();
    if (!raw || raw.startsWith('#')) continue;
    const negate = raw.startsWith('!');
    let pattern = path.posix.normalize((negate ? raw.slice(1) : raw).trim()).replace(/^\/+/, '').replace(/\/+$/, '');
    if (pattern === '.') pattern = '';
    let re = '';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i];
      if (c === '*' && pattern[i + 1] === '*') {
        const slash = pattern[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    rules.push({ negate, re: new RegExp(`^${re}$`) });
  }
  return rules;
}

/** Whether a context-relative path is excluded: itself or a parent directory matches. */
export function isIgnored(rel: string, rules: IgnoreRule[]): boolean {
  const parts = rel.split('/').filter(Boolean);
  let ignored = false;
  for (let n = 1; n <= parts.length; n++) {
    const prefix = parts.slice(0, n).join('/');
    let matched: boolean | undefined;
    for (const r of rules) if (r.re.test(prefix)) matched = !r.negate;
    if (matched !== undefined) ignored = matched;
    else if (n > 1 && ignored) ignored = true;
  }
  return ignored;
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
}

/** Context paths a COPY source names (wildcards in the last segment expanded), excluding ignored ones. */
export function resolveSource(contextDir: string, source: string, rules: IgnoreRule[]): string[] {
  const rel = path.posix.normalize(source).replace(/^\/+/, '').replace(/\/+$/, '');
  if (rel === '.' || rel === '') return ['.'];
  if (rel.startsWith('..')) return [];
  if (!/[*?[]/.test(rel)) {
    return fs.existsSync(path.join(contextDir, rel)) && !isIgnored(rel, rules) ? [rel] : [];
  }
  const dir = path.posix.dirname(rel);
  const re = globToRegExp(path.posix.basename(rel));
  const full = path.join(contextDir, dir);
  if (!fs.existsSync(full)) return [];
  return fs
    .readdirSync(full)
    .filter((f) => re.test(f))
    .map((f) => (dir === '.' ? f : `${dir}/${f}`))
    .filter((f) => !isIgnored(f, rules));
}

/**
 * Problems with the COPY lines that read the build context (no --from): a plain source missing
 * from the context (absent, or excluded by .dockerignore) is an error; a wildcard may match
 * nothing as long as the instruction copies something (as BuildKit allows).
 * `${VAR}` in sources is expanded from args (build arguments).
 */
export function dockerfileContextProblems(dockerfileText: string, contextDir: string, dockerignoreText: string, args: Record<string, string> = {}): string[] {
  const rules = parseDockerignore(dockerignoreText);
  const problems: string[] = [];
  for (const copy of parseCopies(dockerfileText)) {
    if (copy.from !== undefined) continue;
    let copied = 0;
    for (const raw of copy.sources) {
      const src = raw.replace(/\$\{?(\w+)\}?/g, (_, v: string) => args[v] ?? '');
      const found = resolveSource(contextDir, src, rules);
      copied += found.length;
      if (found.length === 0 && !/[*?[]/.test(src)) problems.push(`line ${copy.line}: COPY source ${src} is not in the build context`);
    }
    if (copied === 0 && problems.length === 0) problems.push(`line ${copy.line}: COPY copies nothing from the build context`);
  }
  return problems;
}

/** The paths `COPY --from=<stage> /app/<path>` takes from a stage that itself did `COPY . .` of the context. */
export function pathsFromContextStage(dockerfileText: string, stage: string, workdir: string, args: Record<string, string>): string[] {
  return parseCopies(dockerfileText)
    .filter((c) => c.from === stage)
    .flatMap((c) => c.sources)
    .map((s) => s.replace(/\$\{?(\w+)\}?/g, (_, v: string) => args[v] ?? ''))
    .map((s) => path.posix.relative(workdir, s));
}
