// TEDS (tree-edit-distance similarity) of two HTML tables, as in PubTabNet's metric: Zhang-Shasha edit
// distance over table/thead/tbody/tr/td trees; renaming a cell costs its normalised text edit distance when
// tag and spans agree, 1 otherwise; TEDS = 1 - distance / larger tree size.
import { normalisedEditDistance } from './text-metrics';

interface Node {
  tag: string;
  colspan: number;
  rowspan: number;
  text: string;
  children: Node[];
}

const STRUCTURE = new Set(['table', 'thead', 'tbody', 'tr', 'td']);
const top0 = (stack: Node[]) => stack[stack.length - 1]!.tag;

export function parseTable(html: string): Node {
  const root: Node = { tag: 'table', colspan: 1, rowspan: 1, text: '', children: [] };
  const stack: Node[] = [root];
  const re = /<(\/?)([a-zA-Z]+)([^>]*)>|([^<]+)/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const top = stack[stack.length - 1]!;
    if (m[4] !== undefined) {
      if (top.tag === 'td') top.text += m[4];
      continue;
    }
    const tag = m[2]!.toLowerCase() === 'th' ? 'td' : m[2]!.toLowerCase();
    // The outer <table> is the root; other tags (b, i, sup, nested tables) carry no structure here.
    if (!STRUCTURE.has(tag) || tag === 'table') continue;
    if (m[1]) {
      const at = stack.map((n) => n.tag).lastIndexOf(tag);
      if (at > 0) stack.length = at;
      continue;
    }
    const span = (name: string) => Number(new RegExp(`${name}\\s*=\\s*"?(\\d+)`, 'i').exec(m![3] ?? '')?.[1] ?? 1);
    // A new section, row or cell closes unclosed ones, as browsers do.
    if (tag === 'thead' || tag === 'tbody') stack.length = 1;
    else if (tag === 'tr') while (stack.length > 1 && (top0(stack) === 'td' || top0(stack) === 'tr')) stack.pop();
    else while (stack.length > 1 && top0(stack) === 'td') stack.pop();
    const node: Node = { tag, colspan: span('colspan'), rowspan: span('rowspan'), text: '', children: [] };
    stack[stack.length - 1]!.children.push(node);
    stack.push(node);
  }
  return root;
}

function postorder(root: Node): { nodes: Node[]; lml: number[] } {
  const nodes: Node[] = [];
  const lml: number[] = [];
  const walk = (n: Node): number => {
    let leftmost = -1;
    for (const c of n.children) {
      const l = walk(c);
      if (leftmost < 0) leftmost = l;
    }
    nodes.push(n);
    const idx = nodes.length - 1;
    lml.push(leftmost < 0 ? idx : leftmost);
    return lml[idx]!;
  };
  walk(root);
  return { nodes, lml };
}

function cellText(n: Node): string[] {
  return [...n.text.replace(/\s+/g, ' ').trim()];
}

function renameCost(a: Node, b: Node): number {
  if (a.tag !== b.tag || a.colspan !== b.colspan || a.rowspan !== b.rowspan) return 1;
  if (a.tag === 'td') return normalisedEditDistance(cellText(a), cellText(b));
  return 0;
}

export function treeEditDistance(a: Node, b: Node): number {
  const A = postorder(a);
  const B = postorder(b);
  const keyroots = (t: { lml: number[] }) => {
    const seen = new Set<number>();
    const out: number[] = [];
    for (let i = t.lml.length - 1; i >= 0; i--) {
      if (!seen.has(t.lml[i]!)) {
        seen.add(t.lml[i]!);
        out.push(i);
      }
    }
    return out.sort((x, y) => x - y);
  };
  const n = A.nodes.length;
  const m = B.nodes.length;
  const td = Array.from({ length: n }, () => new Float64Array(m));
  for (const i of keyroots(A)) {
    for (const j of keyroots(B)) {
      const li = A.lml[i]!;
      const lj = B.lml[j]!;
      const rows = i - li + 2;
      const cols = j - lj + 2;
      const fd = Array.from({ length: rows }, () => new Float64Array(cols));
      for (let x = 1; x < rows; x++) fd[x]![0] = fd[x - 1]![0]! + 1;
      for (let y = 1; y < cols; y++) fd[0]![y] = fd[0]![y - 1]! + 1;
      for (let x = 1; x < rows; x++) {
        for (let y = 1; y < cols; y++) {
          const ai = li + x - 1;
          const bj = lj + y - 1;
          if (A.lml[ai] === li && B.lml[bj] === lj) {
            fd[x]![y] = Math.min(fd[x - 1]![y]! + 1, fd[x]![y - 1]! + 1, fd[x - 1]![y - 1]! + renameCost(A.nodes[ai]!, B.nodes[bj]!));
            td[ai]![bj] = fd[x]![y]!;
          } else {
            const px = A.lml[ai]! - li;
            const py = B.lml[bj]! - lj;
            fd[x]![y] = Math.min(fd[x - 1]![y]! + 1, fd[x]![y - 1]! + 1, fd[px]![py]! + td[ai]![bj]!);
          }
        }
      }
    }
  }
  return td[n - 1]![m - 1]!;
}

function size(n: Node): number {
  return 1 + n.children.reduce((s, c) => s + size(c), 0);
}

export function teds(predictedHtml: string, expectedHtml: string): number {
  const p = parseTable(predictedHtml);
  const e = parseTable(expectedHtml);
  return 1 - treeEditDistance(p, e) / Math.max(size(p), size(e));
}
