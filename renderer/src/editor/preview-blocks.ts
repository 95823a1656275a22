// The editor's Markdown parsed for its preview, each block and table cell with the span of the source it came
// from, so that a click in the preview selects that source. Saccade's Markdown is small: headings, paragraphs,
// display math, the page breaks it writes, and tables as the model writes them (HTML: table, thead, tbody, tr,
// td, th, with colspan and rowspan). The text is untrusted (a scan can read as anything): nothing here is HTML
// to be injected; the preview builds its elements from these records, and tags other than a table's are text.
export interface SourceSpan {
  start: number;
  end: number;
}

export interface PreviewCell extends SourceSpan {
  text: string;
  header: boolean;
  colSpan: number;
  rowSpan: number;
}

export type PreviewBlock = SourceSpan & (
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'math'; text: string }
  | { kind: 'rule' }
  | { kind: 'page'; page: number }
  | { kind: 'table'; rows: PreviewCell[][] }
);

/** Spans larger than this are not honoured: a hostile text must not make the browser lay out a million columns. */
const MAX_SPAN = 100;
const TABLE_TAG = /<(\/?)(table|thead|tbody|tr|td|th)\b([^<>]*)>/gi;
const PAGE_MARK = /^<!--\s*page\s+(\d{1,6})\s*-->$/;

/** The entities Saccade's Markdown writes (a prose '<' as &lt;, a table's text escaped), read back. */
export function unescapeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;|&apos;/g, "'").replace(/&amp;/g, '&');
}

function span(attributes: string, name: string): number {
  const m = new RegExp(`\\b${name}\\s*=\\s*["']?(\\d{1,3})`, 'i').exec(attributes);
  return m ? Math.min(MAX_SPAN, Math.max(1, Number(m[1]))) : 1;
}

/** The cells of the HTML tables in source[start, end), and the text around them as paragraphs. */
function tableBlocks(source: string, start: number, end: number): PreviewBlock[] {
  const blocks: PreviewBlock[] = [];
  const text = source.slice(start, end);
  let rows: PreviewCell[][] | null = null;
  let tableStart = 0;
  let cell: { header: boolean; colSpan: number; rowSpan: number; from: number } | null = null;
  let outside = 0;
  const paragraph = (from: number, to: number) => {
    const body = text.slice(from, to).trim();
    if (body) blocks.push({ kind: 'paragraph', text: unescapeEntities(body), start: start + from, end: start + to });
  };
  for (const m of text.matchAll(TABLE_TAG)) {
    const closing = m[1] === '/';
    const tag = m[2]!.toLowerCase();
    const at = m.index;
    const after = at + m[0].length;
    if (tag === 'table' && !closing && !rows) {
      paragraph(outside, at);
      rows = [];
      tableStart = at;
    } else if (!rows) {
      continue;
    } else if ((tag === 'td' || tag === 'th') && !closing) {
      cell = { header: tag === 'th', colSpan: span(m[3]!, 'colspan'), rowSpan: span(m[3]!, 'rowspan'), from: after };
      if (rows.length === 0) rows.push([]);
    } else if ((tag === 'td' || tag === 'th') && closing && cell) {
      const inner = text.slice(cell.from, at);
      // Tags inside a cell other than a table's are its text, as written.
      rows.at(-1)!.push({ text: unescapeEntities(inner.trim()), header: cell.header, colSpan: cell.colSpan, rowSpan: cell.rowSpan, start: start + cell.from, end: start + at });
      cell = null;
    } else if (tag === 'tr' && !closing) {
      rows.push([]);
    } else if (tag === 'table' && closing) {
      blocks.push({ kind: 'table', rows: rows.filter((r) => r.length > 0), start: start + tableStart, end: start + after });
      rows = null;
      outside = after;
    }
  }
  // A table the text never closes (a decode stopped early, an edit) is shown as far as it goes.
  if (rows) blocks.push({ kind: 'table', rows: rows.filter((r) => r.length > 0), start: start + tableStart, end });
  else paragraph(outside, text.length);
  return blocks;
}

export function previewBlocks(source: string): PreviewBlock[] {
  const blocks: PreviewBlock[] = [];
  const lines: SourceSpan[] = [];
  for (let at = 0; at <= source.length;) {
    const nl = source.indexOf('\n', at);
    const end = nl < 0 ? source.length : nl;
    lines.push({ start: at, end });
    at = end + 1;
  }
  const line = (i: number) => source.slice(lines[i]!.start, lines[i]!.end);
  for (let i = 0; i < lines.length;) {
    const first = line(i).trim();
    const start = lines[i]!.start;
    if (first === '') {
      i++;
    } else if (first === '$$') {
      let j = i + 1;
      while (j < lines.length && line(j).trim() !== '$$') j++;
      const end = lines[Math.min(j, lines.length - 1)]!.end;
      blocks.push({ kind: 'math', text: source.slice(lines[i]!.end + 1, j < lines.length ? lines[j]!.start : end).replace(/\n$/, ''), start, end });
      i = j + 1;
    } else if (/^#{1,6}\s/.test(first)) {
      blocks.push({ kind: 'heading', level: first.match(/^#+/)![0].length, text: unescapeEntities(first.replace(/^#+\s*/, '')), start, end: lines[i]!.end });
      i++;
    } else if (/^(?:-{3,}|\*{3,}|_{3,})$/.test(first)) {
      blocks.push({ kind: 'rule', start, end: lines[i]!.end });
      i++;
    } else if (PAGE_MARK.test(first)) {
      blocks.push({ kind: 'page', page: Number(PAGE_MARK.exec(first)![1]), start, end: lines[i]!.end });
      i++;
    } else {
      let j = i;
      while (j + 1 < lines.length && line(j + 1).trim() !== '' && line(j + 1).trim() !== '$$' && !/^#{1,6}\s/.test(line(j + 1).trim())) j++;
      const end = lines[j]!.end;
      const body = source.slice(start, end);
      if (/<table\b/i.test(body)) blocks.push(...tableBlocks(source, start, end));
      else blocks.push({ kind: 'paragraph', text: unescapeEntities(body.split('\n').map((l) => l.trim()).join(' ')), start, end });
      i = j + 1;
    }
  }
  return blocks;
}
