/**
 * The repository's import graph with type-only imports included, and its cycles. ESLint's
 * import-x/no-cycle (eslint.config.js) skips `import type` by design (types are erased at build
 * time), so a circle made of type imports would pass lint; tests/lint/import-graph.test.ts uses
 * this to refuse those too. Parsed with TypeScript's own parser, resolved the way the sources
 * write imports (`./x.js` for `./x.ts`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  from: string;
  to: string;
  /** Every import of `to` in `from` is `import type` / `export type` (erased at build time). */
  typeOnly: boolean;
}

const SOURCE_EXTENSIONS = ['.ts', '.mts', '.vue', '.js', '.mjs'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'out', 'dist-app', 'test-output', '.gpu', '.gpu-data', '.cache', '.git']);

/** Source files (repo-relative, `/`-separated) under the given folders of `root`. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(rel);
      } else if (SOURCE_EXTENSIONS.includes(path.extname(entry.name)) && !entry.name.endsWith('.d.ts')) files.push(rel);
    }
  };
  for (const folder of folders) walk(folder);
  return files.sort();
}

/** The module specifiers a file imports (static, re-exports and dynamic `import()`), each with whether it is type-only. */
export function importsOf(fileName: string, text: string): { specifier: string; typeOnly: boolean }[] {
  const code = fileName.endsWith('.vue') ? [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n') : text;
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = Boolean(clause && (clause.isTypeOnly || (!clause.name && named && named.length > 0 && named.every((e) => e.isTypeOnly))));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || Boolean(named && named.length > 0 && named.every((e) => e.isTypeOnly)) });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    if (dynamicImports) ts.forEachChild(node, visit);
  };
  // Declarations are top-level; only a file that mentions import( needs the whole tree walked.
  const dynamicImports = /\bimport\s*\(/.test(code);
  source.statements.forEach(visit);
  return found;
}

/** The file a relative specifier names among `known` (`./x.js` is `./x.ts` when that exists); undefined for packages and missing files. */
export function resolveImport(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts'), target, `${target}.ts`, `${target}/index.ts`];
  return candidates.find((c) => known.has(c));
}

/** One edge per (importer, imported file) pair; typeOnly only when every import between the two is. */
export function importGraph(files: readonly string[], read: (file: string) => string): ImportEdge[] {
  const known = new Set(files);
  const edges = new Map<string, ImportEdge>();
  for (const from of files) {
    for (const { specifier, typeOnly } of importsOf(from, read(from))) {
      const to = resolveImport(from, specifier, known);
      if (!to) continue;
      const key = `${from}\0${to}`;
      const seen = edges.get(key);
      edges.set(key, { from, to, typeOnly: seen ? seen.typeOnly && typeOnly : typeOnly });
    }
  }
  return [...edges.values()];
}

/** The graph's cycles: each strongly connected component of more than one file (or a file importing itself), sorted. */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  // Tarjan's algorithm, iterative (no recursion limit on long import chains).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; child: number }[] = [{ node: start, child: 0 }];
    index.set(start, index.size);
    low.set(start, index.get(start)!);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const children = next.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child++];
        if (!index.has(child)) {
          index.set(child, index.size);
          low.set(child, index.get(child)!);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1].node, Math.min(low.get(work[work.length - 1].node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = component.length === 1 && children.includes(frame.node);
        if (component.length > 1 || selfImport) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}

/** A cycle as a reviewer reads it: its files' imports of each other, type-only ones marked. */
export function describeCycle(cycle: readonly string[], edges: readonly ImportEdge[]): string {
  const members = new Set(cycle);
  return edges
    .filter((e) => members.has(e.from) && members.has(e.to))
    .map((e) => `  ${e.from} -> ${e.to}${e.typeOnly ? ' (type only)' : ''}`)
    .join('\n');
}

/** The repository's own source graph (everything but generated and third-party folders). */
export function repositoryImportGraph(root: string): ImportEdge[] {
  const files = sourceFiles(root, ['main', 'shared', 'renderer', 'kernels', 'bench', 'scripts', 'resources', 'tests']);
  return importGraph(files, (file) => readFileSync(path.join(root, file), 'utf8'));
}
