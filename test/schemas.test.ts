import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_STATUSES, OBTAINED, tableNames, tables, type Column, type ColumnType, type TableName } from '../schemas/tables.js';
import { repoRoot } from './helpers/corpus.js';

describe('schemas', () => {
  it('has every contract §3 table and column, with the type and nullability the contract states', () => {
    // 'int' is either integer width; a trailing '?' marks a column the contract says may be null.
    const want: Record<string, string[]> = {
      targets: ['target:string', 'target_kind:string', 'rank:int?', 'source:string', 'input_line:int'],
      fetches: ['url:string', 'host:string', 'file_kind:string', 'status_code:int?', 'final_url:string', 'redirects:string[]', 'content_type:string', 'bytes:int64', 'truncated:bool', 'sha256:string', 'etag:string', 'last_modified:string', 'error:string?', 'started_at:timestamp', 'duration_ms:int'],
      files: ['subject:string', 'file_kind:string', 'via:string', 'url:string?', 'status:string', 'http_status:int', 'valid:bool', 'robots_allowed:bool?', 'records:int', 'variables:int', 'errors:int', 'warnings:int', 'bytes:int', 'sha256:string', 'obtained:string', 'age_days:double?'],
      ads_records: ['subject:string', 'file_kind:string', 'line_no:int', 'ad_system_domain:string', 'seller_account_id:string', 'relationship:string', 'cert_authority_id:string?', 'extension:string?'],
      ads_variables: ['subject:string', 'file_kind:string', 'line_no:int', 'name:string', 'value:string', 'value_domain:string?', 'value_country:string?'],
      parse_issues: ['subject:string', 'file_kind:string', 'line_no:int?', 'severity:string', 'code:string', 'message:string', 'line_text:string'],
      hops: ['from_subject:string', 'from_file_kind:string', 'kind:string', 'to_subject:string', 'outcome:string', 'reason:string?'],
      robots_rules: ['host:string', 'group_no:int', 'user_agent:string', 'directive:string', 'path:string', 'line_no:int'],
      robots_sitemaps: ['host:string', 'url:string', 'line_no:int'],
      robots_verdicts: ['host:string', 'user_agent:string', 'path:string', 'allowed:bool', 'matched_line:int?'],
      apps: ['store:string', 'store_url:string', 'bundle_id:string', 'store_id:string', 'developer_url:string', 'subject:string?', 'status:string'],
      sellers: ['ad_system_domain:string', 'seller_id:string', 'seller_type:string', 'name:string', 'domain:string', 'is_confidential:bool', 'is_passthrough:bool', 'comment:string'],
    };
    const TYPES: Record<string, readonly ColumnType[]> = { int: ['int32', 'int64'], int64: ['int64'], bool: ['bool'], string: ['string'], 'string[]': ['string[]'], timestamp: ['timestamp'], double: ['double'] };
    expect(tableNames).toEqual(expect.arrayContaining(Object.keys(want)));
    for (const [name, cols] of Object.entries(want)) {
      const have = new Map((tables[name as TableName].columns as readonly Column[]).map((c) => [c.name, c]));
      expect(have.size, `${name} has duplicate columns`).toBe(tables[name as TableName].columns.length);
      for (const spec of cols) {
        const [col, type] = spec.replace(/\?$/, '').split(':') as [string, string];
        const c = have.get(col);
        expect(c && [c.name, TYPES[type]!.includes(c.type)], `${name}.${col}`).toEqual([col, true]);
        if (spec.endsWith('?')) expect(c!.nullable, `${name}.${col} may be null`).not.toBe(false);
      }
    }
  });

  it("closes files.status and files.obtained over the contract's values", () => {
    const statuses = ['ok', 'placeholder', 'empty', 'html', 'invalid_content_type', 'too_large', 'not_found', 'unauthorized', 'blocked', 'rate_limited', 'http_error', 'redirect_error', 'unreachable', 'disallowed_by_robots'];
    expect(FILE_STATUSES).toEqual(expect.arrayContaining(statuses));
    expect([...OBTAINED].sort()).toEqual(['carried_forward', 'fetched', 'reused', 'revalidated']);
  });

  it('the tables reference (docs/reference/tables.md, generated: npm run docs) has every table and column', async () => {
    const page = await readFile(path.join(repoRoot, 'docs', 'reference', 'tables.md'), 'utf8');
    for (const t of Object.values(tables)) {
      expect(page, t.name).toContain(`## ${t.name}\n\nOne row per ${t.grain}.`);
      for (const c of t.columns) expect(page, `${t.name}.${c.name}`).toContain(`| \`${c.name}\` | ${c.type} |`);
    }
  });
});
