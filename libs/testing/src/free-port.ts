import net from 'node:net';

/**
 * A loopback port nothing listens on right now (the OS picks it): for a server a test starts, or
 * for a connection that must be refused.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
