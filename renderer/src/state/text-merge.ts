// Word-level diffs and the three-way merge that keeps a user's corrections through a new decode
// (docs/decisions/0026). Texts are cut into words and the whitespace between them, so a correction is a
// replaced word, and the merge and the editor's edits move whole words.
import { alignTokens, textTokens } from '../../../common/word-alignment';

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
