/**
 * Addresses that never answer a SYN, so that a crawl of the simulated web meets the connect
 * time-out path. On loopback a port with no listener answers RST at once (`connect`), which is
 * not what a dead host on the web does: its SYNs go unanswered until the client gives up. Linux drops a SYN when the listening
 * socket's accept queue is full, so each address gets a listener with a backlog of 1 that never
 * accepts, and its queue is filled with connections of our own; from then on a connect to it
 * waits for the client's own deadline.
 *
 * Node accepts every connection its event loop sees, so the listeners live in a child process
 * whose event loop is blocked (Atomics.wait) once they listen. The child checks every second
 * that its parent is alive and exits when it is not; close() kills it by its pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

const CHILD = `
const net = require('node:net');
const targets = JSON.parse(process.argv[1]);
let listening = 0;
const fail = (err) => { process.stdout.write('error ' + (err && err.code || err) + '\\n'); process.exit(1); };
for (const [host, port] of targets) {
  const s = net.createServer(() => {});
  s.once('error', fail);
  s.listen({ host, port, backlog: 1 }, () => { if (++listening === targets.length) { process.stdout.write('ready\\n'); block(); } });
}
function block() {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    Atomics.wait(cell, 0, 0, 1000);
    try { process.kill(process.ppid, 0); } catch { process.exit(0); }
  }
}`;

/** A connect that does not complete within this long is taken as dropped (loopback connects take < 1 ms). */
const PROBE_MS = 250;
/** A backlog of 1 holds two connections on Linux; more than this means the queue is not filling. */
const MAX_FILLERS = 16;

export interface SynDead {
  /** True when every address was checked to leave a connect hanging. */
  verified: boolean;
  close(): void;
}

function probe(host: string, port: number): Promise<net.Socket | null> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.on('error', () => {});
    const timer = setTimeout(() => {
      s.destroy();
      resolve(null);
    }, PROBE_MS);
    s.once('connect', () => {
      clearTimeout(timer);
      resolve(s);
    });
    s.once('error', () => {
      clearTimeout(timer);
      s.destroy();
      resolve(null);
    });
  });
}

/** Starts the never-accepting listeners on every address × port, fills their queues, and checks them. */
export async function startSynDead(addresses: readonly string[], ports: readonly number[]): Promise<SynDead> {
  const targets = addresses.flatMap((a) => ports.map((p) => [a, p] as const));
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD, JSON.stringify(targets)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const fillers: net.Socket[] = [];
  const close = () => {
    for (const f of fillers) f.destroy();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    const first = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', () => resolve('exited'));
    });
    if (first !== 'ready') throw new Error(`simweb: SYN-dead listeners could not start (${first})`);
    let verified = true;
    for (const [host, port] of targets) {
      let n = 0;
      for (; n < MAX_FILLERS; n++) {
        const s = await probe(host, port);
        if (!s) break;
        fillers.push(s);
      }
      // Full when a connect hangs after at least one filler; probe once more to be sure.
      if (n === MAX_FILLERS || n === 0 || (await probe(host, port)) !== null) verified = false;
    }
    return { verified, close };
  } catch (err) {
    close();
    throw err;
  }
}
