/** Flattens groups into one row per (rule, user agent) — the grain of the `robots_rules` table. */
import type { RobotsTxt } from './types.js';

export interface RobotsRuleRow {
  groupNo: number;
  userAgent: string;
  directive: 'allow' | 'disallow';
  path: string;
  lineNo: number;
}

export function robotsRuleRows(txt: RobotsTxt): RobotsRuleRow[] {
  const rows: RobotsRuleRow[] = [];
  for (const g of txt.groups) {
    for (const r of g.rules) {
      for (const userAgent of g.userAgents) rows.push({ groupNo: g.groupNo, userAgent, directive: r.directive, path: r.path, lineNo: r.lineNo });
    }
  }
  return rows;
}
