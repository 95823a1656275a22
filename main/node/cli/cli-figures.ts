// A document's figures, out of sight until the document ends: each is written into a hidden folder beside the
// Markdown (.<name>.md.figures-XXXXXX), and moved to its own name there (<name>-p<page>-figure<n>.png, which
// the Markdown links) when the document is finished, with the pages that link it. Nothing in the output
// folder is ever a part-written or temporary file of a figure; a figure of a page whose Markdown was not
// written (the document failed on that page) goes with the hidden folder.
import { linkSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { sharp } from '../inputs/image-codec';
import type { FigureSink } from '../pipeline';
import { shownPath } from './user-folder';

export class StagedFigures {
  private staging: string | null = null;
  /** Figures written, by page. */
  private readonly staged = new Map<number, string[]>();
  private readonly written = new Set<number>();
  private published = false;

  constructor(
    private readonly markdown: string,
    /** Replace existing files (never an input). */
    private readonly force: boolean,
    private readonly isInput: (path: string) => boolean,
  ) {}

  readonly sink: FigureSink = async ({ page, index, image }) => {
    const name = `${basename(this.markdown).replace(/\.md$/i, '')}-p${page + 1}-figure${index}.png`;
    const png = await sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.length), { raw: { width: image.width, height: image.height, channels: 1 } }).png().toBuffer();
    // A page still in flight when its document failed: the document is finished, and its Markdown has no page for it.
    if (this.published) return null;
    this.staging ??= mkdtempSync(join(dirname(this.markdown), `.${basename(this.markdown)}.figures-`));
    writeFileSync(join(this.staging, name), png, { flag: 'wx' });
    this.staged.set(page, [...(this.staged.get(page) ?? []), name]);
    return name;
  };

  /** The page's Markdown is written: its figures go in place with the document. */
  pageWritten(page: number): void {
    this.written.add(page);
  }

  /** Moves the figures of the pages written to their names beside the Markdown, and drops the rest. */
  publish(): void {
    this.published = true;
    if (this.staging === null) return;
    try {
      for (const [page, names] of this.staged) {
        if (!this.written.has(page)) continue;
        for (const name of names) {
          const to = join(dirname(this.markdown), name);
          if (this.isInput(to)) throw new Error(`${shownPath(to)} is an input; a figure may not replace it`);
          // Without --force nothing existing is replaced, even a file that appeared since the plan was
          // checked: a link fails where a rename would replace.
          if (this.force) renameSync(join(this.staging, name), to);
          else linkSync(join(this.staging, name), to);
        }
      }
    } finally {
      rmSync(this.staging, { recursive: true, force: true });
      this.staging = null;
    }
  }
}
