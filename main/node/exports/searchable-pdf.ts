// A searchable PDF: the document's pages as they are, each with an invisible text layer in which every word the
// model read sits at its box on the page (the hOCR's boxes), in reading order, so that a viewer finds, selects
// and copies the words where they stand. A PDF input keeps its pages, content and images untouched and gains
// the layer; an image input becomes a page of its size at its resolution, the image embedded as it is (a JPEG
// byte for byte). Written with pdf-lib; the words are set in DejaVu Sans, whose glyphs are never drawn but
// whose character map lets a viewer copy what the model wrote. This runs inside a bounded worker
// (searchable-pdf-worker.ts): pdf-lib parses a PDF input whole, and the input is hostile.
import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import {
  beginText, endText, PDFContentStream, PDFDocument, popGraphicsState, pushGraphicsState, setCharacterSqueeze,
  setFontAndSize, setTextMatrix, setTextRenderingMode, showText, TextRenderingMode, type PDFFont, type PDFName, type PDFOperator, type PDFPage,
} from 'pdf-lib';
import type { Box, PageInfo } from '../../../common/protocol';
import { quarterTurns, turnBox, turnPoint } from '../../../common/quarter-turns';
import type { HocrRegion } from './hocr';
import { wordSpans } from './word-spans';

/** An image input's page: the image to embed and the resolution that gives the page its size. */
export interface PageImage {
  kind: 'jpeg' | 'png';
  bytes: Uint8Array;
  /** Pixels per inch of `bytes`. */
  dpi: number;
}

type Point = [number, number];

/** The narrowest a word is set, as a share of its natural width at its size. */
const MIN_SQUEEZE = 0.5;

/** Maps a point of the page as it was read (pixels, y down) to PDF user space. */
type PageFrame = (p: Point) => Point;

/**
 * The page as pdf.js reads it: its visible box (CropBox within MediaBox) turned by /Rotate, drawn at
 * `width` x `height` pixels. Rotation turns the page clockwise for display.
 */
function pdfPageFrame(page: PDFPage, read: PageInfo): PageFrame {
  const crop = page.getCropBox();
  const media = page.getMediaBox();
  const x0 = Math.max(crop.x, media.x);
  const y0 = Math.max(crop.y, media.y);
  const x1 = Math.min(crop.x + crop.width, media.x + media.width);
  const y1 = Math.min(crop.y + crop.height, media.y + media.height);
  const [bx, by, w, h] = x1 > x0 && y1 > y0 ? [x0, y0, x1 - x0, y1 - y0] : [media.x, media.y, media.width, media.height];
  switch ((((page.getRotation().angle % 360) + 360) % 360) as 0 | 90 | 180 | 270) {
    // Turned a quarter clockwise: across the page as read runs up the page's height, down it along its width.
    case 90: return ([x, y]) => [bx + (y * w) / read.height, by + (x * h) / read.width];
    case 180: return ([x, y]) => [bx + w - (x * w) / read.width, by + (y * h) / read.height];
    case 270: return ([x, y]) => [bx + w - (y * w) / read.height, by + h - (x * h) / read.width];
    default: return ([x, y]) => [bx + (x * w) / read.width, by + h - (y * h) / read.height];
  }
}

export class SearchablePdf {
  private font!: PDFFont;
  /** Code points the font maps; others are written as U+FFFD, which it has. */
  private covered!: Set<number>;

  private constructor(private readonly doc: PDFDocument, private readonly fromPdf: boolean) {}

  /** From a PDF input (its bytes), or for image inputs (null: pages are added as they come). */
  static async open(pdf: Uint8Array | null, fontFile: string): Promise<SearchablePdf> {
    const doc = pdf ? await PDFDocument.load(pdf, { updateMetadata: false }) : await PDFDocument.create();
    doc.registerFontkit(fontkit);
    const out = new SearchablePdf(doc, pdf !== null);
    out.font = await doc.embedFont(readFileSync(fontFile), { subset: true });
    out.covered = new Set(out.font.getCharacterSet());
    doc.setCreator('Saccade');
    doc.setProducer('Saccade (pdf-lib)');
    return out;
  }

  get pageCount(): number {
    return this.doc.getPageCount();
  }

