/**
 * Checks that a value read back from disk (a JSON checkpoint, a shard's report) has the shape the
 * code expects, and says where it does not: a `Shape<T>` either returns the value as a `T` or
 * throws `ShapeError` naming the path (`referrals.partners[3]`). The type is inferred from the
 * shape (`ShapeOf<typeof s>`), so a declared type and its check cannot drift apart unnoticed:
 * `const s: Shape<Declared> = object({...})` fails to compile when they differ.
 *
 * Small on purpose: plain objects, arrays, records, literals and the JSON scalars are all a
 * checkpoint holds; keys a shape does not name are kept as they are (an older or newer writer's
 * extra fields are not an error, a missing or wrong one is).
 */
export type Shape<T> = (value: unknown, at: string) => T;
export type ShapeOf<S> = S extends Shape<infer T> ? T : never;

export class ShapeError extends Error {
  constructor(
    readonly at: string,
    readonly why: string,
  ) {
    super(`${at} ${why}`);
    this.name = 'ShapeError';
  }
}

/** Checks `value` against `shape`; `at` names the root in error messages. */
export function check<T>(shape: Shape<T>, value: unknown, at = 'value'): T {
  return shape(value, at);
}

const fail = (at: string, why: string): never => {
  throw new ShapeError(at, why);
};

export const str: Shape<string> = (v, at) => (typeof v === 'string' ? v : fail(at, 'is not a string'));
export const bool: Shape<boolean> = (v, at) => (typeof v === 'boolean' ? v : fail(at, 'is not true or false'));
/** A whole number ≥ 0 (counts, sizes, indexes). */
export const count: Shape<number> = (v, at) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : fail(at, 'is not a whole number ≥ 0'));
/** Any finite number (durations in ms, which may be fractional). */
export const num: Shape<number> = (v, at) => (typeof v === 'number' && Number.isFinite(v) ? v : fail(at, 'is not a number'));

/** A string matching `re` (`what` says what it should be). */
export function matching(re: RegExp, what: string): Shape<string> {
  return (v, at) => (typeof v === 'string' && re.test(v) ? v : fail(at, `is not ${what}`));
}

/** One of the listed strings. */
export function oneOf<const V extends string>(values: readonly V[]): Shape<V> {
  return (v, at) => ((values as readonly unknown[]).includes(v) ? (v as V) : fail(at, `is ${JSON.stringify(v)}, not one of ${values.join(', ')}`));
}

export function nullable<T>(shape: Shape<T>): Shape<T | null> {
  return (v, at) => (v === null ? null : shape(v, at));
}

/** A field a writer may leave out (older checkpoints): absent stays absent. */
export function optional<T>(shape: Shape<T>): Shape<T | undefined> {
  return (v, at) => (v === undefined ? undefined : shape(v, at));
}

export function array<T>(item: Shape<T>): Shape<T[]> {
  return (v, at) => {
    if (!Array.isArray(v)) return fail(at, 'is not a list');
    v.forEach((x, i) => item(x, `${at}[${i}]`));
    return v as T[];
  };
}

/** A pair `[key, value]` (a Map's entries, as JSON writes them). */
export function pair<A, B>(a: Shape<A>, b: Shape<B>): Shape<[A, B]> {
  return (v, at) => {
    if (!Array.isArray(v) || v.length !== 2) return fail(at, 'is not a pair');
    a(v[0], `${at}[0]`);
    b(v[1], `${at}[1]`);
    return v as [A, B];
  };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object whose every key passes `key` and every value `value`. */
export function record<K extends string, T>(key: Shape<K>, value: Shape<T>): Shape<Partial<Record<K, T>>> {
  return (v, at) => {
    if (!isPlainObject(v)) return fail(at, 'is not an object');
    for (const [k, x] of Object.entries(v)) {
      key(k, `${at} key ${JSON.stringify(k)}`);
      value(x, `${at}.${k}`);
    }
    return v as Partial<Record<K, T>>;
  };
}

type Fields = Record<string, Shape<unknown>>;
/** Fields whose shape admits `undefined` may be left out. */
type Optionals<F extends Fields> = { [K in keyof F]: undefined extends ShapeOf<F[K]> ? K : never }[keyof F];
type ObjectOf<F extends Fields> = { [K in Exclude<keyof F, Optionals<F>>]: ShapeOf<F[K]> } & { [K in Optionals<F>]?: ShapeOf<F[K]> };

/** An object with (at least) these fields. */
export function object<F extends Fields>(fields: F): Shape<{ [K in keyof ObjectOf<F>]: ObjectOf<F>[K] }> {
  return (v, at) => {
    if (!isPlainObject(v)) return fail(at, 'is not an object');
    for (const [k, shape] of Object.entries(fields)) shape(v[k], `${at}.${k}`);
    return v as { [K in keyof ObjectOf<F>]: ObjectOf<F>[K] };
  };
}

/** `shape`, and then a condition across its fields (`why` says what failed). */
export function where<T>(shape: Shape<T>, ok: (value: T) => boolean, why: string): Shape<T> {
  return (v, at) => {
    const x = shape(v, at);
    return ok(x) ? x : fail(at, why);
  };
}

/** Exactly `value` (a format's version number). */
export function literal<const V extends string | number | boolean>(value: V): Shape<V> {
  return (v, at) => (v === value ? value : fail(at, `is ${JSON.stringify(v)}, not ${JSON.stringify(value)}`));
}
