import http from 'node:http';

/**
 * One open stream: calls `onEvent` with each event's type and data as they are read, and `onEnd`
 * if the server ends or drops it (never after close()).
 */
export function openStream(
  baseUrl: string,
  key: string,
  onEvent: (type: string, data: string) => void,
  onEnd: () => void = () => undefined,
): Promise<{ close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${baseUrl}/api/v1/events/stream`,
      { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, agent: false },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const type = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (type && data) onEvent(type, data);
          }
        });
        let closing = false;
        res.on('error', () => undefined);
        res.on('close', () => {
          if (!closing) onEnd();
        });
        resolve({
          close: () => {
            closing = true;
            req.destroy();
          },
        });
      },
    );
    req.on('error', reject);
  });
}
