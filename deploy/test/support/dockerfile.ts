/**
 * The Dockerfile read by a real parser (dockerfile-ast, the parser of the Docker language server)
 * and the build context judged by a real .dockerignore matcher (@balena/dockerignore, Docker's
 * own matching rules): stages, what each copies, and whether the context holds it.
 */
import fs from 'node:fs';
import path from 'node:path';
import ignore from '@balena/dockerignore';
import { DockerfileParser, type Dockerfile, type Instruction } from 'dockerfile-ast';

export interface Stage {
  /** The stage's name (FROM ... AS name), null for an unnamed one. */
  name: string | null;
  /** What it starts from (an image or an earlier stage), build arguments expanded. */
  base: string;
  instructions: Instruction[];
}

export interface Copy {
  line: number;
  /** The stage given with --from, if any (expanded). */
  from: string | null;
  sources: string[];
  dest: string;
}

export function parseDockerfile(text: string): Dockerfile {
  return DockerfileParser.parse(text);
}

/** ${NAME} and $NAME replaced by build arguments: the given ones, else the ARG defaults before the first FROM. */
export function expand(value: string, df: Dockerfile, args: Record<string, string>): string {
  const defaults = Object.fromEntries(
    df.getInitialARGs().map((a) => [a.getProperty()!.getName(), a.getProperty()!.getValue() ?? '']),
  );
  const all: Record<string, string> = { ...defaults, ...args };
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_m, a: string | undefined, b: string | undefined) => all[(a ?? b)!] ?? '',
  );
}

/** The stages in order, each with its own instructions (FROM excluded). */
export function stages(df: Dockerfile, args: Record<string, string> = {}): Stage[] {
  const out: Stage[] = [];
  for (const inst of df.getInstructions()) {
    if (inst.getKeyword() === 'FROM') {
      const from = df.getFROMs().find((f) => f.getRange().start.line === inst.getRange().start.line)!;
      out.push({ name: from.getBuildStage(), base: expand(from.getImage() ?? '', df, args), instructions: [] });
    } else if (out.length) {
      out[out.length - 1].instructions.push(inst);
    }
  }
  return out;
}

/** The chain of stages an image is built on, the stage itself first, down to the first external image. */
export function stageChain(all: Stage[], stage: Stage): (Stage | string)[] {
  const chain: (Stage | string)[] = [stage];
  let current = stage;
  for (;;) {
    const parent = all.find((s) => s.name === current.base && all.indexOf(s) < all.indexOf(current));
    if (!parent) return [...chain, current.base];
    chain.push(parent);
    current = parent;
  }
}

/** COPY and ADD instructions of a stage (or the whole file), arguments expanded. */
export function copies(df: Dockerfile, instructions: Instruction[], args: Record<string, string> = {}): Copy[] {
  return instructions
    .filter((i) => i.getKeyword() === 'COPY' || i.getKeyword() === 'ADD')
    .map((i) => {
      const values = i.getArguments().map((a) => expand(a.getValue(), df, args));
      const fromFlag =
        i.getKeyword() === 'COPY'
          ? df
              .getCOPYs()
              .find((c) => c.getRange().start.line === i.getRange().start.line)
              ?.getFromFlag()
          : null;
      return {
        line: i.getRange().start.line + 1,
        from: fromFlag ? expand(fromFlag.getValue() ?? '', df, args) : null,
        sources: values.slice(0, -1),
        dest: values[values.length - 1],
      };
    });
}

/** A matcher of .dockerignore's rules: true when the context leaves the path out. */
export function contextExcludes(dockerignoreText: string): (relPath: string) => boolean {
  const ig = ignore().add(dockerignoreText.split('\n'));
  return (relPath) => ig.ignores(relPath);
}

/**
 * Problems of the COPY/ADD lines that read the build context (no --from): a source that does not
 * exist in the repository or that .dockerignore leaves out. Empty when every one is found.
 */
export function contextProblems(
  text: string,
  root: string,
  dockerignoreText: string,
  args: Record<string, string>,
): string[] {
  const df = parseDockerfile(text);
  const excluded = contextExcludes(dockerignoreText);
  const problems: string[] = [];
  for (const c of copies(df, df.getInstructions(), args)) {
    if (c.from !== null) continue;
    for (const source of c.sources) {
      const rel = path.normalize(source).replace(/^\/+/, '').replace(/\/+$/, '');
      if (rel === '.' || rel === '') continue;
      if (!fs.existsSync(path.join(root, rel)) || excluded(rel))
        problems.push(`line ${c.line}: ${source} is not in the build context`);
    }
  }
  return problems;
}
