/**
 * One TCP port for both schemes: the first byte of a connection tells TLS (0x16, a handshake
 * record) from plain HTTP, and the socket is handed to an https or http server accordingly.
 * Hosts are routed by Host header (and SNI for certificates), as curl's --connect-to expects.
 * Leaf certificates are issued per registrable domain on first use and kept in a bounded LRU.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { rootDomain, toAsciiHost } from '../util/domain.js';
import { HANDSHAKE_FAILURE_ALERT, sniFromClientHello } from './client-hello.js';
import { serveHostile, type HostileTiming } from './hostile.js';
import { Lru } from './lru.js';
import { hash32 } from './prng.js';
import type { HostBehaviour, Route } from './route.js';
import type { TestCa } from './tls-ca.js';

export interface Resolver {
  behaviour(host: string): HostBehaviour;
  route(host: string, pathAndQuery: string): Route;
  /**
   * Names to put in one certificate together with `host` (e.g. 64 neighbouring synthetic roots
   * and their wildcards), so that issuing is paid once per group, not per host; null = alone.
   */
  certGroup?(host: string): { key: string; names: string[] } | null;
}

export interface RequestInfo {
  scheme: 'http' | 'https';
  host: string;
  path: string;
  /** Status sent, or null when the connection was dropped / the answer is a hostile body. */
  status: number | null;
}

export interface SimwebStats {
  requests: number;
  connections: number;
  /** Connections open now (accepted, not yet closed). */
  open: number;
  tlsHandshakes: number;
  tlsAborted: number;
  certsIssued: number;
  byStatus: Record<string, number>;
}

export interface ServerOptions {
  ca: TestCa;
  resolver: Resolver;
  timing: HostileTiming;
  maxCerts: number;
  onRequest?: (info: RequestInfo) => void;
}

/** Validators every synthetic file carries, so conditional requests (304) can be tested. */
const LAST_MODIFIED = 'Sat, 21 Nov 2026 00:00:00 GMT';
const etags = new WeakMap<Buffer, string>();
function etagOf(b: Buffer): string {
  let e = etags.get(b);
  if (!e) etags.set(b, (e = `"${b.length.toString(16)}-${hash32(b.toString('latin1', 0, Math.min(b.length, 65536))).toString(16)}"`));
  return e;
}

export class SimwebServer {
  readonly stats: SimwebStats = { requests: 0, connections: 0, open: 0, tlsHandshakes: 0, tlsAborted: 0, certsIssued: 0, byStatus: {} };
  private readonly tcp: net.Server;
  private readonly extra: net.Server[] = [];
  private readonly http: http.Server;
  private readonly https: https.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly contexts: Lru<string, Promise<tls.SecureContext>>;

  constructor(private readonly o: ServerOptions) {
    this.contexts = new Lru(o.maxCerts);
    this.http = http.createServer((req, res) => this.handle(req, res, 'http'));
    this.https = https.createServer({ SNICallback: (name, cb) => this.sni(name, cb) }, (req, res) => this.handle(req, res, 'https'));
    this.https.on('secureConnection', () => this.stats.tlsHandshakes++);
    this.https.on('tlsClientError', () => {});
    for (const s of [this.http, this.https]) {
      s.keepAliveTimeout = 5000;
      s.on('clientError', (_err, socket: net.Socket) => socket.destroy());
    }
    this.tcp = net.createServer((socket) => this.accept(socket));
  }

  listen(port = 0, host = '127.0.0.1'): Promise<number> {
    return new Promise((resolve, reject) => {
      this.tcp.once('error', reject);
      this.tcp.listen(port, host, () => resolve((this.tcp.address() as net.AddressInfo).port));
    });
  }

  /**
   * Also accepts connections on host:port, served exactly as the main port (simweb --dns
   * binds ports 80 and 443 of many 127.x addresses). Rejects with the listen error (EACCES, EADDRINUSE).
   */
  listenAlso(port: number, host: string): Promise<void> {
    const extra = net.createServer((socket) => this.accept(socket));
    return new Promise((resolve, reject) => {
      extra.once('error', reject);
      extra.listen(port, host, () => {
        this.extra.push(extra);
        resolve();
      });
    });
  }

  async close(): Promise<void> {
    for (const e of this.extra.splice(0)) e.close();
    const closed = new Promise<void>((r) => this.tcp.close(() => r()));
    for (const s of this.sockets) s.destroy();
    this.http.closeAllConnections();
    await closed;
  }

