// The grid of a table from its glyph boxes: synthetic boxes for the exact rules, and a rendered statement
// table read end to end by layout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../common/protocol';
import { tableGrid } from './table-grid';
import { renderTable, tableMarkup } from './table-markup';

const XH = 10;

/** Glyph boxes of a word: letters 6 px wide, 1 px apart, starting at x, on the row whose top is y. */
function word(x: number, y: number, letters: number): Box[] {
  return Array.from({ length: letters }, (_, i) => ({ x0: x + 7 * i, y0: y, x1: x + 7 * i + 6, y1: y + XH }));
}

test('columns are the gaps that recur down the rows; word spaces are not', () => {
  const glyphs = [
    // Header: "Date Description Amount".
    ...word(0, 0, 4), ...word(80, 0, 11), ...word(240, 0, 6),
    // Rows: a date, a two-word description whose space falls at a different place on each row, an amount.
    ...word(0, 20, 5), ...word(80, 20, 3), ...word(80 + 21 + 5, 20, 6), ...word(250, 20, 5),
    ...word(0, 40, 5), ...word(80, 40, 6), ...word(80 + 42 + 5, 40, 2), ...word(250, 40, 5),
    ...word(0, 60, 5), ...word(80, 60, 2), ...word(80 + 14 + 5, 60, 4), ...word(257, 60, 4),
  ];
  const grid = tableGrid(glyphs, XH);
  assert.equal(grid.rows, 4);
  assert.equal(grid.cols, 3);
  assert.deepEqual(grid.cells.map((c) => [c.row, c.col, c.colSpan]), [0, 1, 2, 3].flatMap((r) => [[r, 0, 1], [r, 1, 1], [r, 2, 1]]));
  // The description cell of row 1 holds both of its words.
  assert.deepEqual(grid.cells[4]!.lines[0], { x0: 80, y0: 20, x1: 80 + 21 + 5 + 41, y1: 30 });
});

test('a heading across two columns spans them; empty positions become empty cells', () => {
  const glyphs = [
    ...word(0, 0, 3), ...word(100, 0, 15), // "Var" and a group heading from column 1 across column 2
    ...word(0, 20, 3), ...word(100, 20, 3), ...word(180, 20, 3),
    ...word(0, 40, 3), ...word(180, 40, 3), // column 1 empty
    ...word(0, 60, 3), ...word(100, 60, 3), ...word(180, 60, 3),
    ...word(0, 80, 3), ...word(100, 80, 3), ...word(180, 80, 3),
  ];
  const grid = tableGrid(glyphs, XH);
  assert.equal(grid.cols, 3);
  assert.deepEqual(grid.cells.slice(0, 2).map((c) => [c.row, c.col, c.colSpan]), [[0, 0, 1], [0, 1, 2]]);
  const texts = grid.cells.map((c) => `${c.row}.${c.col}`);
  assert.equal(renderTable(tableMarkup(grid), texts),
    '<table><thead><tr><td>0.0</td><td colspan="2">0.1</td></tr></thead><tbody>'
    + '<tr><td>1.0</td><td>1.1</td><td>1.2</td></tr><tr><td>2.0</td><td></td><td>2.2</td></tr>'
    + '<tr><td>3.0</td><td>3.1</td><td>3.2</td></tr><tr><td>4.0</td><td>4.1</td><td>4.2</td></tr></tbody></table>');
});

test('a dashed rule between rows is no row, and a full stop stays in its cell', () => {
  const dashes = Array.from({ length: 30 }, (_, i) => ({ x0: 10 * i, y0: 14, x1: 10 * i + 6, y1: 16 }));
  const stop = { x0: 36, y0: 27, x1: 38, y1: 30 };
  const grid = tableGrid([...word(0, 0, 3), ...word(100, 0, 3), ...dashes, ...word(0, 20, 5), stop, ...word(100, 20, 3)], XH);
  assert.equal(grid.rows, 2);
  assert.deepEqual(grid.cells[2]!.lines[0], { x0: 0, y0: 20, x1: 38, y1: 30 });
});