  /**
   * Lays a page's words over it: page `index` of a PDF input, or a new page showing `image`. `textAngle` is
   * the direction the page's text runs in as read (radians, y down: pi/2 runs down the page), for lines that
   * do not carry their own.
   */
  async addPage(index: number, read: PageInfo, textAngle: number, regions: readonly HocrRegion[], image: PageImage | null): Promise<void> {
    let page: PDFPage;
    if (this.fromPdf) {
      page = this.doc.getPage(index);
    } else {
      if (!image) throw new Error(`page ${index + 1} has no image`);
      const embedded = image.kind === 'jpeg' ? await this.doc.embedJpg(image.bytes) : await this.doc.embedPng(image.bytes);
      const size: [number, number] = [(embedded.width * 72) / image.dpi, (embedded.height * 72) / image.dpi];
      page = this.doc.addPage(size);
      page.drawImage(embedded, { x: 0, y: 0, width: size[0], height: size[1] });
    }
    const frame = pdfPageFrame(page, read);
    const fontKey = page.node.newFontDictionary(this.font.name, this.font.ref);
    const words: PDFOperator[] = [];
    for (const { lines } of regions) {
      for (const line of lines) {
        // Words are laid along the line's direction (the page's where its crop did not say), to the nearest
        // quarter turn: their boxes are upright rectangles on the page as read, and a slightly skewed baseline
        // makes text extraction break words apart where their glyphs step.
        const turns = quarterTurns(line.angle ?? textAngle);
        const toUser: PageFrame = (p) => frame(turnPoint(p, (4 - turns) % 4));
        // In the line's own frame its text runs along x, y down.
        const boxes = line.words.map((w) => turnBox(w.box, turns));
        // Neighbours are laid apart and each word but the last is followed by a space, so that text
        // extraction and search see the words the model wrote.
        const spans = wordSpans(boxes);
        line.words.forEach((word, k) => {
          const [x0, x1] = spans[k]!;
          words.push(...this.word(word.text, k + 1 < line.words.length ? ' ' : '', { ...boxes[k]!, x0, x1 }, toUser, fontKey));
        });
      }
    }
    if (words.length === 0) return;
    // The page's own content is closed in a q ... Q of its own, so that a graphics state it leaves changed
    // cannot move or scale the words written after it.
    const context = this.doc.context;
    const before = context.register(PDFContentStream.of(context.obj({}), [pushGraphicsState()]));
    const after = context.register(PDFContentStream.of(context.obj({}), [
      popGraphicsState(), pushGraphicsState(), beginText(), setTextRenderingMode(TextRenderingMode.Invisible), ...words, endText(), popGraphicsState(),
    ]));
    page.node.normalize();
    page.node.wrapContentStreams(before, after);
  }

  /**
   * One word over its box in its line's frame (`toUser` maps that frame to PDF user space): as high as the
   * box, stretched to its length, centred on it; `after` (a space, or nothing) follows it at the same stretch.
   * A box much narrower than its text at that height (a blot read as a word) gets smaller type: text squeezed
   * to a sliver is broken apart by text extraction.
   */
  private word(raw: string, after: string, box: Box, toUser: PageFrame, fontKey: PDFName): PDFOperator[] {
    const text = [...raw].map((c) => (this.covered.has(c.codePointAt(0)!) ? c : '\ufffd')).join('');
    const origin = toUser([box.x0, box.y1]);
    const end = toUser([box.x1, box.y1]);
    const distance = (p: Point) => Math.hypot(p[0] - origin[0], p[1] - origin[1]);
    const lengthPt = distance(end);
    const heightPt = distance(toUser([box.x0, box.y0]));
    const natural = this.font.widthOfTextAtSize(text, 1);
    if (!text.trim() || lengthPt <= 0 || heightPt <= 0 || natural <= 0) return [];
    const size = Math.min(heightPt / this.font.heightAtSize(1), lengthPt / (MIN_SQUEEZE * natural));
    // The baseline stands the font's descent above the bottom of the type, which is centred on the box.
    const type = this.font.heightAtSize(size);
    const descent = type - this.font.heightAtSize(size, { descender: false });
    const pxPerPt = (box.y1 - box.y0) / heightPt;
    const [ux, uy] = toUser([box.x0, box.y1 - ((heightPt - type) / 2 + descent) * pxPerPt]);
    const angle = Math.atan2(end[1] - origin[1], end[0] - origin[0]);
    return [
      setFontAndSize(fontKey, size),
      setCharacterSqueeze((100 * lengthPt) / (natural * size)),
      setTextMatrix(Math.cos(angle), Math.sin(angle), -Math.sin(angle), Math.cos(angle), ux, uy),
      showText(this.font.encodeText(text + after)),
    ];
  }

  save(): Promise<Uint8Array> {
    return this.doc.save();
  }
}
