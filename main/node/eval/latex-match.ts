// Formula exact match in im2markup's token space: commands and single characters as tokens, so that
// "\frac{ab}{c}" and "\frac { a b } { c }" agree. Grouping braces are dropped from both sides because the
// KaTeX normalisation of the ground truth adds braces that a recogniser has no way to know about.

export function latexTokens(latex: string): string[] {
  const out: string[] = [];
  const re = /\\[a-zA-Z]+|\\.|\S/g;
  for (let m = re.exec(latex); m; m = re.exec(latex)) {
    if (m[0] !== '{' && m[0] !== '}') out.push(m[0]);
  }
  return out;
}

export function latexExactMatch(predicted: string, expected: string): boolean {
  const p = latexTokens(predicted.replace(/^\s*\$+|\$+\s*$/g, ''));
  const e = latexTokens(expected);
  return p.length === e.length && p.every((t, i) => t === e[i]);
}
