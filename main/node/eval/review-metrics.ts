// What a reviewer needs from a system beyond its word F1, measured the same way for every system: the lines it
// lost, how well its word confidence ranks its errors first, and whether the numbers in tables came out exact.
import { words } from './text-metrics';

/** A ground-truth line counts for "lines lost" when it has at least this many words. */
export const LOST_LINE_MIN_WORDS = 3;

/**
 * Ground-truth lines of LOST_LINE_MIN_WORDS words or more, and how many of them are lost: most of their words
 * (more than half) nowhere in the output. The output is a bag of words, so a line read in another order, or
 * split across two output lines, is not lost; one that was dropped, or read into noise, is.
 */
export function linesLost(output: string, truth: string, caseInsensitive: boolean): { lines: number; lost: number } {
  const seen = new Set(words(output, caseInsensitive));
  let lines = 0;
  let lost = 0;
  for (const line of truth.split('\n')) {
    const ws = words(line, caseInsensitive);
    if (ws.length < LOST_LINE_MIN_WORDS) continue;
    lines++;
    if (ws.filter((w) => seen.has(w)).length * 2 < ws.length) lost++;
  }
  return { lines, lost };
}

/** A word as scored for confidence: the system's confidence in it (0-1) and whether it is on the page as read. */
export interface RankedWord {
  confidence: number;
  right: boolean;
}

/**
 * Area under the ROC curve of confidence for "this word is right": the chance that a right word, drawn at
 * random, has a higher confidence than a wrong one (ties count half). 0.5 is a confidence that says nothing.
 * Null where there are no right or no wrong words.
 */
export function confidenceAuroc(ranked: readonly RankedWord[]): number | null {
  const sorted = [...ranked].sort((a, b) => a.confidence - b.confidence);
  const wrong = sorted.filter((w) => !w.right).length;
  const right = sorted.length - wrong;
  if (wrong === 0 || right === 0) return null;
  // Mann-Whitney U over the right words' ranks, ties given their mean rank.
  let rankSum = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]!.confidence === sorted[i]!.confidence) j++;
    const meanRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k]!.right) rankSum += meanRank;
    i = j;
  }
  return (rankSum - (right * (right + 1)) / 2) / (right * wrong);
}

/**
 * The share of wrong words among the `share` of all words a system is least sure of: what a reviewer who
 * checks that many words catches. Words of equal confidence at the cut are taken in proportion, so a system
 * that gives every word the same confidence catches `share` of its errors, as a random pick would.
 */
export function wrongCaughtAt(ranked: readonly RankedWord[], share: number): number | null {
  const wrong = ranked.filter((w) => !w.right).length;
  if (wrong === 0) return null;
  const sorted = [...ranked].sort((a, b) => a.confidence - b.confidence);
  let budget = share * sorted.length;
  let caught = 0;
  for (let i = 0; i < sorted.length && budget > 0;) {
    let j = i;
    while (j < sorted.length && sorted[j]!.confidence === sorted[i]!.confidence) j++;
    const group = sorted.slice(i, j);
    const take = Math.min(1, budget / group.length);
    caught += take * group.filter((w) => !w.right).length;
    budget -= group.length;
    i = j;
  }
  return caught / wrong;
}

/**
 * A number as a table prints it: digits with their sign, decimal point or comma, percent and parentheses
 * ("-2%", "(6.4)", "1,234.50"). A reviewer must see exactly these; a lost minus or point changes the value.
 */
const NUMBER = /^[(\-−+±]?[$€£]?\d[\d.,]*%?\)?$/u;

/** The numbers of an HTML table, cell by cell, as a multiset. */
export function tableNumbers(html: string): string[] {
  const cells = [...html.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/gi)].map((m) => m[1]!.replace(/<[^>]*>/g, ' '));
  return cells.flatMap((c) => words(c.replace(/&amp;/g, '&').replace(/&nbsp;/g, ' '))).filter((w) => NUMBER.test(w));
}

/** How many of the truth's table numbers the output has exactly (each output number used once). */
export function numbersExact(output: string, truth: string): { numbers: number; exact: number } {
  const have = new Map<string, number>();
  for (const n of tableNumbers(output)) have.set(n, (have.get(n) ?? 0) + 1);
  const expected = tableNumbers(truth);
  let exact = 0;
  for (const n of expected) {
    const c = have.get(n) ?? 0;
    if (c > 0) {
      exact++;
      have.set(n, c - 1);
    }
  }
  return { numbers: expected.length, exact };
}
