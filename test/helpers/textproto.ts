/**
 * A reader for the protobuf text format as the robotstxt-spec-test files use it (corpus
 * conformance/robotstxt-spec-test): `name: value` fields, `name: [ {…}, {…} ]` lists, `{…}`
 * messages, adjacent string literals concatenated, C escapes in strings (`\n`, `\"`, `\\`,
 * octal `\303`, hex `\xff`), enums as bare words, `#` comments. Strings are returned as octet
 * strings (one char per byte), since robots.txt bodies need not be UTF-8.
 */
export type TextprotoValue = string | TextprotoMessage | TextprotoValue[];
export interface TextprotoMessage {
  [field: string]: TextprotoValue[];
}

export function parseTextproto(text: string): TextprotoMessage {
  // Work on the file's octets so that escapes and raw UTF-8 both end up as bytes.
  const src = Buffer.from(text, 'utf8').toString('latin1');
  let i = 0;
  const skip = () => {
    for (;;) {
      while (i < src.length && /\s|,/.test(src[i]!)) i++;
      if (src[i] !== '#') return;
      while (i < src.length && src[i] !== '\n') i++;
    }
  };
  const string = (): string => {
    let out = '';
    while (src[i] === '"' || src[i] === "'") {
      const q = src[i++]!;
      while (src[i] !== q) {
        if (i >= src.length) throw new Error('unterminated string');
        const c = src[i++]!;
        if (c !== '\\') {
          out += c;
          continue;
        }
        const e = src[i++]!;
        const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', "'": "'", '\\': '\\', a: '\x07', b: '\b', f: '\f', v: '\v' };
        if (simple[e] !== undefined) out += simple[e];
        else if (e === 'x') {
          const m = /^[0-9a-fA-F]{1,2}/.exec(src.slice(i))![0];
          out += String.fromCharCode(parseInt(m, 16));
          i += m.length;
        } else if (/[0-7]/.test(e)) {
          const m = /^[0-7]{0,2}/.exec(src.slice(i))![0];
          out += String.fromCharCode(parseInt(e + m, 8));
          i += m.length;
        } else throw new Error(`unknown escape \\${e}`);
      }
      i++;
      skip();
    }
    return out;
  };
  const value = (): TextprotoValue => {
    skip();
    if (src[i] === '{') return message('}');
    if (src[i] === '"' || src[i] === "'") return string();
    const m = /^[A-Za-z0-9_.+-]+/.exec(src.slice(i));
    if (!m) throw new Error(`unexpected ${JSON.stringify(src.slice(i, i + 20))}`);
    i += m[0].length;
    return m[0];
  };
  const message = (close: string | null): TextprotoMessage => {
    const msg: TextprotoMessage = {};
    if (close !== null) i++; // the `{`
    for (;;) {
      skip();
      if (close !== null && src[i] === close) {
        i++;
        return msg;
      }
      if (i >= src.length) {
        if (close === null) return msg;
        throw new Error('unterminated message');
      }
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))?.[0];
      if (!name) throw new Error(`expected a field name at ${JSON.stringify(src.slice(i, i + 20))}`);
      i += name.length;
      skip();
      if (src[i] === ':') i++;
      skip();
      const list = (msg[name] ??= []);
      if (src[i] === '[') {
        i++;
        for (skip(); src[i] !== ']'; skip()) list.push(value());
        i++;
      } else list.push(value());
    }
  };
  return message(null);
}
