import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tables } from '../schemas/tables.js';
import { repoRoot } from './helpers/corpus.js';

describe('schemas', () => {
  it('names every contract §3 table and column', () => {
    const want: Record<string, string[]> = {
      targets: ['target', 'target_kind', 'rank', 'source', 'input_line'],
      fetches: ['url', 'host', 'file_kind', 'status_code', 'final_url', 'redirects', 'content_type', 'bytes', 'truncated', 'sha256', 'etag', 'last_modified', 'error', 'started_at', 'duration_ms'],
      files: ['subject', 'file_kind', 'via', 'url', 'status', 'http_status', 'valid', 'robots_allowed', 'records', 'variables', 'errors', 'warnings', 'bytes', 'sha256'],
      ads_records: ['subject', 'file_kind', 'line_no', 'ad_system_domain', 'seller_account_id', 'relationship', 'cert_authority_id', 'extension'],
      ads_variables: ['subject', 'file_kind', 'line_no', 'name', 'value', 'value_domain', 'value_country'],
      parse_issues: ['subject', 'file_kind', 'line_no', 'severity', 'code', 'message', 'line_text'],
      hops: ['from_subject', 'from_file_kind', 'kind', 'to_subject', 'outcome', 'reason'],
      robots_rules: ['host', 'group_no', 'user_agent', 'directive', 'path', 'line_no'],
      robots_sitemaps: ['host', 'url', 'line_no'],
      robots_verdicts: ['host', 'user_agent', 'path', 'allowed', 'matched_line'],
      apps: ['store', 'store_url', 'bundle_id', 'store_id', 'developer_url', 'subject', 'status'],
      sellers: ['ad_system_domain', 'seller_id', 'seller_type', 'name', 'domain', 'is_confidential', 'is_passthrough', 'comment'],
    };
    for (const [name, cols] of Object.entries(want)) {
      const schema = tables[name as keyof typeof tables];
      expect(schema, name).toBeDefined();
      const have = schema.columns.map((c) => c.name);
      for (const col of cols) expect(have, `${name}.${col}`).toContain(col);
      expect(new Set(have).size, `${name} has duplicate columns`).toBe(have.length);
    }
  });

  it('the tables reference (docs/reference/tables.md, generated: npm run docs) has every table and column', async () => {
    const page = await readFile(path.join(repoRoot, 'docs', 'reference', 'tables.md'), 'utf8');
    for (const t of Object.values(tables)) {
      expect(page, t.name).toContain(`## ${t.name}\n\nOne row per ${t.grain}.`);
      for (const c of t.columns) expect(page, `${t.name}.${c.name}`).toContain(`| \`${c.name}\` | ${c.type} |`);
    }
  });
});
