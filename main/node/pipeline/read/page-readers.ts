// The engines that read pages, each one page at a time. A page's work is a chain of small steps (layout in
// JavaScript, one line encoded after another, a decoder forward per token), and two threads on one page leave
// a core idle at every step that does not split; a page per core keeps both busy (docs/decisions/0044). A
// single engine is a set of one: the page pipeline then reads page after page, as the app does.
import type { NativeModel } from '../../engine/native-addon';

export class PageReaders {
  private readonly idle: NativeModel[];
  private readonly waiting: Array<(model: NativeModel) => void> = [];

  constructor(readonly models: readonly NativeModel[]) {
    if (models.length === 0) throw new Error('a page needs an engine to read it');
    this.idle = [...models];
  }

  /** How many pages can be read at once. */
  get size(): number {
    return this.models.length;
  }

  /** An engine no other page is reading with, when one is free. */
  acquire(): Promise<NativeModel> {
    const model = this.idle.pop();
    return model ? Promise.resolve(model) : new Promise((resolve) => this.waiting.push(resolve));
  }

  release(model: NativeModel): void {
    const next = this.waiting.shift();
    if (next) next(model);
    else this.idle.push(model);
  }
}

/** `engine` as a set of readers: a single model reads every page itself. */
export function pageReaders(engine: NativeModel | PageReaders): PageReaders {
  return engine instanceof PageReaders ? engine : new PageReaders([engine]);
}
