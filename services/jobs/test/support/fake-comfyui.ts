import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import { markersIn, startFakeServer, type FakeServer } from './fake-upstream';

type Graph = Record<string, { class_type: string; inputs: Record<string, unknown> }>;
type OutputFile = { filename: string; subfolder: string; type: 'output' | 'temp' };

interface QueuedPrompt {
  id: string;
  number: number;
  graph: Graph;
  clientId: string;
  state: 'pending' | 'running';
  markers: Set<string>;
  step: number;
}

/** Node classes the fake knows (those of the shipped workflows and the tests'); others fail validation. */
const KNOWN_NODES = new Set([
  'CheckpointLoaderSimple',
  'EmptySD3LatentImage',
  'EmptyLatentImage',
  'CLIPTextEncode',
  'KSampler',
  'VAEDecode',
  'SaveImage',
  'PreviewImage',
  'UNETLoader',
  'CLIPLoader',
  'VAELoader',
  'CLIPVisionLoader',
  'LoadImage',
  'CLIPVisionEncode',
  'WanImageToVideo',
  'CreateVideo',
  'SaveVideo',
]);
const OUTPUT_NODES = new Set(['SaveImage', 'PreviewImage', 'SaveVideo']);
/** Sampling steps every prompt reports in its `progress` messages. */
const STEPS = 10;

export interface FakeComfyUi extends FakeServer {
  /** Prompts queued or running. */
  queue: QueuedPrompt[];
  history: Map<string, unknown>;
  /** Names of the images received by /upload/image, with their bytes. */
  uploads: Map<string, Buffer>;
  /** Every /ws message sent, per client id. */
  sent: Map<string, { type: string; data: Record<string, unknown> }[]>;
  /** Client ids with an open /ws connection. */
  connected(): string[];
  /** Runs a held ([comfy:hold]) prompt `n` sampling steps further (to the end when n is omitted). */
  step(promptId: string, n?: number): void;
  /** ComfyUI restarted: its queue and history (both in memory) are gone. */
  restart(): void;
}

/**
 * A fake of a ComfyUI server (https://docs.comfy.org/development/comfyui-server/comms_routes and
 * comms_messages): `POST /prompt` validates an API-format workflow and queues it (`{ prompt_id,
 * number, node_errors }`, or 400 with `error` and `node_errors`); prompts run one at a time, sending
 * `execution_start`, `executing`, `progress` ({ value, max, prompt_id, node }), `executed` and
 * `execution_success` (or `execution_error`, `execution_interrupted`) on `/ws?clientId=` to the
 * client that queued them; `GET /history/{id}` holds finished prompts (outputs per node,
 * status_str, completed, messages); `GET /queue`, `POST /queue` ({ delete }), `POST /interrupt`
 * ({ prompt_id }); `GET /view` serves outputs; `POST /upload/image` (multipart) stores inputs.
 * Markers in the prompt text: [comfy:fail] (an execution error at the third step), [comfy:hold]
 * (waits for step()), [comfy:500] (the server errs on /prompt).
 */
