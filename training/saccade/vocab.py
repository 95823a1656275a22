"""The token inventory shared by the data generator, the tokenizer and the exported checkpoint.

Character-level for text (short tokens make drafting blocks meaningful and the vocabulary tiny), with whole
tokens for HTML table tags and LaTeX commands so that structure costs one token each.
"""

SPECIAL_TOKENS = ["<pad>", "<bos>", "<eos>", "<mask>", "<img>", "<|text|>", "<|table|>", "<|formula|>"]
PAD, BOS, EOS, MASK, IMG = 0, 1, 2, 3, 4
PROMPTS = {"text": 5, "table": 6, "formula": 7}

ASCII = [chr(c) for c in range(32, 127)] + ["\n"]

# Typographic characters common in printed English documents, receipts and forms.
UNICODE = list("–—‘’“”•…€£¥°§¶©®™±×÷µ¢½¼¾²³¹·éèêëàâäáçíìîïóòôöúùûüñÉÀÇÖÜß←→")

HTML_TAGS = [
    "<table>", "</table>", "<thead>", "</thead>", "<tbody>", "</tbody>", "<tr>", "</tr>",
    "<td>", "</td>", "<th>", "</th>", "<b>", "</b>",
] + [f'<td colspan="{n}">' for n in range(2, 7)] + [f'<td rowspan="{n}">' for n in range(2, 7)] \
  + [f'<th colspan="{n}">' for n in range(2, 7)] + [f'<th rowspan="{n}">' for n in range(2, 7)]

LATEX_COMMANDS = [
    "\\frac", "\\sqrt", "\\sum", "\\prod", "\\int", "\\oint", "\\lim", "\\infty", "\\partial", "\\nabla",
    "\\alpha", "\\beta", "\\gamma", "\\delta", "\\epsilon", "\\varepsilon", "\\zeta", "\\eta", "\\theta",
    "\\vartheta", "\\iota", "\\kappa", "\\lambda", "\\mu", "\\nu", "\\xi", "\\pi", "\\rho", "\\sigma",
    "\\tau", "\\upsilon", "\\phi", "\\varphi", "\\chi", "\\psi", "\\omega", "\\Gamma", "\\Delta", "\\Theta",
    "\\Lambda", "\\Xi", "\\Pi", "\\Sigma", "\\Phi", "\\Psi", "\\Omega", "\\cdot", "\\cdots", "\\ldots",
    "\\dots", "\\times", "\\div", "\\pm", "\\mp", "\\leq", "\\geq", "\\neq", "\\approx", "\\equiv", "\\sim",
    "\\simeq", "\\propto", "\\in", "\\notin", "\\subset", "\\subseteq", "\\cup", "\\cap", "\\forall",
    "\\exists", "\\to", "\\rightarrow", "\\leftarrow", "\\Rightarrow", "\\Leftrightarrow", "\\mapsto",
    "\\left", "\\right", "\\big", "\\Big", "\\bigl", "\\bigr", "\\Bigl", "\\Bigr", "\\mathrm", "\\mathbf",
    "\\mathcal", "\\mathbb", "\\operatorname", "\\hat", "\\bar", "\\tilde", "\\vec", "\\dot", "\\ddot",
    "\\overline", "\\underline", "\\langle", "\\rangle", "\\log", "\\ln", "\\exp", "\\sin", "\\cos", "\\tan",
    "\\max", "\\min", "\\det", "\\quad", "\\qquad", "\\,", "\\;", "\\!", "\\{", "\\}", "\\|", "\\prime",
    "\\ell", "\\hbar", "\\otimes", "\\oplus", "\\circ", "\\star", "\\ast", "\\wedge", "\\vee", "\\mid",
    "\\perp", "\\parallel", "\\angle", "\\emptyset", "\\begin{array}", "\\end{array}", "\\\\", "\\displaystyle",
]

# Order fixes the ids: never reorder, only append (ids are part of every exported checkpoint).
ALL_TOKENS = SPECIAL_TOKENS + ASCII + UNICODE + HTML_TAGS + LATEX_COMMANDS

CHARSET = frozenset(ASCII + UNICODE)
"""Every character a target text may contain."""
