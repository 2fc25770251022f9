/**
 * /llms.txt, the llms.txt proposal (Jeremy Howard, llmstxt.org, 2024-09-03): a Markdown file
 * whose one required part is an H1 with the name of the site or project, then optionally a
 * blockquote summary, free text, and H2 sections listing Markdown links `[name](url)`.
 *
 * What is kept is what an adoption study counts: the title, the summary, the sections and links.
 * Whether the body is an HTML page instead (a soft 404) is the caller's question (the same
 * sniffer as robots.txt), so `markdown` here means only "opens with an H1 title".
 */
import { consentIssue, type ConsentIssue } from './issue-codes.js';

export interface LlmsTxt {
  /** An H1 title was found (the proposal's one required section). */
  titled: boolean;
  title: string | null;
  summary: string | null;
  sections: number;
  links: number;
  issues: ConsentIssue[];
}

const H2 = /^##[ \t]+\S/;
// `[text](url "title")`. Neither the text nor the URL may hold a `[`: every match attempt then
// stops at the next `[`, so a hostile line of brackets costs linear time, not quadratic.
const LINK = /\[[^[\]\n]*\]\([^()[\s]+(?:[ \t]+"[^"\n]*")?\)/g;
const SUMMARY_MAX = 256;

export function parseLlmsTxt(text: string): LlmsTxt {
  const issues: ConsentIssue[] = [];
  let title: string | null = null;
  let summary: string | null = null;
  let sections = 0;
  let links = 0;
  let fenced = false;
  let beforeTitle = 0;
  let lineNo = 0;
  let afterTitle = false;
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    lineNo++;
    const line = raw.trimEnd();
    if (/^(```|~~~)/.test(line.trimStart())) fenced = !fenced;
    if (fenced || line.trim() === '') continue;
    if (title === null) {
      const h1 = headingText(line);
      if (h1 !== null) {
        title = h1;
        afterTitle = true;
        if (beforeTitle > 0) issues.push(consentIssue('LLMS_TITLE_NOT_FIRST', `${beforeTitle} line(s) of text before the H1 title`, lineNo, line));
        continue;
      }
      beforeTitle++;
    } else if (afterTitle && line.startsWith('>')) {
      const part = line.replace(/^>[ \t]?/, '');
      summary = summary === null ? part : `${summary} ${part}`;
      continue;
    }
    afterTitle = false;
    if (H2.test(line)) sections++;
    links += line.match(LINK)?.length ?? 0;
  }
  if (title === null) issues.push(consentIssue('LLMS_NO_TITLE', 'no H1 title (# Name): not an llms.txt'));
  if (summary !== null && summary.length > SUMMARY_MAX) summary = summary.slice(0, SUMMARY_MAX);
  return { titled: title !== null, title, summary, sections, links, issues };
}

/**
 * The text of an ATX H1 (`# Title`, an optional closing run of `#`), or null. Written without a
 * regular expression: a lazy group before a trailing `[ #]*$` backtracks quadratically on a line
 * of `# # # …`.
 */
function headingText(line: string): string | null {
  if (line[0] !== '#' || (line[1] !== ' ' && line[1] !== '\t')) return null;
  let text = line.slice(2).trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  // A closing sequence counts only after a space (CommonMark §4.2); `# C#` keeps its `#`.
  if (end < text.length && (end === 0 || text[end - 1] === ' ' || text[end - 1] === '\t')) text = text.slice(0, end).trimEnd();
  return text === '' ? null : text;
}
