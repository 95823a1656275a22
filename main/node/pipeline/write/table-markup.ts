// The HTML around a table's cells, split so that it can stream: the markup before each cell's text (its
// `lead`) and after the last (`tail`). The engine reads cells as text lines; joining leads, escaped cell
// texts and the tail gives the table, whether whole (Markdown assembly) or token by token (the editor).
import type { TableGrid } from '../assemble/table-grid';

export interface TableMarkup {
  /**
   * One per text line of the grid's cells, in their order: the markup before a cell's first line; null for a
   * cell's later lines, which are set off from the cell's text by a space.
   */
  leads: Array<string | null>;
  tail: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The inverse of escapeHtml, and of the quote entities attributes and other tools' hOCR use. */
export function unescapeHtml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;|&apos;/g, "'").replace(/&amp;/g, '&');
}

/** The first row is the header (`thead`), as in most tables; empty grid positions become empty cells. */
export function tableMarkup(grid: TableGrid): TableMarkup {
  const leads: Array<string | null> = [];
  let pending = '<table>';
  let next = 0;
  for (let row = 0; row < grid.rows; row++) {
    if (row === 0) pending += '<thead>';
    if (row === 1) pending += '<tbody>';
    pending += '<tr>';
    let col = 0;
    while (col < grid.cols) {
      const cell = grid.cells[next];
      if (cell && cell.row === row && cell.col === col) {
        leads.push(pending + (cell.colSpan > 1 ? `<td colspan="${cell.colSpan}">` : '<td>'));
        for (let line = 1; line < cell.lines.length; line++) leads.push(null);
        pending = '</td>';
        col += cell.colSpan;
        next++;
      } else {
        pending += '<td></td>';
        col++;
      }
    }
    pending += '</tr>';
    if (row === 0) pending += '</thead>';
  }
  return { leads, tail: pending + (grid.rows > 1 ? '</tbody>' : '') + '</table>' };
}

/** The table with each line's text; a cell's lines are joined by single spaces, empty ones left out. */
export function renderTable(markup: TableMarkup, texts: string[]): string {
  let out = '';
  let cellHasText = false;
  markup.leads.forEach((lead, i) => {
    if (lead !== null) {
      out += lead;
      cellHasText = false;
    }
    const text = escapeHtml((texts[i] ?? '').trim());
    if (text) {
      out += (lead === null && cellHasText ? ' ' : '') + text;
      cellHasText = true;
    }
  });
  return out + markup.tail;
}
