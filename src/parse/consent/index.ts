/**
 * Consent signals beyond robots.txt, read with `crawl --ai-signals`: TDMRep's tdmrep.json, an RSL
 * licence, llms.txt (docs/reference/ai-signals.md). Each parser takes the whole (capped) body as
 * text: these files are small, and their formats (JSON, XML, Markdown) are read as a whole.
 */
export { parseTdmRep, matchesRoot, type TdmRep, type TdmRule } from './tdmrep.js';
export { parseRsl, RSL_NAMESPACE, type RslDocument, type RslLicense } from './rsl.js';
export { parseLlmsTxt, type LlmsTxt } from './llms-txt.js';
export { consentIssueCodes, type ConsentFileKind, type ConsentIssue, type ConsentIssueCode } from './issue-codes.js';
