// Text metrics of the evaluation: bag-of-words F1 (ground truth whose line order was never reviewed),
// normalised edit distance, and the plain text of a Markdown page.

export interface WordScore {
  precision: number;
  recall: number;
  f1: number;
  /** Counts, so scores can be pooled over pages. */
  matched: number;
  predicted: number;
  expected: number;
}

export function words(text: string, caseInsensitive = false): string[] {
  const t = caseInsensitive ? text.toLowerCase() : text;
  return t.split(/\s+/).filter(Boolean);
}

/** Order-insensitive word matching: the multiset intersection of predicted and expected words. */
export function wordScore(predicted: string, expected: string, caseInsensitive = false): WordScore {
  const counts = new Map<string, number>();
  const exp = words(expected, caseInsensitive);
  for (const w of exp) counts.set(w, (counts.get(w) ?? 0) + 1);
  const pred = words(predicted, caseInsensitive);
  let matched = 0;
  for (const w of pred) {
    const c = counts.get(w) ?? 0;
    if (c > 0) {
      matched++;
      counts.set(w, c - 1);
    }
  }
  return scoreFrom(matched, pred.length, exp.length);
}

/**
 * The text with every word broken across a line end made whole, as a reader who reflows the text would have
 * it: "be-" then "gonnen" on the next line (the ground truth's lines), or after one space (our Markdown's
 * joined lines, which keep the hyphen as printed). Scored so, a source's word F1 no longer depends on the
 * convention for line-end hyphens.
 */
export function joinHyphenated(text: string): string {
  return text.replace(/(\p{L})-(?=[ \t\r\n])[ \t]*(?:\r?\n)?[ \t]*(?=\p{Ll})/gu, '$1');
}

export function scoreFrom(matched: number, predicted: number, expected: number): WordScore {
  const precision = predicted ? matched / predicted : 0;
  const recall = expected ? matched / expected : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1, matched, predicted, expected };
}

/** Pools counts over pages (micro average), so long pages weigh by their words. */
export function poolScores(scores: WordScore[]): WordScore {
  const sum = (k: 'matched' | 'predicted' | 'expected') => scores.reduce((s, x) => s + x[k], 0);
  return scoreFrom(sum('matched'), sum('predicted'), sum('expected'));
}

export function editDistance<T>(a: readonly T[], b: readonly T[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

export function normalisedEditDistance<T>(a: readonly T[], b: readonly T[]): number {
  const n = Math.max(a.length, b.length);
  return n === 0 ? 0 : editDistance(a, b) / n;
}

/**
 * The words a reader sees in our Markdown: no heading or list marks, no check boxes' marks, no HTML tags, no
 * formula fences, no images. A tag is what Markdown renders as one (a letter after `<` or `</`); a `<` in
 * text ("<70%") stays text.
 */
export function markdownPlainText(md: string): string {
  return md
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/^\s*---\s*$/gm, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/<\/(td|th)>/gi, ' ')
    .replace(/<\/?[A-Za-z][A-Za-z0-9-]*(\s[^<>]*)?\/?>/g, ' ')
    .replace(/^\s*(#{1,6}|[-*]|\d+\.)\s+/gm, '')
    .replace(/(^|\s)\[[ x]\](?=\s|$)/gm, '$1')
    .replace(/\$\$/g, ' ')
    .replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}
