// Pixels of one page for display: images are shown directly from their bytes, PDF pages are rendered with
// pdf.js (its worker bundled locally). TIFF has no browser decoder, so it shows the layout without pixels.
import type { DocumentInfo } from '../../../common/protocol';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

type PdfModule = typeof import('pdfjs-dist');
type PdfDocument = Awaited<ReturnType<PdfModule['getDocument']>['promise']>;

const MIME: Record<DocumentInfo['format'], string> = { png: 'image/png', jpeg: 'image/jpeg', tiff: 'image/tiff', pdf: 'application/pdf' };

export interface PageRaster {
  /**
   * Draws page `index` into a canvas `width` device pixels wide; false when the format cannot be shown, or when
   * a later draw into the same canvas took over before this one finished.
   */
  draw(index: number, canvas: HTMLCanvasElement, width: number): Promise<boolean>;
  close(): void;
}

let pdfjs: Promise<PdfModule> | null = null;
function loadPdfjs(): Promise<PdfModule> {
  pdfjs ??= import('pdfjs-dist').then((m) => {
    m.GlobalWorkerOptions.workerSrc = workerUrl;
    return m;
  });
  return pdfjs;
}

export function openRaster(format: DocumentInfo['format'], bytes: Uint8Array): PageRaster {
  if (format === 'pdf') {
    const doc: Promise<PdfDocument> = loadPdfjs().then((m) => m.getDocument({ data: bytes.slice(), isEvalSupported: false }).promise);
    // pdf.js refuses a second render into a canvas while one runs, and a page view redraws whenever its width
    // changes (fitting the window, zooming): a newer draw cancels the running one and waits for it to stop.
    const running = new WeakMap<HTMLCanvasElement, { cancel(): void; settled: Promise<unknown> }>();
    return {
      async draw(index, canvas, width) {
        const previous = running.get(canvas);
        let cancelled = false;
        // Until this draw renders, what a newer one must wait for is the render this one waits for.
        const self = { cancel: () => { cancelled = true; }, settled: previous?.settled ?? Promise.resolve() };
        running.set(canvas, self);
        previous?.cancel();
        await previous?.settled;
        const page = await (await doc).getPage(index + 1);
        if (cancelled) return false;
        const base = page.getViewport({ scale: 1 });
        const viewport = page.getViewport({ scale: width / base.width });
        canvas.width = Math.round(viewport.width);
        canvas.height = Math.round(viewport.height);
        const task = page.render({ canvas, viewport });
        self.cancel = () => {
          cancelled = true;
          task.cancel();
        };
        self.settled = task.promise.catch(() => undefined);
        try {
          await task.promise;
        } catch (e) {
          if (cancelled) return false;
          throw e;
        } finally {
          if (running.get(canvas) === self) running.delete(canvas);
        }
        return true;
      },
      close() {
        void doc.then((d) => d.destroy()).catch(() => undefined);
      },
    };
  }
  const url = URL.createObjectURL(new Blob([bytes.slice()], { type: MIME[format] }));
  const image = format === 'tiff' ? null : new Image();
  const loaded = image ? new Promise<boolean>((resolve) => {
    image.onload = () => resolve(true);
    image.onerror = () => resolve(false);
    image.src = url;
  }) : Promise.resolve(false);
  return {
    async draw(_index, canvas, width) {
      if (!(await loaded) || !image) return false;
      canvas.width = Math.round(width);
      canvas.height = Math.round((width * image.naturalHeight) / image.naturalWidth);
      const ctx = canvas.getContext('2d')!;
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
      return true;
    },
    close() {
      URL.revokeObjectURL(url);
    },
  };
}