  private accept(socket: net.Socket): void {
    this.stats.connections++;
    this.stats.open++;
    this.sockets.add(socket);
    socket.once('close', () => {
      this.stats.open--;
      this.sockets.delete(socket);
    });
    socket.on('error', () => {});
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      // TLS record type 22 = handshake (RFC 8446 §5.1).
      if (chunk[0] === 0x16) {
        const sni = sniFromClientHello(chunk);
        if (sni !== null && this.o.resolver.behaviour(toAsciiHost(sni)).tls === 'abort') {
          this.stats.tlsAborted++;
          // Reading resumed: a paused socket never sees the client's close, and its descriptor
          // stayed open (1,172 of them after a 20k-site crawl; at 300k the process reached its
          // descriptor limit and every later connection was reset).
          socket.end(HANDSHAKE_FAILURE_ALERT);
          socket.resume();
          return;
        }
      }
      (chunk[0] === 0x16 ? this.https : this.http).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  }

  private sni(servername: string, cb: (err: Error | null, ctx?: tls.SecureContext) => void): void {
    const host = toAsciiHost(servername);
    const b = this.o.resolver.behaviour(host);
    if (b.tls === 'abort') {
      this.stats.tlsAborted++;
      cb(new Error(`simweb: ${host} does not speak TLS`));
      return;
    }
    let key: string;
    let names: string[];
    let expired = false;
    let group: { key: string; names: string[] } | null = null;
    if (b.tls === 'wrong_name') {
      key = 'wrong';
      names = ['wrong-name.simweb.invalid'];
    } else if (b.tls === 'ok' && (group = this.o.resolver.certGroup?.(host) ?? null)) {
      key = group.key;
      names = group.names;
    } else {
      const root = rootDomain(host);
      names = root && root !== host ? [root, `*.${root}`] : [host, `*.${host}`];
      // A wildcard covers one label only: deeper hosts get their own name too.
      if (root && host !== root && host.split('.').length > root.split('.').length + 1) names.push(host);
      expired = b.tls === 'expired';
      key = (expired ? 'expired:' : '') + names.join(',');
    }
    let ctx = this.contexts.get(key);
    if (!ctx) {
      this.stats.certsIssued++;
      const day = 86_400_000;
      const opts = expired ? { names, notBefore: new Date(Date.now() - 400 * day), notAfter: new Date(Date.now() - 30 * day) } : { names };
      ctx = this.o.ca.leafFor(names[0]!, opts).then((p) => tls.createSecureContext({ cert: p.certPem, key: p.keyPem }));
      this.contexts.set(key, ctx);
    }
    ctx.then((c) => cb(null, c), (err: Error) => cb(err));
  }

  private handle(req: IncomingMessage, res: ServerResponse, scheme: 'http' | 'https'): void {
    this.stats.requests++;
    const rawHost = req.headers.host ?? (scheme === 'https' ? (req.socket as tls.TLSSocket).servername || '' : '');
    const host = toAsciiHost(rawHost.replace(/:\d+$/, ''));
    const path = req.url ?? '/';
    const b = this.o.resolver.behaviour(host);
    const respond = () => this.respond(req, res, scheme, host, path, b);
    if (b.latencyMs <= 0) return respond();
    // ±25 % jitter around the host's base delay: real hosts are not metronomes.
    const timer = setTimeout(respond, Math.round(b.latencyMs * (0.75 + Math.random() * 0.5)));
    res.once('close', () => clearTimeout(timer));
  }

  private respond(req: IncomingMessage, res: ServerResponse, scheme: 'http' | 'https', host: string, path: string, b: HostBehaviour): void {
    if (res.destroyed) return;
    let route: Route;
    if (scheme === 'http' && b.transport === 'https_only') route = { type: 'drop' };
    else if (scheme === 'http' && b.transport === 'redirect_to_https') route = { type: 'redirect', status: 301, location: `https://${host}${path}` };
    else route = this.o.resolver.route(host, path);
    let status: number | null = null;
    switch (route.type) {
      case 'drop':
        req.socket.destroy();
        break;
      case 'redirect':
        status = route.status;
        res.writeHead(route.status, { location: route.location, 'content-length': '0' }).end();
        break;
      case 'hostile':
        serveHostile(route.kind, req, res, this.o.timing);
        break;
      case 'raw':
        // Written past the HTTP/1.1 server, which then sends nothing of its own; the close ends the body.
        status = route.status;
        req.socket.end(route.bytes);
        break;
      case 'body': {
        status = route.status;
        const headers: Record<string, string> = { ...route.headers };
        if (route.contentType !== null) headers['content-type'] = route.contentType;
        if (route.status === 200) {
          headers.etag = etagOf(route.body);
          headers['last-modified'] = LAST_MODIFIED;
          if (req.headers['if-none-match'] === headers.etag) {
            status = 304;
            res.writeHead(304, { etag: headers.etag, 'last-modified': LAST_MODIFIED }).end();
            break;
          }
        }
        headers['content-length'] = String(route.body.length);
        res.writeHead(route.status, headers);
        res.end(req.method === 'HEAD' ? undefined : route.body);
        break;
      }
    }
    if (status !== null) this.stats.byStatus[status] = (this.stats.byStatus[status] ?? 0) + 1;
    this.o.onRequest?.({ scheme, host, path, status });
  }
}
