/**
 * `adsnap parse --kind robots.txt` (contract §1): the parsed file as events in file order —
 * `group` (at its first user-agent line), `rule`, `sitemap`, `other`, each line's issues after
 * it, file-level issues, then the summary. A robots.txt is parsed up to 500 KiB (RFC 9309 §2.5),
 * so the events are built from the whole parse and then sorted by line.
 */
import { RobotsParser, type RobotsIssue, type RobotsTxt } from '../../parse/robots/index.js';
import type { FileKind, ParseEvent, ParseKind } from './kind.js';

export function issueEvent(i: RobotsIssue): ParseEvent {
  return { type: 'issue', line_no: i.lineNo, severity: i.severity, code: i.code, message: i.message, line_text: i.lineText };
}

export function summaryEvent(txt: RobotsTxt): ParseEvent {
  const count = (s: string) => txt.issues.filter((i) => i.severity === s).length;
  return {
    type: 'summary',
    status: txt.status,
    groups: txt.groups.length,
    rules: txt.groups.reduce((n, g) => n + g.rules.length, 0),
    sitemaps: txt.sitemaps.length,
    others: txt.others.length,
    errors: count('error'),
    warnings: count('warning'),
    infos: count('info'),
    lines: txt.lines,
    bytes: txt.bytes,
    truncated: txt.truncated,
  };
}

/** All events but the summary, in file order (records before the issues of their line). */
export function robotsEvents(txt: RobotsTxt): ParseEvent[] {
  const lined: { line: number; rank: number; seq: number; event: ParseEvent }[] = [];
  let seq = 0;
  const add = (line: number, rank: number, event: ParseEvent) => lined.push({ line, rank, seq: seq++, event });
  for (const g of txt.groups) {
    add(g.lineNo, 0, { type: 'group', line_no: g.lineNo, user_agents: g.userAgents });
    for (const r of g.rules) add(r.lineNo, 1, { type: 'rule', line_no: r.lineNo, user_agents: g.userAgents, directive: r.directive, path: r.path });
  }
  for (const s of txt.sitemaps) add(s.lineNo, 1, { type: 'sitemap', line_no: s.lineNo, url: s.url });
  for (const o of txt.others) add(o.lineNo, 1, { type: 'other', line_no: o.lineNo, name: o.name, value: o.value });
  const fileLevel: ParseEvent[] = [];
  for (const i of txt.issues) {
    if (i.lineNo === null) fileLevel.push(issueEvent(i));
    else add(i.lineNo, 2, issueEvent(i));
  }
  lined.sort((a, b) => a.line - b.line || a.rank - b.rank || a.seq - b.seq);
  return [...lined.map((x) => x.event), ...fileLevel];
}

export const kind: ParseKind = {
  async *events(body: AsyncIterable<Uint8Array>, fileKind: FileKind): AsyncIterable<ParseEvent> {
    if (fileKind !== 'robots.txt') throw new TypeError(`robots kind cannot parse ${fileKind}`);
    const parser = new RobotsParser();
    for await (const chunk of body) parser.push(chunk);
    const txt = parser.end();
    yield* robotsEvents(txt);
    yield summaryEvent(txt);
  },
};
