/**
 * Responders for hostile hosts. Bodies are produced lazily, one chunk at a time, and only when
 * the socket wants more (`write()` → false → wait for 'drain'): the server never allocates a
 * whole endless body or bomb. Each stops as soon as the client goes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { HostileKind } from './names.js';
import { TEXT } from './route.js';

export interface HostileTiming {
  /** Interval between trickled lines, ms. */
  trickleMs: number;
}

const LINE = 'hostile.example, 1234567, DIRECT, abcdef0123456789 # endless body of valid records\n';
/** 64 KiB of whole lines: the unit every generated body repeats. */
const BLOCK = Buffer.from(LINE.repeat(Math.floor(65536 / LINE.length)), 'utf8');

let gzipMember: Buffer | null = null;
/** One gzip member inflating to 16 MiB of ads.txt lines; members concatenate (RFC 1952 §2.2). */
function bombMember(): Buffer {
  gzipMember ??= gzipSync(Buffer.from(LINE.repeat(Math.ceil((16 << 20) / LINE.length)).slice(0, 16 << 20)), { level: 9 });
  return gzipMember;
}

export const HUGE_LINE_BYTES = 64 << 20;
export const BIG_FILE_BYTES = BLOCK.length * 320; // ≈ 20 MiB of whole lines
/** Inflated size the bomb announces itself as; on the wire it is ~1/1000 of that. */
export const GZIP_BOMB_MEMBERS = 4096; // 4096 × 16 MiB = 64 GiB inflated

/**
 * Writes chunks from `next` until it returns null or the client leaves, honouring backpressure.
 * `next` is called only when the socket can take more.
 */
export function pump(res: ServerResponse, next: () => Buffer | null, onDone?: () => void): void {
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  res.once('close', stop);
  const step = () => {
    while (!stopped) {
      const chunk = next();
      if (chunk === null) {
        res.off('close', stop);
        res.end(onDone);
        return;
      }
      if (!res.write(chunk)) {
        res.once('drain', step);
        return;
      }
    }
  };
  step();
}

function repeat(block: Buffer, totalBytes: number): () => Buffer | null {
  let sent = 0;
  return () => {
    if (sent >= totalBytes) return null;
    const n = Math.min(block.length, totalBytes - sent);
    sent += n;
    return n === block.length ? block : block.subarray(0, n);
  };
}

/** A small valid file served where a hostile host behaves (e.g. over HTTP for TLS-broken hosts). */
export function benignFile(host: string): string {
  return `# ${host}: reachable only over the working scheme\ngoogle.com, pub-0000000000000001, DIRECT, f08c47fec0942fa0\n`;
}

/**
 * Serves a hostile body. Redirect kinds and TLS kinds never reach here (they are routes and
 * handshake behaviours); see synthetic-web.ts.
 */
export function serveHostile(kind: HostileKind, req: IncomingMessage, res: ServerResponse, timing: HostileTiming): void {
  switch (kind) {
    case 'endless': {
      res.writeHead(200, { 'content-type': TEXT });
      pump(res, () => BLOCK);
      return;
    }
    case 'trickle': {
      res.writeHead(200, { 'content-type': TEXT });
      res.flushHeaders();
      const timer = setInterval(() => res.write(LINE), timing.trickleMs);
      res.once('close', () => clearInterval(timer));
      return;
    }
    case 'stall': {
      // Read the request, answer nothing; the socket stays open until the client gives up.
      req.resume();
      return;
    }
    case 'reset': {
      res.writeHead(200, { 'content-type': TEXT, 'content-length': String(BLOCK.length * 2) });
      res.write(BLOCK, () => {
        const socket = res.socket as (NonNullable<typeof res.socket> & { resetAndDestroy?: () => void }) | null;
        // A TCP RST mid-body (Node ≥ 16.17); TLS sockets have no TCP handle: destroy instead.
        if (socket?.resetAndDestroy && (socket as unknown as { _handle?: { reset?: unknown } })._handle?.reset) socket.resetAndDestroy();
        else socket?.destroy();
      });
      return;
    }
    case 'gzip-bomb': {
      res.writeHead(200, { 'content-type': TEXT, 'content-encoding': 'gzip' });
      let members = 0;
      pump(res, () => (members++ < GZIP_BOMB_MEMBERS ? bombMember() : null));
      return;
    }
    case 'huge-line': {
      const prefix = Buffer.from('hugeline.example, ');
      const a = Buffer.alloc(65536, 0x61);
      res.writeHead(200, { 'content-type': TEXT, 'content-length': String(prefix.length + HUGE_LINE_BYTES) });
      res.write(prefix);
      pump(res, repeat(a, HUGE_LINE_BYTES));
      return;
    }
    case 'big-file': {
      res.writeHead(200, { 'content-type': TEXT, 'content-length': String(BIG_FILE_BYTES) });
      pump(res, repeat(BLOCK, BIG_FILE_BYTES));
      return;
    }
    default: {
      res.writeHead(500, { 'content-type': TEXT });
      res.end(`simweb: ${kind} is not a body behaviour\n`);
    }
  }
}

/** Bytes of an ads.txt whose records are valid but whose comments hold bytes that are not UTF-8. */
export function invalidUtf8File(): Buffer {
  return Buffer.concat([
    Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from(' (Latin-1 byte)\n'),
    Buffer.from('google.com, pub-0000000000000002, DIRECT, f08c47fec0942fa0\n'),
    Buffer.from('appnexus.com, 1234, RESELLER # '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('\n'),
    Buffer.from('openx.com, 5678, DIRECT\n'),
  ]);
}
