"""Tables: financial statements, invoices, schedules and data tables, with or without rules, header rows,
shaded rows, numeric columns and merged cells.

Target format (kept identical for every table): `<table>` then one `<tr>...</tr>` per row, cells as
`<td>text</td>`; a merged cell opens with `<td colspan="N">` or `<td rowspan="N">` (never both: the
vocabulary has no combined tag). No `<thead>`/`<tbody>`/`<th>`: header cells are ordinary `<td>` cells, as in
the OmniDocBench convention, so the model need not guess header semantics from weight or rules. Rows list
only the cells that start in them. Cell text never contains '<', '>' or '&', so the target is valid XML
without escapes; words inside a cell are joined by single spaces.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from . import corpus, phrases
from .fonts import pick_face, pick_family
from .typeset import Ink, Setter, TextStyle

MAX_SPAN = 6  # the vocabulary has colspan/rowspan tags up to 6


@dataclass
class Cell:
    row: int
    col: int
    text: str
    rowspan: int = 1
    colspan: int = 1
    header: bool = False


def _clean(text: str) -> str:
    return " ".join(text.replace("<", "(").replace(">", ")").replace("&", "and").split())


COLUMN_HEADERS = {
    "amount": ("Amount", "Total", "Price", "Balance", "Net", "Cost", "Value", "2023", "2024", "Q1", "Q2", "Budget"),
    "quantity": ("Qty", "Quantity", "Units", "Count", "No.", "Hours"),
    "percent": ("Change", "Share", "Rate", "%", "Growth", "Margin"),
    "date": ("Date", "Due", "Issued", "Period", "Paid on"),
    "code": ("Code", "ID", "Ref.", "Account", "Item No.", "SKU"),
    "text": ("Description", "Item", "Name", "Notes", "Category", "Status", "Region", "Remarks"),
}
STATUS_WORDS = ("Paid", "Open", "Pending", "Yes", "No", "N/A", "Closed", "Approved", "—", "OK", "Overdue", "-")
CATEGORIES = ("Office supplies", "Travel", "Salaries", "Rent", "Utilities", "Marketing", "Insurance", "Equipment",
              "Software", "Training", "Depreciation", "Interest", "Revenue", "Cost of sales", "Gross profit",
              "Operating expenses", "Net income", "Taxes", "Other", "Cash", "Receivables", "Inventory",
              "Total assets", "Liabilities", "Equity", "North", "South", "East", "West", "Central", "Europe",
              "Asia Pacific", "Americas", "Q1", "Q2", "Q3", "Q4", "Adults", "Children", "Control", "Treatment",
              "Baseline", "Week 4", "Week 12", "Male", "Female", "Total", "Model A", "Model B", "Sample 1")


def _text_column(rng: random.Random) -> Callable[[random.Random], str]:
    theme = rng.random()
    if theme < 0.3:
        return lambda r: r.choice(CATEGORIES)
    if theme < 0.5:
        return lambda r: r.choice(phrases.PRODUCTS)
    if theme < 0.65:
        return phrases.person
    if theme < 0.8:
        return lambda r: r.choice(STATUS_WORDS)
    if theme < 0.9:
        return phrases.company
    return lambda r: " ".join(r.choice(corpus.dictionary_words()) for _ in range(r.randint(1, 2))).capitalize()


def column_format(rng: random.Random, kind: str) -> Callable[[random.Random], str]:
    """A value maker for one column: style choices (currency, date spelling, decimals) are fixed here, so a
    column reads consistently, as in real tables."""
    if kind == "amount":
        money = phrases.currency(rng) if rng.random() < 0.35 else ("", "")
        magnitude = rng.choice((100, 1000, 10000, 100000, 1000000))
        decimals = rng.choice((0, 1, 2, 2))
        return lambda r: phrases.amount(r, money, magnitude * r.uniform(0.2, 1.0), decimals)
    if kind == "quantity":
        unit, decimals = rng.choice(("", "", "", " pcs", " kg", " h")), rng.choice((0, 0, 1, 2))
        top = rng.choice((10, 100, 5000))
        return lambda r: f"{r.uniform(0, top):,.{decimals}f}{unit}"
    if kind == "percent":
        decimals, signed, spaced = rng.choice((0, 1, 1, 2)), rng.random() < 0.3, rng.random() < 0.2
        return lambda r: (f"{r.uniform(-25, 25):+.{decimals}f}" if signed else f"{r.uniform(0, 100):.{decimals}f}") \
            + (" %" if spaced else "%")
    if kind == "date":
        style = rng.randrange(phrases.DATE_STYLES - 1)  # not the long weekday form: too wide for a cell
        return lambda r: phrases.date(r, style)
    if kind == "code":
        style = rng.randrange(10)
        return lambda r: phrases.identifier(r, style)
    return _text_column(rng)


def build_cells(rng: random.Random) -> tuple[list[Cell], int, int, list[str]]:
    """Cells, row count, column count and each column's kind."""
    n_cols = rng.randint(2, 6)
    kinds = ["text"] + [rng.choice(("amount", "amount", "quantity", "percent", "date", "code", "text"))
                        for _ in range(n_cols - 1)]
    formats = [column_format(rng, kind) for kind in kinds]
    used: set[str] = set()

    def header(kind: str) -> str:
        """A column label not used yet in this table."""
        label = rng.choice([h for h in COLUMN_HEADERS[kind] if h not in used] or COLUMN_HEADERS[kind])
        used.add(label)
        return label

    cells: list[Cell] = []
    row = 0
    if rng.random() < 0.85:
        grouped = n_cols >= 3 and rng.random() < 0.25
        if grouped:
            # Two header rows: the first column's label spans both, the others sit under a group label.
            cells.append(Cell(0, 0, header(kinds[0]), rowspan=2, header=True))
            span = n_cols - 1 if rng.random() < 0.5 or n_cols < 5 else (n_cols - 1) // 2
            col = 1
            while col < n_cols:
                width = min(span, n_cols - col)
                label = rng.choice(("Fiscal year", "Actual", "Forecast", "Quarter", "Results", "Budget", "Region"))
                cells.append(Cell(0, col, label, colspan=width, header=True) if width > 1 else Cell(0, col, label, header=True))
                col += width
            for c in range(1, n_cols):
                cells.append(Cell(1, c, header(kinds[c]), header=True))
            row = 2
        else:
            for c in range(n_cols):
                cells.append(Cell(0, c, header(kinds[c]), header=True))
            row = 1
    body_rows = rng.randint(1, 11)
    covered: set[tuple[int, int]] = set()
    for r in range(row, row + body_rows):
        for c in range(n_cols):
            if (r, c) in covered:
                continue
            text = "" if rng.random() < 0.05 else formats[c](rng)
            rowspan = 1
            if c == 0 and rng.random() < 0.12 and r + 1 < row + body_rows:
                rowspan = min(rng.randint(2, 4), row + body_rows - r)
                for k in range(1, rowspan):
                    covered.add((r + k, c))
            cells.append(Cell(r, c, _clean(text), rowspan=rowspan))
    row += body_rows
    if rng.random() < 0.3 and n_cols >= 2:
        span = rng.randint(1, n_cols - 1)
        label = rng.choice(("Total", "TOTAL", "Subtotal", "Grand total", "Balance due", "Sum"))
        cells.append(Cell(row, 0, label, colspan=span) if span > 1 else Cell(row, 0, label))
        for c in range(span, n_cols):
            cells.append(Cell(row, c, _clean(formats[c](rng) if kinds[c] != "text" else "")))
        row += 1
    return cells, row, n_cols, kinds


