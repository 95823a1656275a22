// Word-level alignment of two texts: a longest common subsequence of their words, common ends first. Used
// by the renderer's three-way merge of corrections (renderer/src/state/text-merge.ts, docs/decisions/0026)
// and by main's searchable PDF, which finds where the user's edited words stand among the decoded ones.

/** Words and the runs of whitespace between them: joined again they give the text back. */
export function textTokens(text: string): string[] {
  return text.match(/\s+|\S+/g) ?? [];
}

/**
 * Past this many cells of the alignment table (the two texts' differing middles multiplied), the middles are
 * left unaligned: about 16 MB, and far beyond a page of corrections.
 */
const MAX_CELLS = 16_000_000;

/**
 * For each token of `a`, the index of the token of `b` it is aligned with in a longest common subsequence,
 * or -1. Common ends are aligned first, so a few edits in a long text cost little.
 */
export function alignTokens(a: readonly string[], b: readonly string[]): Int32Array {
  const map = new Int32Array(a.length).fill(-1);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) map[head] = head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) {
    map[a.length - 1 - tail] = b.length - 1 - tail;
    tail++;
  }
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) return map;
  // lengths[i][j]: the longest common subsequence of a's middle from i on and b's middle from j on.
  const width = m + 1;
  const lengths = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * width + j] = a[head + i] === b[head + j]
        ? lengths[(i + 1) * width + j + 1]! + 1
        : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  for (let i = 0, j = 0; i < n && j < m;) {
    if (a[head + i] === b[head + j]) {
      map[head + i] = head + j;
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) i++;
    else j++;
  }
  return map;
}
