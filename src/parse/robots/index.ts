/**
 * robots.txt support (RFC 9309; Google's spec and reference implementation where the RFC is
 * silent): an incremental parser, a compile-once matcher, access results and verdicts.
 */
export type { RobotsDirective, RobotsGroup, RobotsIssue, RobotsIssueSeverity, RobotsRule, RobotsStatus, RobotsTxt } from './types.js';
export { RobotsParser, parseRobotsTxt, ROBOTS_PARSE_LIMIT, ROBOTS_MAX_LINE_OCTETS, type RobotsParserOptions } from './robots-parser.js';
export { RobotsMatcher, ROBOTS_SEMANTICS, isRobotsSemantics, type RobotsCheck, type RobotsCheckOptions, type RobotsMatcherOptions, type RobotsSemantics } from './robots-matcher.js';
export { robotsAccess, robotsPolicy, rulesPolicy, checkPolicy, type RobotsAccess, type RobotsHttpOutcome, type RobotsPolicy } from './access.js';
export { verdicts, DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS, type RobotsVerdict } from './verdicts.js';
export { pathFromUrl } from './url-path.js';
export { normalisePattern, normaliseUrlPath, escapeGooglePattern, urlPathOctets } from './percent-encoding.js';
export { isValidProductToken, productTokenOf } from './user-agent.js';
export { robotsRuleRows, type RobotsRuleRow } from './rule-rows.js';
export { licenseLines, type LicenseLine } from './licenses.js';
export type { ManagedBlock } from './managed-blocks.js';
