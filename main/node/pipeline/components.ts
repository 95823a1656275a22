// Connected components of ink (8-connected), found run by run so a page costs one pass and a union-find
// over runs, never a per-pixel label image.

export interface Component {
  x0: number;
  y0: number;
  /** Exclusive. */
  x1: number;
  y1: number;
  area: number;
}

export function connectedComponents(ink: Uint8Array, width: number, height: number): Component[] {
  const runStart: number[] = [];
  const runEnd: number[] = [];
  const runRow: number[] = [];
  const parent: number[] = [];
  const find = (a: number): number => {
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]!]!;
      a = parent[a]!;
    }
    return a;
  };
  let prevFirst = 0;
  let prevLast = 0;
  for (let y = 0; y < height; y++) {
    const first = runStart.length;
    const row = y * width;
    let scan = prevFirst;
    let x = 0;
    while (x < width) {
      if (!ink[row + x]) {
        x++;
        continue;
      }
      const s = x;
      while (x < width && ink[row + x]) x++;
      const id = runStart.length;
      runStart.push(s);
      runEnd.push(x);
      runRow.push(y);
      parent.push(id);
      // 8-connectivity: runs touch when they overlap with one pixel of slack.
      while (scan < prevLast && runEnd[scan]! < s) scan++;
      for (let p = scan; p < prevLast && runStart[p]! <= x; p++) {
        const ra = find(p);
        const rb = find(id);
        if (ra !== rb) parent[rb] = ra;
      }
    }
    prevFirst = first;
    prevLast = runStart.length;
  }
  const byRoot = new Map<number, Component>();
  for (let r = 0; r < runStart.length; r++) {
    const root = find(r);
    const y = runRow[r]!;
    const c = byRoot.get(root);
    if (c) {
      c.x0 = Math.min(c.x0, runStart[r]!);
      c.x1 = Math.max(c.x1, runEnd[r]!);
      c.y1 = Math.max(c.y1, y + 1);
      c.area += runEnd[r]! - runStart[r]!;
    } else {
      byRoot.set(root, { x0: runStart[r]!, y0: y, x1: runEnd[r]!, y1: y + 1, area: runEnd[r]! - runStart[r]! });
    }
  }
  return [...byRoot.values()];
}
