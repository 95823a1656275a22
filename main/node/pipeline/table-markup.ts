// The HTML around a table's cells, split so that it can stream: the markup before each cell's text (its
// `lead`) and after the last (`tail`). The engine reads cells as text lines; joining leads, escaped cell
// texts and the tail gives the table, whether whole (Markdown assembly) or token by token (the editor).
import type { TableGrid } from './table-grid';

export interface TableMarkup {
  /** One per text line of the grid's cells, in their order: a cell's markup, or a space within a cell. */
  leads: string[];
  tail: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The first row is the header (`thead`), as in most tables; empty grid positions become empty cells. */
export function tableMarkup(grid: TableGrid): TableMarkup {
  const leads: string[] = [];
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
        for (let line = 1; line < cell.lines.length; line++) leads.push(' ');
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

export function renderTable(markup: TableMarkup, texts: string[]): string {
  return markup.leads.map((lead, i) => lead + escapeHtml((texts[i] ?? '').trim())).join('') + markup.tail;
}
