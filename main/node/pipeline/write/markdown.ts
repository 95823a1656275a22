// Markdown from recognised regions in reading order: headings, paragraphs, lists, HTML tables, $$ formulas.
// A page's headers come first and its footers last (assemble/page-layout.ts orders them so), as paragraphs:
// running heads, page numbers and Bates stamps are text a reader may search for.
import type { BlockKind } from '../assemble/page-layout';
import { pageBreak } from '../../../../common/markdown-pages';
import { renderTable, type TableMarkup } from './table-markup';

export interface RecognisedRegion {
  kind: BlockKind;
  /** One string per recognised crop: per line for text-like kinds, per cell for tables read by cells, else one. */
  lines: string[];
  /** A table read by cells: the HTML around them. */
  table?: TableMarkup;
  /** A figure: where its image was written, relative to the Markdown. */
  image?: string;
}

const LIST_MARKER = /^(?:[•·▪‣◦●○■□➢►*–-]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)])\s+/;
const ORDERED_MARKER = /^\(?(\d{1,3})[.)]\s+/;

/** Characters of scripts written without spaces between words (Chinese, Japanese) and their punctuation. */
const UNSPACED = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3000-\\u303f\\uff00-\\uffef]';
const ENDS_UNSPACED = new RegExp(`${UNSPACED}$`, 'u');
const STARTS_UNSPACED = new RegExp(`^${UNSPACED}`, 'u');

/**
 * Joins the lines of one block into running text, one space between lines, none where both sides are of a
 * script written without spaces. A hyphen at a line end stays as printed: whether it splits one word ("be-" /
 * "loved") or ends a compound ("well-" / "known") is the reader's call, and the writer does not make it
 * (docs/decisions/0038-line-end-hyphens-as-printed.md).
 */
export function joinLines(lines: string[]): string {
  return lines.map((l) => l.trim()).filter(Boolean).reduce((text, line) => {
    if (!text) return line;
    return text + (ENDS_UNSPACED.test(text) && STARTS_UNSPACED.test(line) ? '' : ' ') + line;
  }, '');
}

/** Splits a block's lines into list items when its lines start with bullets or numbers; null if it is prose. */
function listItems(lines: string[]): string[][] | null {
  const trimmed = lines.map((l) => l.trim()).filter(Boolean);
  if (trimmed.length === 0 || !LIST_MARKER.test(trimmed[0]!)) return null;
  const items: string[][] = [];
  for (const l of trimmed) {
    if (LIST_MARKER.test(l) || items.length === 0) items.push([l]);
    else items[items.length - 1]!.push(l);
  }
  return items.length >= 2 || trimmed.length === 1 ? items : null;
}

function listMarkdown(items: string[][]): string {
  return items
    .map((item) => {
      const text = joinLines(item);
      const ordered = ORDERED_MARKER.exec(text);
      return ordered ? `${ordered[1]}. ${text.slice(ordered[0].length)}` : `- ${text.replace(LIST_MARKER, '')}`;
    })
    .join('\n');
}

function tableMarkdown(text: string): string {
  const t = text.trim();
  return /<table[\s>]/i.test(t) ? t : `<table>${t}</table>`;
}

/**
 * Read text as Markdown prose: a `<` would open raw HTML in most renderers (a page that reads "<script>" must
 * not become a script in the exported file), so it is written as its entity. Tables keep their own markup;
 * their cells are escaped whole (table-markup.ts).
 */
export function escapeProse(text: string): string {
  return text.replace(/</g, '&lt;');
}

export function regionMarkdown(region: RecognisedRegion, firstTitle: boolean): string | null {
  switch (region.kind) {
    case 'figure':
      return region.image ? `![Figure](${encodeURI(region.image)})` : null;
    case 'table':
      return region.table ? renderTable(region.table, region.lines) : tableMarkdown(region.lines.join(''));
    case 'formula': {
      const latex = region.lines.join(' ').trim().replace(/^\$+|\$+$/g, '').trim();
      return latex ? `$$\n${latex}\n$$` : null;
    }
    case 'title': {
      const text = escapeProse(joinLines(region.lines));
      return text ? `${firstTitle ? '#' : '##'} ${text}` : null;
    }
    default: {
      const items = listItems(region.lines.map(escapeProse));
      if (items) return listMarkdown(items);
      const text = escapeProse(joinLines(region.lines));
      return text || null;
    }
  }
}

/**
 * Markdown written a page at a time, as pages finish: regions in reading order, one blank line between blocks,
 * a page break before every page after the first. Each page's chunk follows the chunks before it, so their
 * concatenation is the document's Markdown and nothing is held until the end.
 */
export class MarkdownWriter {
  private pages = 0;
  private blocks = 0;
  private titled = false;

  /** The Markdown of page `page` (its index in the document), to append to what came before. */
  page(page: number, regions: readonly RecognisedRegion[]): string {
    const parts: string[] = [];
    if (this.pages++ > 0) parts.push(pageBreak(page));
    for (const r of regions) {
      const md = regionMarkdown(r, r.kind === 'title' && !this.titled);
      if (r.kind === 'title' && md) this.titled = true;
      if (md) parts.push(md);
    }
    // Every block ends its line, and a blank line comes before every block but the document's first.
    return parts.map((part) => (this.blocks++ > 0 ? '\n' : '') + part + '\n').join('');
  }
}
