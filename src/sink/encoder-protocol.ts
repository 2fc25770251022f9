/**
 * Messages between the snapshot writer (main thread) and the Parquet encoder (worker thread, or
 * the same thread when the worker is disabled). Every request carries an id and gets exactly one
 * reply with that id, in order.
 */
import type { PartResult, PartSpec } from './part-encoder.js';

export type EncoderRequest =
  | { id: number; op: 'open'; partId: number; spec: PartSpec }
  | { id: number; op: 'rows'; partId: number; columns: unknown[][]; rowCount: number }
  | { id: number; op: 'finish'; partId: number }
  | { id: number; op: 'discard'; partId: number };

export type EncoderReply =
  | { id: number; ok: true; result?: PartResult }
  | { id: number; ok: false; error: string };
