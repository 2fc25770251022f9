/**
 * An entry's keys read under the spec's names. Real files write `sellerId`, `SellerType`,
 * `buyer-id`: each spelling that folds (case, `_`, `-`, spaces) onto a spec field is read as that
 * field, with a NONSTANDARD_KEY issue once per file; a key that is no field in any spelling is
 * UNKNOWN_KEY (extensions belong in `ext`, sellers.json 1.0 and buyers.json 1.0); a field written
 * twice is DUPLICATE_KEY, the value written last kept (as JSON.parse does).
 */

export interface EntryKeys {
  /** The spec's names. */
  readonly spec: ReadonlySet<string>;
  /** A spelling folded (lower case; no `_`, `-` or space) → the spec's name. */
  readonly folded: Readonly<Record<string, string>>;
}

const fold = (key: string) => key.replace(/[_\-\s]/g, '').toLowerCase();

export function entryKeys(specNames: readonly string[]): EntryKeys {
  return { spec: new Set(specNames), folded: Object.fromEntries(specNames.map((k) => [fold(k), k])) };
}

/** The spec's name for a key written differently (`sellerId` → `seller_id`), or the key itself. */
export function canonicalKey(keys: EntryKeys, key: string): string {
  if (keys.spec.has(key)) return key;
  return keys.folded[fold(key)] ?? key;
}

export interface EntryKeyEvents {
  onRenamed(written: string, canonical: string): void;
  onUnknown(key: string): void;
  onRepeated(message: string): void;
}

/**
 * The entry's fields under their canonical names. `entryText` and `keysWritten` (the `:` outside
 * strings the scanner counted) let a key written twice be seen, which the parsed object hides.
 */
export function canonicalFields(keys: EntryKeys, entry: Record<string, unknown>, entryText: string, keysWritten: number, on: EntryKeyEvents): Record<string, unknown> {
  const written = repeatedKeys(entry, entryText, keysWritten);
  // Fast path (nearly every real entry): all keys already as the spec writes them, none repeated.
  if (written === null && allSpec(keys, entry)) return entry;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const fields = new Map<string, { at: number; count: number; spellings: string[] }>();
  let index = 0;
  for (const key of Object.keys(entry)) {
    const canonical = canonicalKey(keys, key);
    if (canonical !== key) on.onRenamed(key, canonical);
    else if (!keys.spec.has(key)) on.onUnknown(key);
    const w = written?.get(key);
    const at = w?.last ?? index; // with `written`, every top-level key is in it
    index++;
    const field = fields.get(canonical);
    if (field === undefined) {
      fields.set(canonical, { at, count: w?.count ?? 1, spellings: [key] });
      out[canonical] = entry[key];
      continue;
    }
    field.count += w?.count ?? 1;
    field.spellings.push(key);
    if (at > field.at) {
      field.at = at;
      out[canonical] = entry[key];
    }
  }
  for (const [canonical, f] of fields) if (f.count > 1) on.onRepeated(repeatedMessage(canonical, f.count, f.spellings));
  return out;
}

function allSpec(keys: EntryKeys, entry: Record<string, unknown>): boolean {
  for (const key in entry) if (!keys.spec.has(key)) return false;
  return true;
}

function repeatedMessage(field: string, count: number, spellings: readonly string[]): string {
  return spellings.length === 1
    ? `${JSON.stringify(spellings[0])} is written ${count} times in this entry; the last value is kept (as JSON.parse does)`
    : `${JSON.stringify(field)} is written ${count} times in this entry (as ${spellings.map((k) => JSON.stringify(k)).join(', ')}); the last value is kept, as for a key written twice`;
}

/** How often a key is written at the entry's top level, and where it is written last. */
interface KeyWritten {
  count: number;
  last: number;
}

/**
 * Keys written at the entry's top level, with how often and the offset of the last one; null
 * when none is written twice. JSON.parse keeps the last value of a repeated key without a word,
 * so only the text can tell. When the parsed value has as many keys as the scanner counted,
 * nothing was repeated, so the text is scanned only for the rare entry with a repeat somewhere.
 */
function repeatedKeys(entry: Record<string, unknown>, entryText: string, keysWritten: number): Map<string, KeyWritten> | null {
  if (entryText === '' || keysWritten <= keyCount(entry)) return null;
  const counts = new Map<string, KeyWritten>();
  let repeated = false;
  let depth = 0;
  const n = entryText.length;
  for (let i = 0; i < n; i++) {
    const c = entryText.charCodeAt(i);
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    else if (c === 34) {
      const start = i;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = entryText.charCodeAt(i);
        if (d === 92) {
          escaped = true;
          i++;
        } else if (d === 34) break;
      }
      if (depth !== 1) continue;
      let j = i + 1;
      while (j < n && isJsonSpace(entryText.charCodeAt(j))) j++;
      if (entryText.charCodeAt(j) !== 58) continue; // a string value, not a key
      const raw = entryText.slice(start, i + 1);
      const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      const seen = counts.get(key);
      if (seen === undefined) counts.set(key, { count: 1, last: start });
      else {
        repeated = true;
        seen.count++;
        seen.last = start;
      }
    }
  }
  return repeated ? counts : null; // not repeated: the repeat was inside a nested object (`ext`)
}

/** Keys of an object and of every object nested in it (arrays included). */
function keyCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const v of value) count += keyCount(v);
    return count;
  }
  for (const key in value) {
    count++;
    const v = (value as Record<string, unknown>)[key];
    if (v !== null && typeof v === 'object') count += keyCount(v);
  }
  return count;
}

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
