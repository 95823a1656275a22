// The engines a command-line run reads with. One page alone reads soonest on every thread of one engine; a run
// of several pages reads the most pages per second with an engine of one thread per core, each reading its own
// page (docs/decisions/0044). A GPU reads every page itself, and so does a model whose copies would crowd the
// memory (a GLM-OCR checkpoint is a thousand times the line model).
import { freemem } from 'node:os';
import type { NativeAddon, NativeModel } from './native-addon';
import { PageReaders } from '../pipeline';

/** The extra copies' weights may take this share of the memory free when they are loaded. */
const COPIES_SHARE_OF_FREE_MEMORY = 0.25;

export class ReaderEngines {
  private whole: Promise<NativeModel> | null = null;
  private alone: PageReaders | null = null;
  private perCore: Promise<PageReaders> | null = null;

  /** `threads`: the run's threads (the engine's default: one per core). */
  constructor(private readonly addon: NativeAddon, private readonly dir: string, private readonly threads?: number,
    private readonly freeBytes: () => number = freemem) {}

  /** The engine with every thread: it names the model and reads a run of one page. */
  first(): Promise<NativeModel> {
    this.whole ??= this.addon.loadModel(this.dir, this.threads === undefined ? {} : { threads: this.threads });
    return this.whole;
  }

  /**
   * The readers for a run of `pages` pages, the same set for every document of the run, so that documents
   * read side by side share the cores.
   */
  async forPages(pages: number): Promise<PageReaders> {
    const whole = await this.first();
    const info = whole.info();
    const threads = Number(info.threads);
    const weightBytes = Number(info.parameters) * (String(info.weightDtype).includes('16') ? 2 : 4);
    const copiesFit = threads * weightBytes <= COPIES_SHARE_OF_FREE_MEMORY * this.freeBytes();
    if (pages <= 1 || !(threads > 1) || info.backend !== 'cpu' || !copiesFit) return (this.alone ??= new PageReaders([whole]));
    this.perCore ??= Promise.all(Array.from({ length: threads }, () => this.addon.loadModel(this.dir, { threads: 1 })))
      .then((models) => new PageReaders(models));
    return this.perCore;
  }

  async close(): Promise<void> {
    if (this.whole) (await this.whole).close();
    for (const m of (await this.perCore)?.models ?? []) m.close();
  }
}
