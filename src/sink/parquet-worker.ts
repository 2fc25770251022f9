/**
 * The encoder worker: owns the open part files and encodes their row groups off the crawl's
 * event loop (docs/choices.md#parquet-writer: a 64k-row row group blocks for ~0.4 s). Requests are handled strictly
 * in order, so a slow disk or a slow row group delays the replies, and the writer's backpressure
 * (pending rows) reaches the crawl.
 */
import { parentPort } from 'node:worker_threads';
import type { EncoderReply, EncoderRequest } from './encoder-protocol.js';
import { EncoderCore } from './encoder-core.js';

const port = parentPort;
if (!port) throw new Error('parquet-worker must run in a worker thread');
const core = new EncoderCore();
let chain: Promise<void> = Promise.resolve();
port.on('message', (req: EncoderRequest) => {
  // 'open' awaits the zstd wasm init: chain so that later requests never overtake it.
  chain = chain.then(async () => {
    let reply: EncoderReply;
    try {
      reply = { id: req.id, ok: true, result: await core.handle(req) };
    } catch (err) {
      reply = { id: req.id, ok: false, error: (err as Error)?.stack ?? String(err) };
    }
    port.postMessage(reply);
  });
});