export async function startFakeComfyUi(opts: { stepMs?: number } = {}): Promise<FakeComfyUi> {
  const stepMs = opts.stepMs ?? 5;
  const queue: QueuedPrompt[] = [];
  const history = new Map<string, unknown>();
  const uploads = new Map<string, Buffer>();
  const files = new Map<string, 'png' | 'mp4'>();
  const sent = new Map<string, { type: string; data: Record<string, unknown> }[]>();
  const sockets = new Map<string, Set<WebSocket>>();
  let counter = 0;
  let timer: NodeJS.Timeout | null = null;

  const send = (clientId: string, type: string, data: Record<string, unknown>) => {
    if (!sent.has(clientId)) sent.set(clientId, []);
    sent.get(clientId)!.push({ type, data });
    for (const ws of sockets.get(clientId) ?? []) ws.send(JSON.stringify({ type, data }));
  };
  const queueStatus = () => ({ status: { exec_info: { queue_remaining: queue.length } } });
  const outputNodes = (graph: Graph) => Object.entries(graph).filter(([, n]) => OUTPUT_NODES.has(n.class_type));

  const outputsOf = (graph: Graph): Record<string, Record<string, unknown>> => {
    const batch = Number(Object.values(graph).find((n) => n.class_type.startsWith('Empty'))?.inputs.batch_size ?? 1);
    const out: Record<string, Record<string, unknown>> = {};
    for (const [id, node] of outputNodes(graph)) {
      const prefix = String(node.inputs.filename_prefix ?? 'ComfyUI');
      const [subfolder, name] = prefix.includes('/')
        ? [prefix.slice(0, prefix.lastIndexOf('/')), prefix.slice(prefix.lastIndexOf('/') + 1)]
        : ['', prefix];
      const type = node.class_type === 'PreviewImage' ? 'temp' : 'output';
      const ext = node.class_type === 'SaveVideo' ? 'mp4' : 'png';
      const list: OutputFile[] = Array.from({ length: ext === 'mp4' ? 1 : batch }, () => {
        const filename = `${name}_${String(++counter).padStart(5, '0')}_.${ext}`;
        files.set(`${type}/${subfolder}/${filename}`, ext);
        return { filename, subfolder, type };
      });
      out[id] = ext === 'mp4' ? { images: list, animated: [true] } : { images: list };
    }
    return out;
  };

  const end = (p: QueuedPrompt, how: 'success' | 'error' | 'interrupted') => {
    queue.splice(queue.indexOf(p), 1);
    const ts = Date.now();
    const messages: [string, Record<string, unknown>][] = [['execution_start', { prompt_id: p.id, timestamp: ts }]];
    let outputs: Record<string, unknown> = {};
    if (how === 'success') {
      outputs = outputsOf(p.graph);
      for (const [node, output] of Object.entries(outputs))
        send(p.clientId, 'executed', { node, display_node: node, output, prompt_id: p.id });
      send(p.clientId, 'executing', { node: null, prompt_id: p.id });
      send(p.clientId, 'execution_success', { prompt_id: p.id, timestamp: ts });
      messages.push(['execution_success', { prompt_id: p.id, timestamp: ts }]);
    } else if (how === 'error') {
      const error = {
        prompt_id: p.id,
        node_id: '3',
        node_type: 'KSampler',
        executed: [],
        exception_message: 'Allocation on device 0 would exceed allowed memory',
        exception_type: 'torch.OutOfMemoryError',
        traceback: [],
        current_inputs: {},
        current_outputs: {},
      };
      send(p.clientId, 'execution_error', error);
      messages.push(['execution_error', error]);
    } else {
      const data = { prompt_id: p.id, node_id: '3', node_type: 'KSampler', executed: [] };
      send(p.clientId, 'execution_interrupted', data);
      messages.push(['execution_interrupted', data]);
    }
    history.set(p.id, {
      prompt: [p.number, p.id, p.graph, { client_id: p.clientId }, outputNodes(p.graph).map(([id]) => id)],
      outputs,
      status: { status_str: how === 'success' ? 'success' : 'error', completed: how === 'success', messages },
      meta: {},
    });
    send(p.clientId, 'status', queueStatus());
  };

  /** Moves the running prompt `n` steps on (the head of the queue starts when nothing runs). */
  const advance = (p: QueuedPrompt, n: number) => {
    for (let i = 0; i < n && queue.includes(p); i++) {
      p.step += 1;
      send(p.clientId, 'progress', { value: p.step, max: STEPS, prompt_id: p.id, node: '3' });
      if (p.markers.has('fail') && p.step === 3) end(p, 'error');
      else if (p.step === STEPS) end(p, 'success');
    }
  };
  const tick = () => {
    const running = queue.find((p) => p.state === 'running') ?? queue[0];
    if (!running) return;
    if (running.state === 'pending') {
      running.state = 'running';
      send(running.clientId, 'execution_start', { prompt_id: running.id, timestamp: Date.now() });
      send(running.clientId, 'executing', { node: '3', display_node: '3', prompt_id: running.id });
    }
    if (!running.markers.has('hold')) advance(running, 1);
  };

  const validationError = (
    res: Response,
    type: string,
    message: string,
    nodeErrors: Record<string, unknown> | unknown[] = {},
  ) => res.status(400).json({ error: { type, message, details: '', extra_info: {} }, node_errors: nodeErrors });

  const queuePrompt = (req: Request, res: Response) => {
    const { prompt, client_id } = (req.body ?? {}) as { prompt?: Graph; client_id?: string };
    if (!prompt || typeof prompt !== 'object')
      return void validationError(
        res,
        'invalid_prompt',
        'Cannot execute because a node is missing the class_type property.',
      );
    const text = JSON.stringify(prompt);
    if (markersIn(text, 'comfy').has('500'))
      return void res.status(500).type('text/plain').send('500 Internal Server Error');
    for (const [id, node] of Object.entries(prompt)) {
      if (!node || typeof node.class_type !== 'string')
        return void validationError(
          res,
          'invalid_prompt',
          `Cannot execute because node ${id} is missing the class_type property.`,
        );
      if (!KNOWN_NODES.has(node.class_type))
        return void validationError(
          res,
          'invalid_prompt',
          `Cannot execute because node ${node.class_type} does not exist.`,
          { [id]: { errors: [], class_type: node.class_type } },
        );
    }
    if (!outputNodes(prompt).length) return void validationError(res, 'prompt_no_outputs', 'Prompt has no outputs', []);
    const bad = Object.entries(prompt).find(
      ([, n]) => n.class_type === 'LoadImage' && !uploads.has(String(n.inputs.image)),
    );
    if (bad || text.includes('{{')) {
      const [id] = bad ?? ['?'];
      return void validationError(res, 'prompt_outputs_failed_validation', 'Prompt outputs failed validation', {
        [id]: {
          errors: [
            {
              type: 'custom_validation_failed',
              message: 'Invalid image file',
              details: `image - Invalid image file: ${String(bad?.[1].inputs.image)}`,
              extra_info: {},
            },
          ],
          dependent_outputs: [],
          class_type: 'LoadImage',
        },
      });
    }
    const p: QueuedPrompt = {
      id: randomUUID(),
      number: counter++,
      graph: prompt,
      clientId: client_id ?? '',
      state: 'pending',
      markers: markersIn(text, 'comfy'),
      step: 0,
    };
    queue.push(p);
    send(p.clientId, 'status', queueStatus());
    res.json({ prompt_id: p.id, number: p.number, node_errors: {} });
  };

  const server = await startFakeServer({ tls: false }, (app) => {
    app.post('/prompt', queuePrompt);
    app.get('/history/:id', (req, res) => {
      const entry = history.get(String(req.params.id));
      res.json(entry ? { [String(req.params.id)]: entry } : {});
    });
    app.get('/queue', (_req, res) => {
      const item = (p: QueuedPrompt) => [
        p.number,
        p.id,
        p.graph,
        { client_id: p.clientId },
        outputNodes(p.graph).map(([id]) => id),
      ];
      res.json({
        queue_running: queue.filter((p) => p.state === 'running').map(item),
        queue_pending: queue.filter((p) => p.state === 'pending').map(item),
      });
    });
    app.post('/queue', (req, res) => {
      const ids = ((req.body ?? {}) as { delete?: string[] }).delete ?? [];
      for (const id of ids) {
        const p = queue.find((x) => x.id === id && x.state === 'pending');
        if (p) queue.splice(queue.indexOf(p), 1);
      }
      res.status(200).end();
    });
    app.post('/interrupt', (req, res) => {
      const id = ((req.body ?? {}) as { prompt_id?: string }).prompt_id;
      const running = queue.find((p) => p.state === 'running');
      if (running && (!id || id === running.id)) end(running, 'interrupted');
      res.status(200).end();
    });
    app.get('/view', (req, res) => {
      const { filename, subfolder = '', type = 'output' } = req.query as Record<string, string>;
      const kind = files.get(`${type}/${subfolder}/${filename}`);
      if (!kind) return void res.status(404).end();
      res
        .type(kind === 'mp4' ? 'video/mp4' : 'image/png')
        .sendFile(kind === 'mp4' ? server.media.mp4 : server.media.png);
    });
    app.post('/upload/image', express.raw({ type: 'multipart/form-data', limit: '50mb' }), async (req, res) => {
      const form = await new globalThis.Response(req.body as Buffer, {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      const image = form.get('image');
      if (!image || typeof image === 'string') return void res.status(400).end();
      const subfolder = String(form.get('subfolder') ?? '');
      let name = image.name;
      if (form.get('overwrite') !== 'true')
        for (let i = 1; uploads.has(subfolder ? `${subfolder}/${name}` : name); i++)
          name = image.name.replace(/(\.\w+)?$/, ` (${i})$1`);
      uploads.set(subfolder ? `${subfolder}/${name}` : name, Buffer.from(await image.arrayBuffer()));
      res.json({ name, subfolder, type: String(form.get('type') ?? 'input') });
    });
  });

  const wss = new WebSocketServer({ server: server.server, path: '/ws' });
  wss.on('connection', (ws, req) => {
    const clientId = new URL(req.url ?? '/', 'http://x').searchParams.get('clientId') ?? randomUUID().replace(/-/g, '');
    if (!sockets.has(clientId)) sockets.set(clientId, new Set());
    sockets.get(clientId)!.add(ws);
    ws.on('close', () => sockets.get(clientId)?.delete(ws));
    ws.send(JSON.stringify({ type: 'status', data: { ...queueStatus(), sid: clientId } }));
  });
  timer = setInterval(tick, stepMs);

  const close = server.close.bind(server);
  return Object.assign(server, {
    queue,
    history,
    uploads,
    sent,
    connected: () => [...sockets.entries()].filter(([, s]) => s.size > 0).map(([id]) => id),
    step: (promptId: string, n = STEPS) => {
      const p = queue.find((x) => x.id === promptId);
      if (p && p.state === 'running') advance(p, n);
    },
    restart: () => {
      queue.length = 0;
      history.clear();
      for (const set of sockets.values()) for (const ws of set) ws.terminate();
    },
    close: async () => {
      if (timer) clearInterval(timer);
      for (const set of sockets.values()) for (const ws of set) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await close();
    },
  });
}
