import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { UnsafeUrlError } from './errors';
import { assertAllowedAddress, resolveHost, type SafeFetchPolicy } from './policy';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type ConnectionCallback = (err: Error | null, stream: Duplex) => void;

/** TLS settings for the download helpers; not part of the public agent API. */
export interface AgentExtras {
  /** Extra trusted CA (tests), added to Node's bundled roots rather than replacing them. */
  ca?: string | Buffer;
  /** Keep connections open for the next request (agents shared across downloads). */
  keepAlive?: boolean;
  /** With keepAlive: an idle connection is closed after this long (ms), unless the server's Keep-Alive hint says less. */
  idleTimeoutMs?: number;
}

/**
 * A `lookup` for net.connect that resolves the host with the policy's resolver, refuses the
 * connection if any answer is non-public, and hands Node exactly the addresses it checked: the
 * socket can only connect to a checked address, whatever DNS says a moment later.
 */
export function guardedLookup(policy: SafeFetchPolicy): net.LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    // Two-armed then, not then/catch: an exception thrown by Node's callback must not come back
    // as a second, failing callback.
    resolveHost(hostname, policy).then(
      (addresses) => {
        let usable: LookupAddress[];
        try {
          usable = checkedAddresses(hostname, addresses, options.family, policy);
        } catch (err) {
          callback(err as NodeJS.ErrnoException, '');
          return;
        }
        // Node asks for `all` when it races address families (autoSelectFamily); otherwise it wants one.
        if (options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** Every answer must be allowed; returns those of the family asked for. */
function checkedAddresses(
  hostname: string,
  addresses: string[],
  family: LookupOptions['family'],
  policy: SafeFetchPolicy,
): LookupAddress[] {
  for (const address of addresses) assertAllowedAddress(address, hostname, policy);
  const wanted = family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : Number(family ?? 0);
  const usable = addresses
    .map((address) => ({ address, family: net.isIP(address) }))
    .filter((a) => a.family !== 0 && (wanted === 0 || a.family === wanted));
  if (usable.length === 0) {
    const err: NodeJS.ErrnoException = new Error(`No usable address for ${hostname}`);
    err.code = 'ENOTFOUND';
    throw err;
  }
  return usable;
}

/**
 * Refuses, before any socket exists, a connection whose target never goes through `lookup`: an IP
 * literal host (Node skips lookup for those), a Unix socket, or plain http when the policy is
 * https only. Returns the refusal, or null to go ahead.
 */
function refuseConnection(options: http.ClientRequestArgs, policy: SafeFetchPolicy, secure: boolean): Error | null {
  if (!secure && !policy.allowHttp) return new UnsafeUrlError('scheme', 'Plain http is not allowed (https only)');
  if (options.socketPath) {
    return policy.allowPrivate ? null : new UnsafeUrlError('private-address', 'Unix sockets are not allowed');
  }
  const host = options.host ?? options.hostname ?? '';
  if (net.isIP(host) === 0) return null;
  try {
    assertAllowedAddress(host, host, policy);
    return null;
  } catch (err) {
    return err as Error;
  }
}

/** Hands a refusal to the agent the way Node's own connect failures arrive: as the callback's error. */
function fail(err: Error, callback: ConnectionCallback | undefined): undefined {
  if (!callback) throw err;
  // Node's Agent checks `err` first and never reads the stream on failure; the typings just
  // declare it unconditionally, hence the cast.
  callback(err, undefined as unknown as Duplex);
  return undefined;
}

/**
 * Closes a kept connection idle for extras.idleTimeoutMs (Node closes it sooner when the server's
 * Keep-Alive hint says so). Set when the connection goes idle, not as the agent's `timeout`, which
 * would also apply to a request's connect and cut it short as a request timeout.
 */
function capIdleTime(agent: http.Agent, extras: AgentExtras): void {
  const idle = extras.idleTimeoutMs;
  if (!extras.keepAlive || !idle) return;
  // Runs after the agent's own 'free' listener has kept (or destroyed) the socket; the agent
  // destroys an idle socket that times out.
  agent.on('free', (socket: net.Socket) => {
    if (!socket.destroyed && (!socket.timeout || socket.timeout > idle)) socket.setTimeout(idle);
  });
}

class GuardedHttpAgent extends http.Agent {
  constructor(
    private readonly policy: SafeFetchPolicy,
    private readonly lookupFn: net.LookupFunction,
    extras: AgentExtras,
  ) {
    super({ lookup: lookupFn, keepAlive: extras.keepAlive === true });
    capIdleTime(this, extras);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectionCallback): Duplex | null | undefined {
    const refusal = refuseConnection(options, this.policy, false);
    if (refusal) return fail(refusal, callback);
    // Set again here, not only in the agent options: a request's own `lookup` must never win.
    return super.createConnection({ ...options, lookup: this.lookupFn }, callback);
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly policy: SafeFetchPolicy,
    private readonly lookupFn: net.LookupFunction,
    extras: AgentExtras,
  ) {
    super({
      lookup: lookupFn,
      keepAlive: extras.keepAlive === true,
      ...(extras.ca ? { ca: [...tls.rootCertificates, extras.ca] } : {}),
    });
    capIdleTime(this, extras);
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectionCallback): Duplex | null | undefined {
    const refusal = refuseConnection(options, this.policy, true);
    if (refusal) return fail(refusal, callback);
    return super.createConnection({ ...options, lookup: this.lookupFn }, callback);
  }
}

/** guardedAgents plus the download helpers' TLS extras. */
export function createGuardedAgents(
  policy: SafeFetchPolicy,
  extras: AgentExtras = {},
): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  const lookup = guardedLookup(policy);
  return {
    httpAgent: new GuardedHttpAgent(policy, lookup, extras),
    httpsAgent: new GuardedHttpsAgent(policy, lookup, extras),
  };
}

/**
 * The http/https agents that refuse to connect to non-public addresses at connect time (DNS
 * rebinding safe), for other axios uses (webhook POSTs). Pass both to axios with `proxy: false`
 * (a proxy would connect to the proxy, not the target). The http agent refuses every connection
 * unless the policy allows http. `keep`: connections are kept open, idle at most that long; the
 * address check happens when a connection is made, so a reused one is one that was checked.
 */
export function guardedAgents(
  policy: SafeFetchPolicy,
  keep?: { idleTimeoutMs: number },
): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  return createGuardedAgents(policy, keep ? { keepAlive: true, idleTimeoutMs: keep.idleTimeoutMs } : {});
}

/**
 * Guarded agents that keep connections open, for downloads that repeat against one host (a
 * provider's results): pass them as DownloadOptions.agents. The address check happens when a
 * connection is made, so a reused connection is one that was checked. The caller destroys them.
 */
export function keepAliveDownloadAgents(
  policy: SafeFetchPolicy,
  ca?: string | Buffer,
): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  return createGuardedAgents(policy, { ca, keepAlive: true });
}
