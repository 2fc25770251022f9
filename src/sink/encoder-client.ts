/**
 * The writer's handle on the Parquet encoder: a worker thread (default), so row-group encoding
 * and compression never stall the crawl's event loop, or the same thread (`inline`, used by the
 * benchmark to show the difference). Requests resolve in order; a worker crash fails every
 * pending request and every later one.
 */
import { Worker } from 'node:worker_threads';
import { EncoderCore } from './encoder-core.js';
import type { EncoderReply, EncoderRequest } from './encoder-protocol.js';
import type { PartResult } from './part-encoder.js';

type Request = EncoderRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export interface EncoderClient {
  request(req: Request, transfer?: ArrayBuffer[]): Promise<PartResult | undefined>;
  close(): Promise<void>;
}

export function startEncoder(inline: boolean): EncoderClient {
  return inline ? new InlineEncoder() : new WorkerEncoder();
}

class WorkerEncoder implements EncoderClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: PartResult | undefined) => void; reject: (e: Error) => void }>();
  private failure: Error | null = null;

  constructor() {
    // Under tsx/vitest this module is TypeScript source: the worker registers tsx's loader
    // first (a worker does not inherit it), then imports the TypeScript entry.
    if (import.meta.url.endsWith('.ts')) {
      const entry = new URL('./parquet-worker.ts', import.meta.url).href;
      const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
      this.worker = new Worker(boot, { eval: true });
    } else {
      this.worker = new Worker(new URL('./parquet-worker.js', import.meta.url));
    }
    this.worker.on('message', (reply: EncoderReply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) this.worker.unref();
      if (reply.ok) w.resolve(reply.result);
      else w.reject(new Error(`parquet encoder: ${reply.error}`));
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`parquet encoder worker exited (code ${code})`)));
    this.worker.unref(); // kept alive only while a request is pending (see request())
  }

  request(req: Request, transfer: ArrayBuffer[] = []): Promise<PartResult | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id }, transfer);
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error('parquet encoder closed');
    await this.worker.terminate();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

class InlineEncoder implements EncoderClient {
  private readonly core = new EncoderCore();
  private chain: Promise<unknown> = Promise.resolve();

  request(req: Request): Promise<PartResult | undefined> {
    const p = this.chain.then(() => this.core.handle({ ...req, id: 0 } as EncoderRequest));
    this.chain = p.catch(() => undefined);
    return p;
  }

  async close(): Promise<void> {
    await this.chain;
  }
}
