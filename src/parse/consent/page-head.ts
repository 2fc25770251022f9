/**
 * The head of a site's home page, read as a stream up to its end (crawl --ai-signals;
 * docs/reference/ai-signals.md#the-home-page): the robots meta tags (`<meta name="robots">` and
 * those named for an agent, Google's robots meta specification), TDMRep's HTML meta technique
 * (`<meta name="tdm-reservation">`, `tdm-policy`: TDMRep, "TDM Metadata in HTML Content") and RSL's
 * `<link rel="license" type="application/rsl+xml">` (RSL 1.0, "Linking from HTML").
 *
 * Where the head ends follows the HTML parser's "in head" insertion mode (HTML Living Standard
 * §13.2.6.4.4): at `</head>`, or at the first start tag that cannot stand in a head (`<body>`,
 * `<div>`…), which opens the body. A meta tag after that is in the body and does not count. The
 * reader says when the head is over, so the caller stops reading (and the transfer is aborted).
 * Tokenized by htmlparser2 through the flat reader (no element stack: linear in the bytes).
 */
import { FlatHtmlReader } from '../store/html-reader.js';

/** How the reading of the head ended. `cut`: still open at the byte cap; `unclosed`: the page ended first. */
export type HeadEnd = 'closed' | 'body' | 'unclosed' | 'cut';

export interface PageHead {
  end: HeadEnd;
  /** Robots meta tags in document order: `agent` is '*' for name="robots", else the name, lower-cased. */
  robots: { agent: string; content: string }[];
  /** The first `tdm-reservation` / `tdm-policy` meta contents, as written (trimmed). */
  tdmReservation: string | null;
  tdmPolicy: string | null;
  /** href of each `<link rel="license" type="application/rsl+xml">`, as written, in order. */
  licenses: string[];
}

/** Start tags the "in head" mode keeps in the head (§13.2.6.4.4); any other opens the body. */
const HEAD_TAGS: ReadonlySet<string> = new Set(['html', 'head', 'base', 'basefont', 'bgsound', 'link', 'meta', 'noscript', 'script', 'style', 'template', 'title']);

export const RSL_MEDIA_TYPE = 'application/rsl+xml';

/**
 * Push the body's chunks until `push` returns true (the head is over), then `end`. `agents`:
 * lower-cased meta names read as robots tags for one agent (`googlebot`, `gptbot`…), beside
 * `robots` itself.
 */
export class PageHeadReader {
  private readonly reader: FlatHtmlReader;
  private readonly decoder = new TextDecoder('utf-8');
  private done: 'closed' | 'body' | null = null;
  private readonly head: PageHead = { end: 'unclosed', robots: [], tdmReservation: null, tdmPolicy: null, licenses: [] };

  constructor(private readonly agents: ReadonlySet<string>) {
    this.reader = new FlatHtmlReader({
      onopentag: (name, attribs) => this.open(name, attribs),
      ontext: () => {},
      onclosetag: (name) => {
        if (name === 'head' && this.done === null) this.done = 'closed';
      },
    });
  }

  /** Reads one chunk; true when the head is over (read nothing more). */
  push(chunk: Uint8Array): boolean {
    if (this.done !== null) return true;
    this.reader.write(this.decoder.decode(chunk, { stream: true }));
    return this.done !== null;
  }

  /** `cut`: the body stopped at the byte cap (fetches.truncated). */
  end(cut: boolean): PageHead {
    if (this.done === null) {
      this.reader.write(this.decoder.decode());
      this.reader.end();
    }
    this.head.end = this.done ?? (cut ? 'cut' : 'unclosed');
    return this.head;
  }

  private open(name: string, a: Record<string, string>): void {
    if (this.done !== null) return;
    if (!HEAD_TAGS.has(name)) {
      this.done = 'body';
      return;
    }
    if (name === 'meta') this.meta(a);
    else if (name === 'link' && a.href !== undefined && relHas(a.rel, 'license') && (a.type ?? '').trim().toLowerCase() === RSL_MEDIA_TYPE) {
      this.head.licenses.push(a.href.trim());
    }
  }

  private meta(a: Record<string, string>): void {
    const name = (a.name ?? '').trim().toLowerCase();
    const content = a.content;
    if (name === '' || content === undefined) return;
    if (name === 'robots' || this.agents.has(name)) this.head.robots.push({ agent: name === 'robots' ? '*' : name, content });
    else if (name === 'tdm-reservation') this.head.tdmReservation ??= content.trim();
    else if (name === 'tdm-policy') this.head.tdmPolicy ??= content.trim();
  }
}

/** A rel attribute's space-separated link types contain `type` (HTML: ASCII case-insensitive). */
export function relHas(rel: string | undefined, type: string): boolean {
  return rel !== undefined && rel.toLowerCase().split(/[\t\n\f\r ]+/).includes(type);
}
