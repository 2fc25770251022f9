/**
 * Lists the longest functions (declarations, methods, arrows, function expressions) of the given
 * folders, longest first, by source lines from the first line of the function to its last.
 * A function nested in another is counted on its own and also within its parent.
 *
 *   node --import tsx scripts/longest-functions.ts [--top N] [--over LINES] DIR...
 *
 * Default folders: pipelines src/cli. Exit status 0 always; `--over` filters the list.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

export interface FunctionSpan {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** Every function-like node of one source text with its line span. */
export function functionSpans(file: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      spans.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(p);
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield p;
  }
}

async function main(argv: string[]): Promise<void> {
  let top = 20;
  let over = 0;
  const dirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--top') top = Number(argv[++i]);
    else if (argv[i] === '--over') over = Number(argv[++i]);
    else dirs.push(argv[i]!);
  }
  const spans: FunctionSpan[] = [];
  for (const dir of dirs.length ? dirs : ['pipelines', 'src/cli']) {
    for await (const file of sourceFiles(dir)) spans.push(...functionSpans(file, await readFile(file, 'utf8')));
  }
  spans.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
  for (const s of spans.filter((s) => s.lines > over).slice(0, top)) {
    process.stdout.write(`${String(s.lines).padStart(5)}  ${s.file}:${s.line}  ${s.name}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('longest-functions.ts')) await main(process.argv.slice(2));
