/**
 * `adsnap parse [--kind K] [--format ndjson|table] FILE|-` (contract §1): parses one local file
 * and prints its events. Exit 0 when the file was read (parse issues included), 1 when it cannot
 * be read (or the kind's parser is not in this build), 2 on usage errors.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import type { FileKind, ParseEvent, ParseKind } from '../parse-kinds/kind.js';
import { visible, visibleLines } from '../../text/visible.js';
import { UsageError } from '../usage-error.js';

const KINDS: readonly FileKind[] = ['ads.txt', 'app-ads.txt', 'robots.txt', 'sellers.json', 'buyers.json'];
const FORMATS = ['ndjson', 'table'] as const;
type Format = (typeof FORMATS)[number];

// Each kind's module beside kind.ts; loaded lazily so parsing one kind never loads the others.
const MODULE_OF: Record<FileKind, string> = { 'ads.txt': 'adstxt', 'app-ads.txt': 'adstxt', 'robots.txt': 'robots', 'sellers.json': 'sellers', 'buyers.json': 'buyers' };

const usage = `Usage: adsnap parse [--kind K] [--format ndjson|table] FILE|-

Parses one local file and prints what it found, in file order, summary last.
  --kind K        ads.txt, app-ads.txt, robots.txt, sellers.json or buyers.json (default: guessed
                  from the file name: "app-ads" → app-ads.txt, "robots" → robots.txt, "buyers"
                  → buyers.json, "sellers" or ".json" → sellers.json, else ads.txt; stdin → ads.txt)
  --format F      ndjson (one JSON object per line; default when stdout is not a terminal)
                  or table (readable; default on a terminal)
  FILE|-          the file to parse, or - for stdin
Exit status: 0 file read (even with parse issues), 1 file unreadable, 2 usage error.`;

/** Kind guessed from a file name (contract §1: "when omitted it is guessed from the file name"). */
export function guessKind(fileName: string): FileKind {
  const base = path.basename(fileName).toLowerCase();
  if (base.includes('app-ads') || base.includes('app_ads')) return 'app-ads.txt';
  if (base.includes('robots')) return 'robots.txt';
  if (base.includes('buyers')) return 'buyers.json';
  if (base.includes('sellers') || base.endsWith('.json')) return 'sellers.json';
  return 'ads.txt';
}

interface ResolvedOptions {
  file: string;
  kind: FileKind;
  format: Format;
}

function resolveOptions(argv: string[]): ResolvedOptions {
  const { values, positionals } = parseCommandArgs(argv, { kind: { type: 'string' }, format: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'missing FILE (or - for stdin)' : 'expected exactly one FILE');
  const file = positionals[0]!;
  if (values.kind !== undefined && !(KINDS as readonly string[]).includes(values.kind)) {
    throw new UsageError(`--kind must be one of ${KINDS.join(', ')}; got ${JSON.stringify(values.kind)}`);
  }
  if (values.format !== undefined && !(FORMATS as readonly string[]).includes(values.format)) {
    throw new UsageError(`--format must be ndjson or table; got ${JSON.stringify(values.format)}`);
  }
  const kind = (values.kind as FileKind | undefined) ?? (file === '-' ? 'ads.txt' : guessKind(file));
  const format = (values.format as Format | undefined) ?? (process.stdout.isTTY ? 'table' : 'ndjson');
  return { file, kind, format };
}

async function loadKind(kind: FileKind): Promise<ParseKind | null> {
  const url = new URL(`../parse-kinds/${MODULE_OF[kind]}.js`, import.meta.url);
  try {
    const mod = (await import(url.href)) as { kind?: ParseKind };
    return mod.kind ?? null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(MODULE_OF[kind])) return null;
    throw err;
  }
}

async function openInput(file: string): Promise<AsyncIterable<Uint8Array>> {
  if (file === '-') return process.stdin;
  const fh = await open(file, 'r');
  return fh.createReadStream({ highWaterMark: 64 * 1024 });
}

