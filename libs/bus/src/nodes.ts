/**
 * The broker's nodes, from `AMQP_URL`: one URL, or a comma-separated list of a cluster's nodes
 * (each a whole URL, credentials and vhost included). The connection takes them in order: the first
 * that answers at start, then, when the connection drops, the next one after it.
 */
export function brokerNodes(url: string): string[] {
  const nodes = url
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  if (!nodes.length) throw new Error('no broker URL given');
  return nodes;
}

/** A node's URL as logs may show it: scheme, host, port and vhost, never the credentials. */
export function describeNode(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'an unparsable broker URL';
  }
}

/**
 * Which node to try next and how long to wait first: straight on to the next node while a round
 * through the list is not over, and the usual back-off only once every node has failed in a row.
 */
export class NodeRotation {
  private index = 0;
  private failuresInRound = 0;

  constructor(readonly nodes: string[]) {}

  /** The node the next attempt goes to. */
  get current(): string {
    return this.nodes[this.index];
  }

  /** The attempt on `current` failed: move on. True when every node has now failed once in a row. */
  failed(): boolean {
    this.index = (this.index + 1) % this.nodes.length;
    this.failuresInRound++;
    if (this.failuresInRound < this.nodes.length) return false;
    this.failuresInRound = 0;
    return true;
  }

  /** Connected to `current`. */
  connected(): void {
    this.failuresInRound = 0;
  }

  /** The connection to `current` dropped: the next attempt goes to the node after it. */
  dropped(): void {
    this.index = (this.index + 1) % this.nodes.length;
    this.failuresInRound = 0;
  }
}
