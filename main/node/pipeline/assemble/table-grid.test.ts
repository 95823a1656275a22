// The grid of a table from the detector's text boxes inside it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../../common/protocol';
import { renderTable, tableMarkup } from '../write/table-markup';
import { tableGrid } from './table-grid';

const H = 10;

/** A text box `letters` wide (7 px a letter) at x on the row whose top is y. */
function box(x: number, y: number, letters: number): Box {
  return { x0: x, y0: y, x1: x + 7 * letters, y1: y + H };
}

test('columns are the gaps that recur down the rows; word spaces are not', () => {
  const boxes = [
    box(0, 0, 4), box(80, 0, 11), box(240, 0, 6),
    // A description the detector cut at a wide space, at a different place on each row.
    box(0, 20, 5), box(80, 20, 3), box(80 + 21 + 12, 20, 6), box(250, 20, 5),
    box(0, 40, 5), box(80, 40, 6), box(80 + 42 + 12, 40, 2), box(250, 40, 5),
    box(0, 60, 5), box(80, 60, 2), box(80 + 14 + 12, 60, 4), box(257, 60, 4),
  ];
  const grid = tableGrid(boxes);
  assert.equal(grid.rows, 4);
  assert.equal(grid.cols, 3);
  assert.deepEqual(grid.cells.map((c) => [c.row, c.col, c.colSpan]), [0, 1, 2, 3].flatMap((r) => [[r, 0, 1], [r, 1, 1], [r, 2, 1]]));
  // The description cell of row 1 holds both of its boxes, each read as its own line.
  assert.deepEqual(grid.cells[4]!.lines, [box(80, 20, 3), box(80 + 21 + 12, 20, 6)]);
});

test('a heading across two columns spans them; empty positions become empty cells', () => {
  const boxes = [
    box(0, 0, 3), box(100, 0, 15),
    box(0, 20, 3), box(100, 20, 3), box(180, 20, 3),
    box(0, 40, 3), box(180, 40, 3),
    box(0, 60, 3), box(100, 60, 3), box(180, 60, 3),
    box(0, 80, 3), box(100, 80, 3), box(180, 80, 3),
  ];
  const grid = tableGrid(boxes);
  assert.equal(grid.cols, 3);
  assert.deepEqual(grid.cells.slice(0, 2).map((c) => [c.row, c.col, c.colSpan]), [[0, 0, 1], [0, 1, 2]]);
  const texts = grid.cells.map((c) => `${c.row}.${c.col}`);
  assert.equal(renderTable(tableMarkup(grid), texts),
    '<table><thead><tr><td>0.0</td><td colspan="2">0.1</td></tr></thead><tbody>'
    + '<tr><td>1.0</td><td>1.1</td><td>1.2</td></tr><tr><td>2.0</td><td></td><td>2.2</td></tr>'
    + '<tr><td>3.0</td><td>3.1</td><td>3.2</td></tr><tr><td>4.0</td><td>4.1</td><td>4.2</td></tr></tbody></table>');
});

test('rows that all start with the same words make no column of them', () => {
  // "Number of" then a value column: the word space (4 px, under half the text height) recurs on every row.
  const rows = [0, 20, 40, 60].flatMap((y) => [box(0, y, 6), box(46, y, 2), box(150, y, 4)]);
  const grid = tableGrid(rows);
  assert.equal(grid.cols, 2);
  assert.deepEqual(grid.cells.slice(0, 2).map((c) => [c.col, c.lines.length]), [[0, 2], [1, 1]]);
});

test('a wrapped cell is one cell of two lines; cells set beside it at mid-height stay in its row', () => {
  // Rows 12 px apart with 10 px boxes (2 px between bands) where a cell wraps; rows 30 px apart.
  const boxes = [
    box(0, 0, 4), box(100, 0, 3),
    box(0, 30, 6), box(100, 30, 2),
    box(0, 42, 5),
    box(0, 72, 6), box(100, 78, 2),
    box(0, 84, 3),
    box(0, 114, 4), box(100, 114, 2),
  ];
  const grid = tableGrid(boxes);
  assert.equal(grid.rows, 4);
  assert.deepEqual(grid.cells.map((c) => [c.row, c.col, c.lines.length]), [[0, 0, 1], [0, 1, 1], [1, 0, 2], [1, 1, 1], [2, 0, 2], [2, 1, 1], [3, 0, 1], [3, 1, 1]]);
  const texts = ['Name', 'Val', 'Positive', '6.4', 'likelihood', 'Negative', '0.6', 'ratio', 'Total', '9'];
  const cellTexts = grid.cells.flatMap((c) => c.lines).map((l) => texts[boxes.indexOf(l as Box)]!);
  assert.equal(renderTable(tableMarkup(grid), cellTexts).split('<tbody>')[1],
    '<tr><td>Positive likelihood</td><td>6.4</td></tr><tr><td>Negative ratio</td><td>0.6</td></tr><tr><td>Total</td><td>9</td></tr></tbody></table>');
});

test('no text, no grid', () => {
  assert.deepEqual(tableGrid([]), { rows: 0, cols: 0, cells: [] });
});