export const command: Command = {
  summary: 'parse one local ads.txt, app-ads.txt, robots.txt, sellers.json or buyers.json file and print its records',
  usage,
  async run(argv) {
    const opts = resolveOptions(argv);
    const kind = await loadKind(opts.kind);
    if (kind === null) {
      process.stderr.write(`adsnap parse: parsing ${opts.kind} is not available in this build\n`);
      return 1;
    }
    let body: AsyncIterable<Uint8Array>;
    try {
      body = await openInput(opts.file);
    } catch (err) {
      process.stderr.write(`adsnap parse: cannot read ${visible(opts.file)}: ${visibleLines((err as Error).message)}\n`);
      return 1;
    }
    const out = new StdoutWriter(process.stdout);
    try {
      if (opts.format === 'table') await out.write(formatTableHeader());
      for await (const ev of kind.events(body, opts.kind)) {
        await out.write(opts.format === 'table' ? formatTableRow(ev as ParseEvent) : JSON.stringify(ev) + '\n');
        if (out.closed) break; // reader went away (e.g. `| head`): stop reading, not an error
      }
      await out.flush();
    } catch (err) {
      await out.flush();
      const e = err as NodeJS.ErrnoException;
      if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) {
        process.stderr.write(`adsnap parse: cannot read ${visible(opts.file)}: ${visibleLines(e.message)}\n`);
        return 1;
      }
      throw err;
    }
    return 0;
  },
};

// ---- readable table (--format table) -------------------------------------------------------
// One row per event, streamed (fixed column widths, no look-ahead): line number, type (the
// severity for issues), then the event's fields. Works for every kind's events.

function formatTableHeader(): string {
  return `${'line'.padStart(6)}  ${'type'.padEnd(9)} details\n`;
}

function formatTableRow(ev: ParseEvent): string {
  const { type, line_no: lineNo, ...rest } = ev;
  const line = lineNo === null || lineNo === undefined ? '-' : String(lineNo);
  let label = type;
  let details: string;
  if (type === 'issue') {
    const { severity, code, message, line_text: text } = rest as Record<string, unknown>;
    label = String(severity);
    details = `${String(code)}: ${String(message)}${text ? `  | ${String(text)}` : ''}`;
  } else if (type === 'record') {
    const r = rest as Record<string, unknown>;
    details = [r.ad_system_domain, r.seller_account_id, r.relationship, r.cert_authority_id].filter((x) => x !== null).join(', ');
    if (r.extension !== null) details += ` ; ${String(r.extension)}`;
  } else if (type === 'variable') {
    const v = rest as Record<string, unknown>;
    details = `${String(v.name)} = ${String(v.value)}`;
    if (v.value_domain !== null) details += `  → ${String(v.value_domain)}${v.value_country !== null ? ` [${String(v.value_country)}]` : ''}`;
  } else {
    details = Object.entries(rest)
      .map(([k, v]) => `${k}=${cell(v)}`)
      .join(' ');
  }
  // Text from the file: control characters and escape sequences shown, never obeyed (text/visible.ts).
  return `${line.padStart(6)}  ${label.padEnd(9)} ${visible(details)}\n`;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (Array.isArray(v)) return v.map((x) => (x !== null && typeof x === 'object' && 'domain' in x ? String(x.domain) : cell(x))).join(',') || '-';
  if (typeof v === 'object') return JSON.stringify(v);
  const s = String(v);
  return /\s/.test(s) ? JSON.stringify(s) : s;
}

// ---- stdout with backpressure ----------------------------------------------------------------

/**
 * Batched writes to stdout that respect backpressure: text is gathered into ~64 KiB writes and,
 * when `write()` returns false, the caller waits for 'drain'. A closed reader (EPIPE, e.g.
 * `adsnap parse … | head`) sets `closed` instead of throwing, so the command can stop early.
 */
class StdoutWriter {
  closed = false;
  private buf = '';
  private wake: (() => void) | null = null;

  constructor(private readonly stream: NodeJS.WritableStream) {
    stream.on('error', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  async write(text: string): Promise<void> {
    this.buf += text;
    if (this.buf.length >= 64 * 1024) await this.flush();
  }

  async flush(): Promise<void> {
    const text = this.buf;
    this.buf = '';
    if (text.length === 0 || this.closed) return;
    if (this.stream.write(text) || this.closed) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.wake = null;
        this.stream.off('drain', done);
        resolve();
      };
      this.wake = done;
      this.stream.on('drain', done);
    });
  }
}
