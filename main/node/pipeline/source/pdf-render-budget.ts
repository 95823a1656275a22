// pdf.js keeps every drawing operation of a page until the page is drawn, and has no limit of its own: a
// 100 KB PDF of two million tiny rectangles took 67 s and 3 GB for its one page. A page's drawing is stopped
// once it has run longer, or grown the process's memory more, than its budget; pdf.js pauses every ~15 ms
// of drawing to let it be checked. (Timers do not fire meanwhile: pdf.js keeps the event loop busy.)
import type { RenderTask } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface RenderBudget {
  ms: number;
  /** Growth of the process's resident memory since the drawing began: pdf.js's operator lists are on the
   * JS heap, but the canvas records the drawing in native memory too. */
  bytes: number;
}

/** Far above any real page (a dense map draws in a few seconds and a few hundred MB). */
export const DEFAULT_RENDER_BUDGET: RenderBudget = { ms: 60_000, bytes: 2 ** 30 };

/** Waits for the task; stopped over budget, it throws what was exceeded. */
export async function renderWithin(task: RenderTask, budget: RenderBudget): Promise<void> {
  const started = Date.now();
  const base = process.memoryUsage.rss();
  let exceeded: string | null = null;
  task.onContinue = (proceed: () => void) => {
    if (Date.now() - started > budget.ms) exceeded = `drawing it takes more than ${budget.ms / 1000} s`;
    else if (process.memoryUsage.rss() - base > budget.bytes) exceeded = `drawing it takes more than ${Math.round(budget.bytes / 2 ** 20)} MB`;
    if (exceeded) task.cancel();
    else proceed();
  };
  try {
    await task.promise;
  } catch (err) {
    throw exceeded ? new Error(`it is too complex: ${exceeded}`) : err;
  }
}
