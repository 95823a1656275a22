// No module imports itself through others: a circle makes load order matter and lets layers reach into each other.
// Relative imports and re-exports of every TypeScript source (type-only ones too) are followed.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(__dirname, '..', '..');
const FOLDERS = ['common', 'main', 'renderer/src'];
const SPECIFIER = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const ext of ['', '.ts', '.tsx', '/index.ts']) if (existsSync(base + ext) && statSync(base + ext).isFile()) return base + ext;
  return null;
}

/** Every circle of imports, each as its modules (Tarjan's strongly connected components of two or more). */
function circles(files: string[]): string[][] {
  const edges = new Map(files.map((f) => [f, [...readFileSync(f, 'utf8').matchAll(SPECIFIER)].map((m) => resolveImport(f, m[1]!)).filter((t): t is string => t !== null)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        component.push(relative(ROOT, w));
        if (w === v) break;
      }
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

test('no TypeScript module imports itself through others', () => {
  assert.deepEqual(circles(FOLDERS.flatMap((d) => sources(join(ROOT, d)))), []);
});
