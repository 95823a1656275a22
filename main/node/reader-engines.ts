// The engines a command-line run reads with. One page alone reads soonest on every thread of one engine; a run
// of several pages reads the most pages per second with an engine of one thread per core, each reading its own
// page (docs/decisions/0044). A GPU reads every page itself.
import type { NativeAddon, NativeModel } from './native-addon';
import { PageReaders } from './pipeline';

export class ReaderEngines {
  private whole: Promise<NativeModel> | null = null;
  private alone: PageReaders | null = null;
  private perCore: Promise<PageReaders> | null = null;

  /** `threads`: the run's threads (the engine's default: one per core). */
  constructor(private readonly addon: NativeAddon, private readonly dir: string, private readonly threads?: number) {}

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
    const threads = Number(whole.info().threads);
    if (pages <= 1 || !(threads > 1) || whole.info().backend !== 'cpu') return (this.alone ??= new PageReaders([whole]));
    this.perCore ??= Promise.all(Array.from({ length: threads }, () => this.addon.loadModel(this.dir, { threads: 1 })))
      .then((models) => new PageReaders(models));
    return this.perCore;
  }

  async close(): Promise<void> {
    if (this.whole) (await this.whole).close();
    for (const m of (await this.perCore)?.models ?? []) m.close();
  }
}
