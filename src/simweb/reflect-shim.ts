/**
 * @peculiar/x509 uses tsyringe, which refuses to load unless `Reflect.getMetadata` exists (it
 * expects the reflect-metadata package). tsyringe only stores and reads constructor metadata, so a
 * WeakMap-backed stand-in of the three functions it calls is enough and avoids a dependency.
 * Import this module before '@peculiar/x509'. An existing polyfill is left alone.
 */
type Key = unknown;
const store = new WeakMap<object, Map<Key, unknown>>();
const R = Reflect as unknown as Record<string, unknown>;

if (typeof R.getMetadata !== 'function') {
  const own = (key: Key, target: object): unknown => store.get(target)?.get(key);
  R.defineMetadata = (key: Key, value: unknown, target: object): void => {
    let m = store.get(target);
    if (!m) store.set(target, (m = new Map()));
    m.set(key, value);
  };
  R.getOwnMetadata = own;
  R.getMetadata = (key: Key, target: object): unknown => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t) as object | null) {
      const v = own(key, t);
      if (v !== undefined) return v;
    }
    return undefined;
  };
}
export {};
