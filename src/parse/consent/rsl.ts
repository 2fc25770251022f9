/**
 * An RSL licence (Really Simple Licensing 1.0, RSL Technical Steering Committee, 2025): an XML
 * document whose `<rsl xmlns="https://rslstandard.org/rsl">` root holds `<content url>` elements
 * (a URL or a robots.txt path pattern), each with `<license>` elements that list what
 * `<permits type="usage|user|geo">` allows, what `<prohibits>` forbids, and a `<payment type>`.
 *
 * Read with htmlparser2's tokenizer in XML mode through the flat reader (no element stack: a
 * hostile nesting costs linear time). Elements are matched by local name, so the `rsl:` prefix of
 * an RSS feed's licence reads the same. Nothing else of the licence (amounts, legal, schema) is kept.
 */
import { FlatHtmlReader } from '../store/html-reader.js';
import { consentIssue, type ConsentIssue } from './issue-codes.js';

export const RSL_NAMESPACE = 'https://rslstandard.org/rsl';
const TERM_TYPES = new Set(['usage', 'user', 'geo']);

export interface RslLicense {
  contentNo: number;
  contentUrl: string | null;
  /** null for a `<content>` without a `<license>` (one row stands for it). */
  licenseNo: number | null;
  /** 'type:value' terms, in document order. */
  permits: string[];
  prohibits: string[];
  /** `<payment type>`, 'free' when the element has none (the specification's default), null without `<payment>`. */
  paymentType: string | null;
}

export interface RslDocument {
  /** False when the document has no `<rsl>` root (RSL_NO_RSL_ROOT). */
  rsl: boolean;
  licenses: RslLicense[];
  issues: ConsentIssue[];
}

interface Term { list: 'permits' | 'prohibits'; type: string; text: string }

export function parseRsl(text: string): RslDocument {
  const issues: ConsentIssue[] = [];
  const licenses: RslLicense[] = [];
  let root: boolean | null = null; // null until the first element
  let contentNo = 0;
  let content: { no: number; url: string | null; licenses: number } | null = null;
  let license: RslLicense | null = null;
  let term: Term | null = null;

  const closeContent = () => {
    if (content === null) return;
    if (content.licenses === 0) {
      issues.push(consentIssue('RSL_CONTENT_NO_LICENSE', `<content> ${content.no} has no <license>`));
      licenses.push({ contentNo: content.no, contentUrl: content.url, licenseNo: null, permits: [], prohibits: [], paymentType: null });
    }
    content = null;
  };
  const reader = new FlatHtmlReader(
    {
      onopentag(raw, attribs) {
        const name = localName(raw);
        if (root === null) {
          root = name === 'rsl';
          if (root && attribs.xmlns !== RSL_NAMESPACE && attribs['xmlns:rsl'] !== RSL_NAMESPACE) {
            issues.push(consentIssue('RSL_WRONG_NAMESPACE', `<rsl> namespace is ${JSON.stringify(attribs.xmlns ?? null)}, not ${RSL_NAMESPACE}`));
          }
        }
        if (!root) return;
        if (name === 'content') {
          closeContent();
          content = { no: ++contentNo, url: attribs.url ?? null, licenses: 0 };
          if (content.url === null) issues.push(consentIssue('RSL_CONTENT_NO_URL', `<content> ${content.no} has no url attribute`));
        } else if (name === 'license' && content !== null) {
          license = { contentNo: content.no, contentUrl: content.url, licenseNo: ++content.licenses, permits: [], prohibits: [], paymentType: null };
          licenses.push(license);
        } else if ((name === 'permits' || name === 'prohibits') && license !== null) {
          term = { list: name, type: termType(attribs.type, name, issues), text: '' };
        } else if (name === 'payment' && license !== null) {
          license.paymentType = attribs.type?.trim() || 'free';
        }
      },
      ontext(t) {
        if (term !== null) term.text += t;
      },
      onclosetag(raw) {
        const name = localName(raw);
        if ((name === 'permits' || name === 'prohibits') && term !== null && license !== null) {
          const t = term;
          for (const v of t.text.split(/[\s,]+/).filter(Boolean)) license[t.list].push(`${t.type}:${v}`);
          term = null;
        } else if (name === 'license') {
          license = null;
        } else if (name === 'content') {
          closeContent();
        }
      },
    },
    true,
  );
  reader.write(text);
  reader.end();
  closeContent();
  if (!root) issues.push(consentIssue('RSL_NO_RSL_ROOT', 'the document does not open with an <rsl> element'));
  else if (contentNo === 0) issues.push(consentIssue('RSL_NO_CONTENT', 'no <content> element'));
  return { rsl: root === true, licenses, issues };
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function termType(type: string | undefined, element: string, issues: ConsentIssue[]): string {
  const t = type?.trim().toLowerCase() ?? '';
  if (t === '') {
    issues.push(consentIssue('RSL_TERM_NO_TYPE', `<${element}> without a type attribute; kept as type 'unknown'`));
    return 'unknown';
  }
  if (!TERM_TYPES.has(t)) issues.push(consentIssue('RSL_UNKNOWN_TERM_TYPE', `<${element} type="${t}">: the types are usage, user, geo; kept`));
  return t;
}
