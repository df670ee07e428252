/**
 * The infrastructure images docker-compose.yml names (postgres, rabbitmq, minio/minio, minio/mc):
 * the real ones when they are here or can be pulled, else stand-ins built from stand-ins/<name>
 * (Debian's PostgreSQL and RabbitMQ, s3rver for MinIO) and tagged with the names compose expects,
 * so the compose file stays the one real deployments use. A stand-in is built once per content:
 * its image carries the hash of its build files and base image, and is rebuilt only when that changes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildImage, docker, imageId } from './docker';

const LABEL = 'io.mediaforge.stand-in';
const STAND_INS = path.join(__dirname, 'stand-ins');

/** Which stand-in answers for the image of each infrastructure service of the compose file. */
export const STAND_IN_OF: Record<string, string> = {
  postgres: 'postgres',
  rabbitmq: 'rabbitmq',
  minio: 'minio',
  'minio-init': 'minio',
};

export interface InfraImage {
  service: string;
  image: string;
  /** real: present or pulled; stand-in: built here now; cached stand-in: built by an earlier run. */
  source: 'real' | 'stand-in' | 'cached stand-in';
  ms: number;
}

/** The hash of a stand-in's build: every file of its directory and the base image it starts from. */
function contentHash(dir: string, baseId: string): string {
  const hash = createHash('sha256').update(baseId);
  for (const name of fs.readdirSync(dir).sort()) hash.update(name).update(fs.readFileSync(path.join(dir, name)));
  return hash.digest('hex').slice(0, 16);
}

async function labelOf(image: string): Promise<string | null> {
  const out = await docker('image', 'inspect', '-f', `{{index .Config.Labels "${LABEL}"}}`, image).catch(() => null);
  return out === null ? null : out.replace('<no value>', '');
}

/** Makes every image of `images` (service -> image) present; the base image must exist already. */
export async function ensureInfraImages(opts: {
  images: Record<string, string>;
  baseImage: string;
  artifacts: string;
  log: (line: string) => void;
}): Promise<InfraImage[]> {
  const baseId = await imageId(opts.baseImage);
  if (!baseId) throw new Error(`base image ${opts.baseImage} is missing (scripts/containers/base-image.sh builds it)`);
  const built = new Map<string, string>();
  const out: InfraImage[] = [];
  for (const [service, image] of Object.entries(opts.images)) {
    const started = Date.now();
    const standIn = STAND_IN_OF[service];
    const dir = path.join(STAND_INS, standIn);
    const hash = contentHash(dir, baseId);
    const label = await labelOf(image);
    const done = (source: InfraImage['source']): void => {
      out.push({ service, image, source, ms: Date.now() - started });
    };
    if (label === hash) {
      done('cached stand-in');
      continue;
    }
    if (label === '') {
      done('real'); // present and not ours: a pulled or preloaded image
      continue;
    }
    if (
      await docker('pull', '-q', image).then(
        () => true,
        () => false,
      )
    ) {
      done('real');
      continue;
    }
    // One build per stand-in: minio/minio and minio/mc are the same image under two names.
    const already = built.get(standIn);
    if (already) await docker('tag', already, image);
    else {
      opts.log(`  ${image} cannot be pulled: building the ${standIn} stand-in`);
      await buildImage({
        tag: image,
        context: dir,
        buildArgs: { BASE: opts.baseImage },
        labels: { [LABEL]: hash },
        logFile: path.join(opts.artifacts, `stand-in-${standIn}.log`),
      });
      built.set(standIn, image);
    }
    done('stand-in');
  }
  return out;
}
