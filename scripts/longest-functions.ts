/**
 * Prints the longest functions (declarations, methods, arrow and function expressions) of the
 * TypeScript files under the folders given, longest first: the measure of the shape issue's
 * "no function in pipelines/ or src/cli/ longer than about 80 lines".
 * Run: `npx tsx scripts/longest-functions.ts [--top N] DIR…` (default: pipelines src/cli, top 10).
 * A function's lines run from its first line to its last, nested functions included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

interface Measured {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The name a reader would look for: the declaration's own, or what the function is assigned to. */
function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = (node as { name?: ts.Node }).name;
  if (named) return named.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

function measure(file: string): Measured[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file, name: nameOf(node, source), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '10' } }, allowPositionals: true });
const dirs = positionals.length > 0 ? positionals : ['pipelines', 'src/cli'];
const all = dirs.flatMap(tsFiles).flatMap(measure).sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
for (const m of all.slice(0, Number(values.top))) console.log(`${String(m.lines).padStart(5)}  ${m.file}:${m.line}  ${m.name}`);