def to_html(cells: list[Cell], n_rows: int) -> str:
    parts = ["<table>"]
    for r in range(n_rows):
        parts.append("<tr>")
        for cell in sorted((c for c in cells if c.row == r), key=lambda c: c.col):
            if cell.colspan > 1:
                parts.append(f'<td colspan="{cell.colspan}">')
            elif cell.rowspan > 1:
                parts.append(f'<td rowspan="{cell.rowspan}">')
            else:
                parts.append("<td>")
            parts.append(cell.text)
            parts.append("</td>")
        parts.append("</tr>")
    parts.append("</table>")
    return "".join(parts)


RULE_STYLES = ("grid", "grid", "booktabs", "none", "outer", "rows", "zebra")


def render_table(rng: random.Random, cells: list[Cell], n_rows: int, n_cols: int, kinds: list[str],
                 size: int | None = None) -> Ink:
    size = size or rng.randint(13, 24)
    text = " ".join(c.text for c in cells)
    family = pick_family(rng, text, rng.choice(("serif", "sans", "sans", "mono")))
    body = Setter(TextStyle(pick_face(rng, family, text), size))
    head = Setter(TextStyle(pick_face(rng, family, text, bold=rng.random() < 0.7), size))
    pad_x, pad_y = rng.randint(3, 14), rng.randint(2, 9)
    row_h = body.ascent + body.descent + 2 * pad_y

    widths = [0.0] * n_cols
    for cell in cells:
        if cell.colspan == 1:
            setter = head if cell.header else body
            widths[cell.col] = max(widths[cell.col], setter.segment_width(cell.text) + 2 * pad_x)
    for cell in cells:
        if cell.colspan > 1:
            setter = head if cell.header else body
            need = setter.segment_width(cell.text) + 2 * pad_x
            have = sum(widths[cell.col:cell.col + cell.colspan])
            if need > have:
                widths[cell.col + cell.colspan - 1] += need - have
    widths = [max(w, size) for w in widths]
    xs = np.concatenate([[0], np.cumsum(widths)]).round().astype(int)
    margin = size
    width, height = int(xs[-1]) + 2 * margin, n_rows * row_h + 2 * margin
    canvas = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(canvas)
    style = rng.choice(RULE_STYLES)
    line_w = rng.choice((1, 1, 1, 2))
    words: list = []
    chars: list = []
    header_rows = max((c.row + c.rowspan for c in cells if c.header), default=0)

    if style == "zebra":
        shade = rng.randint(25, 60)
        for r in range(header_rows, n_rows, 2):
            draw.rectangle([margin, margin + r * row_h, margin + xs[-1], margin + (r + 1) * row_h - 1], fill=shade)
    if header_rows and rng.random() < 0.3 and style != "zebra":
        draw.rectangle([margin, margin, margin + xs[-1], margin + header_rows * row_h - 1], fill=rng.randint(30, 70))

    for cell in cells:
        x0, x1 = margin + xs[cell.col], margin + xs[cell.col + cell.colspan]
        y0, y1 = margin + cell.row * row_h, margin + (cell.row + cell.rowspan) * row_h
        setter = head if cell.header else body
        natural = setter.segment_width(cell.text)
        if cell.header or cell.colspan > 1 and cell.row < header_rows:
            x = (x0 + x1 - natural) / 2
        elif kinds[cell.col] in ("amount", "quantity", "percent") and cell.col > 0:
            x = x1 - pad_x - natural
        else:
            x = x0 + pad_x
        baseline = (y0 + y1 + setter.ascent - setter.descent) // 2  # whole pixels, like the text lines
        setter.draw_run(draw, x, baseline, cell.text, words, chars)
        if style == "grid":
            draw.rectangle([x0, y0, x1, y1], outline=255, width=line_w)
        elif style == "rows":
            draw.line([x0, y1, x1, y1], fill=255, width=line_w)
    left, right = margin, margin + xs[-1]
    if style in ("booktabs", "outer"):
        thick = line_w + 1
        draw.line([left, margin, right, margin], fill=255, width=thick)
        draw.line([left, margin + n_rows * row_h, right, margin + n_rows * row_h], fill=255, width=thick)
        if header_rows:
            draw.line([left, margin + header_rows * row_h, right, margin + header_rows * row_h], fill=255, width=line_w)
        if style == "outer":
            draw.line([left, margin, left, margin + n_rows * row_h], fill=255, width=thick)
            draw.line([right, margin, right, margin + n_rows * row_h], fill=255, width=thick)
    return Ink(np.asarray(canvas), words, chars)


def make_table(rng: random.Random) -> tuple[Ink, str]:
    cells, n_rows, n_cols, kinds = build_cells(rng)
    return render_table(rng, cells, n_rows, n_cols, kinds), to_html(cells, n_rows)
