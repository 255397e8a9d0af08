import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * The import graph of src/, read from the TypeScript sources: static imports and re-exports (type-only ones
 * too: a type cycle is still a cycle in the design) and dynamic `import()`. Relative specifiers are resolved
 * to files; bare ones are kept as package names.
 */
export interface ImportEdge {
  from: string;
  /** A file under src/ (relative to the repository root), or a package name. */
  to: string;
  external: boolean;
  line: number;
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function sourceFiles(root: string, dir = 'src'): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(dir);
  return files.sort();
}

export function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8');
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    const line = text.slice(0, match.index).split('\n').length;
    if (specifier.startsWith('.')) {
      const target = resolveRelative(root, normalize(join(dirname(file), specifier)));
      edges.push({ from: file, to: target, external: false, line });
    } else {
      const parts = specifier.split('/');
      const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      edges.push({ from: file, to: name.startsWith('node:') ? 'node:' : name, external: true, line });
    }
  }
  return edges;
}

/**
 * A relative specifier → the file it names: `x.js` is `x.ts` (or `x.tsx`) under nodenext; the console's bundler
 * resolution also takes `x` for `x.ts`, `x.tsx` or `x/index.ts`.
 */
function resolveRelative(root: string, path: string): string {
  const candidates = /\.js$/.test(path)
    ? [path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')]
    : /\.(tsx?|css|json|svg)$/.test(path)
      ? [path]
      : [`${path}.ts`, `${path}.tsx`, join(path, 'index.ts'), join(path, 'index.tsx')];
  return candidates.find((candidate) => existsSync(join(root, candidate))) ?? candidates[0];
}

/** The module (first folder under src/) a file belongs to. */
export function moduleOf(file: string): string {
  return file.split('/')[1];
}

/** Strongly connected components with more than one node (or a self-loop): the cycles of a graph. */
export function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowlinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    lowlinks.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        lowlinks.set(node, Math.min(lowlinks.get(node)!, lowlinks.get(next)!));
      } else if (onStack.has(next)) {
        lowlinks.set(node, Math.min(lowlinks.get(node)!, indices.get(next)!));
      }
    }
    if (lowlinks.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return cycles;
}
