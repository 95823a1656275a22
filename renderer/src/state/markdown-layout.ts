// How a region's decoded text sits in the Markdown document: blank lines between regions, titles as
// headings, formulas as display math. Tables arrive as HTML from the model and stay HTML (Markdown allows it).
import type { LayoutRegion } from '../../../common/protocol';

export function regionPrefix(kind: LayoutRegion['kind'], first: boolean): string {
  const separator = first ? '' : '\n\n';
  if (kind === 'title') return `${separator}# `;
  if (kind === 'formula') return `${separator}$$\n`;
  return separator;
}

export function regionSuffix(kind: LayoutRegion['kind']): string {
  return kind === 'formula' ? '\n$$' : '';
}

/** The exported file's name: the document's, as Markdown. The content is the editor's text, byte for byte. */
export function exportName(documentName: string): string {
  return `${baseName(documentName)}.md`;
}

/** The searchable PDF's name: the document's, marked as the searchable one (a PDF input keeps its own name). */
export function searchablePdfName(documentName: string): string {
  return `${baseName(documentName)}.searchable.pdf`;
}

function baseName(documentName: string): string {
  return documentName.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'document';
}
