import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { TestTls } from './tls.js';

/**
 * Small local web for fetch tests: one HTTP and one HTTPS server on 127.0.0.1 (port 0) that
 * route by full URL (`https://a.example/ads.txt`, taken from the Host header), so a Fetcher
 * pointed at them with `--connect-to` sees many hosts. Nothing reaches the internet.
 */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface SeenRequest {
  url: string;
  headers: IncomingMessage['headers'];
}

export interface LocalWeb {
  httpPort: number;
  httpsPort: number;
  /** `--connect-to` rules sending every host's :80 and :443 here. */
  connectTo: string[];
  /** Every request received, in arrival order. */
  seen: SeenRequest[];
  route(url: string, handler: Handler): void;
  /** Shorthand: answer `url` with status, body and headers. */
  reply(url: string, status: number, body?: string | Buffer, headers?: Record<string, string>): void;
  /** Shorthand: answer `url` with a redirect to `location`. */
  redirect(url: string, location: string, status?: number): void;
  close(): Promise<void>;
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function trackSockets(server: net.Server): () => void {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return () => {
    for (const s of sockets) s.destroy();
  };
}

export async function startLocalWeb(tls: TestTls): Promise<LocalWeb> {
  const routes = new Map<string, Handler>();
  const seen: SeenRequest[] = [];
  const handle = (scheme: string) => async (req: IncomingMessage, res: ServerResponse) => {
    const url = `${scheme}://${req.headers.host}${req.url}`;
    seen.push({ url, headers: req.headers });
    const h = routes.get(url);
    if (!h) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no route\n');
      return;
    }
    try {
      await h(req, res);
    } catch (err) {
      res.destroy(err as Error);
    }
  };
  const plain = http.createServer({ keepAliveTimeout: 1000 }, handle('http'));
  const secure = https.createServer({ SNICallback: tls.SNICallback, keepAliveTimeout: 1000 }, handle('https'));
  const killPlain = trackSockets(plain);
  const killSecure = trackSockets(secure);
  const [httpPort, httpsPort] = await Promise.all([listen(plain), listen(secure)]);
  return {
    httpPort,
    httpsPort,
    connectTo: [`:80:127.0.0.1:${httpPort}`, `:443:127.0.0.1:${httpsPort}`],
    seen,
    route: (url, handler) => void routes.set(url, handler),
    reply(url, status, body = '', headers = {}) {
      routes.set(url, (_req, res) => void res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body));
    },
    redirect(url, location, status = 301) {
      routes.set(url, (_req, res) => void res.writeHead(status, { location }).end());
    },
    async close() {
      killPlain();
      killSecure();
      await Promise.all([new Promise((r) => plain.close(r)), new Promise((r) => secure.close(r))]);
    },
  };
}

/** A TCP server that accepts connections and never says a word (for connect/headers deadlines). */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer(() => {});
  const kill = trackSockets(server);
  const port = await listen(server);
  return {
    port,
    close: async () => {
      kill();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A port on 127.0.0.1 with nothing listening (connect refused). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise((r) => server.close(r));
  return port;
}

/** Resolver for tests: every name is unknown (no DNS query leaves the machine). */
export const noDns = async (host: string): Promise<string[]> => {
  throw Object.assign(new Error(`test resolver: ${host} is not known`), { code: 'ENOTFOUND' });
};

/** Reads a body to a string (the simplest consumer). */
export async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}
