// Word-level diffs and the three-way merge that keeps a user's corrections through a new decode
// (docs/decisions/0026). Texts are cut into words and the whitespace between them, so a correction is a
// replaced word, and the merge and the editor's edits move whole words.

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

/** A replacement of `from`'s characters [start, end) by `text`, in offsets of the text before any edit. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The word-level edits that turn `from` into `to`, in order and not overlapping. */
export function textEdits(from: string, to: string): TextEdit[] {
  const a = textTokens(from);
  const b = textTokens(to);
  const map = alignTokens(a, b);
  const edits: TextEdit[] = [];
  let offset = 0;
  let j = 0;
  let pending: TextEdit | null = null;
  for (let i = 0; i <= a.length; i++) {
    const target = i < a.length ? map[i]! : b.length;
    if (i < a.length && target < 0) {
      pending ??= { start: offset, end: offset, text: '' };
      pending.end = offset + a[i]!.length;
    } else {
      const inserted = b.slice(j, target).join('');
      if (pending || inserted) edits.push({ ...(pending ?? { start: offset, end: offset }), text: inserted });
      pending = null;
      j = target + 1;
    }
    if (i < a.length) offset += a[i]!.length;
  }
  return edits;
}

export interface MergeResult {
  text: string;
  /** Places where the new text differs from the old one and the user had changed it too: the user's words won. */
  conflicts: number;
}

/**
 * Three-way merge of a user's corrections into a new decode: `base` is the decode the user corrected,
 * `ours` the corrected text, `theirs` the new decode. Between the words all three share, a stretch keeps the
 * new decode where the user left the old one as it was, and the user's words wherever the user changed it,
 * whatever the new decode read there.
 */
export function mergeCorrections(base: string, ours: string, theirs: string): MergeResult {
  const b = textTokens(base);
  const o = textTokens(ours);
  const t = textTokens(theirs);
  const toOurs = alignTokens(b, o);
  const toTheirs = alignTokens(b, t);
  const out: string[] = [];
  let conflicts = 0;
  let i = 0;
  let oi = 0;
  let ti = 0;
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, k) => v === y[k]);
  while (i < b.length || oi < o.length || ti < t.length) {
    if (i < b.length && toOurs[i] === oi && toTheirs[i] === ti) {
      out.push(b[i]!);
      i++;
      oi++;
      ti++;
      continue;
    }
    // The next word all three share closes the stretch that differs.
    let j = i;
    while (j < b.length && (toOurs[j]! < 0 || toTheirs[j]! < 0)) j++;
    const oEnd = j < b.length ? toOurs[j]! : o.length;
    const tEnd = j < b.length ? toTheirs[j]! : t.length;
    const was = b.slice(i, j);
    const mine = o.slice(oi, oEnd);
    const read = t.slice(ti, tEnd);
    if (same(mine, was)) out.push(...read);
    else {
      out.push(...mine);
      if (!same(read, was) && !same(read, mine)) conflicts++;
    }
    i = j;
    oi = oEnd;
    ti = tEnd;
  }
  return { text: out.join(''), conflicts };
}
