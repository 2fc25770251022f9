/**
 * The simulated web's DNS server (`simweb --dns`): UDP and TCP on one port of 127.0.0.1, answering as
 * a recursive resolver would for the names of the simulated web (net-layout.ts decides each
 * name's fate). The packet codec is dns-packet's; this file only chooses the answer:
 *
 * - ok: the CNAME chain, then the A or AAAA record the query asked for at its end (RFC 1034
 *   §4.3.2: a resolver returns the chain and the data); a query for the other family gets the
 *   chain with no data (NOERROR/NODATA, RFC 2308 §2.2), which a client reads as "no such family".
 * - nxdomain / unknown names: RCODE 3 (RFC 1035 §4.1.1); servfail: RCODE 2; refused: RCODE 5;
 *   no_address: NOERROR with no answer.
 * - timeout: no reply at all, over UDP and TCP, so the client's own time-out and tries decide.
 * - slow names are answered after their delay.
 * Over TCP each message is preceded by its two-byte length (RFC 1035 §4.2.2 / RFC 7766 §8).
 */
import dgram from 'node:dgram';
import net from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Answer, Packet, Question } from 'dns-packet';
import type { NetLayout } from './net-layout.js';

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
/** TTL of every answer: long enough for one crawl's cache, short enough to be unremarkable. */
const TTL = 300;
/** A TCP connection sending nothing for this long is closed (RFC 7766 §6.2.3 idle time-out). */
const TCP_IDLE_MS = 10_000;
/** Largest UDP answer without EDNS (RFC 1035 §4.2.1); ours are far smaller, TC is set past it. */
const UDP_MAX = 512;

export interface DnsServerStats {
  queries: number;
  udp: number;
  tcp: number;
  byRcode: Record<string, number>;
  /** Queries left unanswered on purpose (fate 'timeout'). */
  dropped: number;
  malformed: number;
}

export class SimDnsServer {
  readonly stats: DnsServerStats = { queries: 0, udp: 0, tcp: 0, byRcode: {}, dropped: 0, malformed: 0 };
  private udp: dgram.Socket | null = null;
  private tcp: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly layout: NetLayout) {}

  /**
   * Listens on UDP and TCP of the same port (0: a free one, the same for both). Resolves to the port.
   * @param host address to listen on. @default '127.0.0.1'
   */
  async listen(port = 0, host = '127.0.0.1'): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const udp = dgram.createSocket('udp4');
      udp.on('message', (msg, rinfo) => this.onUdp(udp, msg, rinfo));
      udp.on('error', () => {});
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(port, host, () => resolve());
      });
      const chosen = udp.address().port;
      const tcp = net.createServer((s) => this.onTcp(s));
      try {
        await new Promise<void>((resolve, reject) => {
          tcp.once('error', reject);
          tcp.listen(chosen, host, () => resolve());
        });
      } catch (err) {
        udp.close();
        // A free UDP port whose TCP twin is taken: try another (only when the port was ours to choose).
        if (port === 0 && attempt < 20 && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
        throw err;
      }
      this.udp = udp;
      this.tcp = tcp;
      return chosen;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.sockets) s.destroy();
    await Promise.all([
      new Promise<void>((r) => (this.udp ? this.udp.close(() => r()) : r())),
      new Promise<void>((r) => (this.tcp ? this.tcp.close(() => r()) : r())),
    ]);
  }

  /** The reply to one query packet, the delay before it, or null for no reply. */
  answer(query: Packet): { reply: Buffer; delayMs: number } | null {
    const q: Question | undefined = query.questions?.[0];
    const rd = query.flags !== undefined ? query.flags & dnsPacket.RECURSION_DESIRED : dnsPacket.RECURSION_DESIRED;
    const reply = (rcode: number, answers: Answer[] = []): Buffer => {
      const name = Object.keys(RCODE).find((k) => RCODE[k as keyof typeof RCODE] === rcode) ?? String(rcode);
      this.stats.byRcode[name] = (this.stats.byRcode[name] ?? 0) + 1;
      return dnsPacket.encode({
        type: 'response',
        id: query.id ?? 0,
        flags: rd | dnsPacket.RECURSION_AVAILABLE | rcode,
        questions: q ? [q] : [],
        answers,
      });
    };
    if (!q || query.type !== 'query' || (query.questions?.length ?? 0) !== 1) return { reply: reply(RCODE.FORMERR), delayMs: 0 };
    if (q.class !== 'IN') return { reply: reply(RCODE.REFUSED), delayMs: 0 };
    const plan = this.layout.plan(q.name);
    switch (plan.fate) {
      case 'timeout':
        this.stats.dropped++;
        return null;
      case 'unknown':
      case 'nxdomain':
        return { reply: reply(RCODE.NXDOMAIN), delayMs: plan.delayMs };
      case 'servfail':
        return { reply: reply(RCODE.SERVFAIL), delayMs: plan.delayMs };
      case 'refused':
        return { reply: reply(RCODE.REFUSED), delayMs: plan.delayMs };
      case 'no_address':
        return { reply: reply(RCODE.NOERROR), delayMs: plan.delayMs };
      default:
        break;
    }
    const answers: Answer[] = [];
    let owner = q.name;
    for (const next of plan.chain) {
      answers.push({ type: 'CNAME', name: owner, ttl: TTL, class: 'IN', data: next });
      owner = next;
    }
    if (q.type === 'A' && plan.v4) answers.push({ type: 'A', name: owner, ttl: TTL, class: 'IN', data: plan.v4 });
    if (q.type === 'AAAA' && plan.v6) answers.push({ type: 'AAAA', name: owner, ttl: TTL, class: 'IN', data: plan.v6 });
    // A CNAME query is answered by the first link alone (RFC 1034 §3.6.2).
    const out = q.type === 'CNAME' ? answers.slice(0, 1) : answers;
    return { reply: reply(RCODE.NOERROR, out), delayMs: plan.delayMs };
  }

  private decode(msg: Buffer): Packet | null {
    try {
      return dnsPacket.decode(msg);
    } catch {
      this.stats.malformed++;
      return null;
    }
  }

  private later(ms: number, fn: () => void): void {
    if (this.closed) return;
    if (ms <= 0) return fn();
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(t);
  }

  private onUdp(udp: dgram.Socket, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    this.stats.queries++;
    this.stats.udp++;
    const query = this.decode(msg);
    if (!query) return; // nothing to answer with: not even an id
    const a = this.answer(query);
    if (!a) return;
    let reply = a.reply;
    if (reply.length > UDP_MAX) {
      // Truncated (TC): the client asks again over TCP (RFC 7766 §5).
      reply = dnsPacket.encode({ type: 'response', id: query.id ?? 0, flags: dnsPacket.TRUNCATED_RESPONSE | dnsPacket.RECURSION_AVAILABLE, questions: query.questions ?? [] });
    }
    this.later(a.delayMs, () => udp.send(reply, rinfo.port, rinfo.address, () => {}));
  }

  private onTcp(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
    let buf: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < 2 + len) break;
        const msg = buf.subarray(2, 2 + len);
        buf = buf.subarray(2 + len);
        this.stats.queries++;
        this.stats.tcp++;
        const query = this.decode(msg);
        if (!query) return void socket.destroy();
        const a = this.answer(query);
        if (!a) continue;
        const framed = Buffer.alloc(2 + a.reply.length);
        framed.writeUInt16BE(a.reply.length, 0);
        a.reply.copy(framed, 2);
        this.later(a.delayMs, () => {
          if (!socket.destroyed) socket.write(framed);
        });
      }
    });
  }
}