test('a vertical rule between cells binds no rows together, and is no text', () => {
  const rule = { x0: 60, y0: 0, x1: 62, y1: 70 };
  const grid = tableGrid([rule, ...word(0, 0, 5), ...word(80, 0, 3), ...word(0, 20, 5), ...word(80, 20, 3), ...word(0, 40, 5), ...word(80, 40, 3)], XH);
  assert.equal(grid.rows, 3);
  assert.ok(grid.cells.every((c) => c.lines[0]!.x1 <= 60 || c.lines[0]!.x0 >= 62), JSON.stringify(grid.cells.map((c) => c.lines)));
});

test('rows that all start with the same words make no column of them', () => {
  // "Number of" then a value column: the word space (8 px, under a letter) recurs on every row.
  const rows = [0, 20, 40, 60].flatMap((y) => [...word(0, y, 6), ...word(49, y, 2), ...word(150, y, 4)]);
  const grid = tableGrid(rows, XH);
  assert.equal(grid.cols, 2);
  assert.deepEqual(grid.cells.slice(0, 2).map((c) => [c.col, c.lines[0]!.x0, c.lines[0]!.x1]), [[0, 0, 62], [1, 150, 177]]);
});

test('a wrapped cell is one cell of two lines; cells set beside it at mid-height stay in its row', () => {
  // Rows 12 px apart with 10 px glyphs (2 px between bands) except where a row ends; rows 30 px apart.
  const glyphs = [
    ...word(0, 0, 4), ...word(100, 0, 3), // header
    ...word(0, 30, 6), ...word(100, 30, 2), // row 1, label wraps onto a second line:
    ...word(0, 42, 5),
    ...word(0, 72, 6), ...word(100, 78, 2), // row 2, label wrapped, value set at mid-height (bands overlap)
    ...word(0, 84, 3),
    ...word(0, 114, 4), ...word(100, 114, 2), // row 3
  ];
  const grid = tableGrid(glyphs, XH);
  assert.equal(grid.rows, 4);
  assert.deepEqual(grid.cells.map((c) => [c.row, c.col, c.lines.length]), [[0, 0, 1], [0, 1, 1], [1, 0, 2], [1, 1, 1], [2, 0, 2], [2, 1, 1], [3, 0, 1], [3, 1, 1]]);
  const texts = ['Name', 'Val', 'Positive', 'likelihood', '6.4', 'Negative', 'ratio', '0.6', 'Total', '9'];
  assert.equal(renderTable(tableMarkup(grid), texts).split('<tbody>')[1],
    '<tr><td>Positive likelihood</td><td>6.4</td></tr><tr><td>Negative ratio</td><td>0.6</td></tr><tr><td>Total</td><td>9</td></tr></tbody></table>');
});

test('a gap wider than a word space inside a cell starts a new line of that cell', () => {
  // A form: "Race ... Sex" labels over values, where the second row's long value fills the gap the first
  // row leaves, so no column cut separates "Race" from "Sex"; each is still its own line crop.
  const glyphs = [
    ...word(0, 0, 4), ...word(4 * 7 + 60, 0, 3),
    ...word(0, 20, 18),
  ];
  const grid = tableGrid(glyphs, XH);
  assert.equal(grid.cols, 1);
  assert.deepEqual(grid.cells[0]!.lines, [{ x0: 0, y0: 0, x1: 27, y1: 10 }, { x0: 88, y0: 0, x1: 88 + 20, y1: 10 }]);
  // A gap of one letter is a word space: the words stay one line.
  const spaced = tableGrid([...word(0, 0, 4), ...word(4 * 7 + 9, 0, 3), ...word(0, 20, 9)], XH);
  assert.equal(spaced.cells[0]!.lines.length, 1);
});
