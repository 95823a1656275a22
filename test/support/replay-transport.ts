// A transport for the renderer that replays a constructed decode instead of reaching an engine: installed as
// `window.saccade` before the page loads (the same slot Electron's preload fills), so the unchanged UI runs
// against event sequences that follow common/engine-types.ts. Used where the real engine is not built.
import type { SyntheticDecode } from './synthetic-decode';

export interface ReplayData {
  decode: Pick<SyntheticDecode, 'doc' | 'batches' | 'vocab'>;
  pageBase64: string;
  /** Delay between event batches, so the UI is seen mid-decode. */
  batchMs: number;
}

/** Runs in the page (serialised by Playwright): it may use nothing from outside its body. */
export function installReplayTransport(data: ReplayData): void {
  type Listener = (batch: { docId: string | null; events: unknown[] }) => void;
  const listeners = new Set<Listener>();
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const sample = { name: data.decode.doc.name, title: 'Quarterly report (replayed decode)' };
  const handlers: Record<string, (params: Record<string, unknown>) => Promise<unknown>> = {
    hello: async () => ({
      engine: { version: 'replay', backends: ['replay'], backend: 'replay', cpuFeatures: {}, threads: 1 },
      model: { name: 'recorded events', parameters: 0, path: '' },
      vocab: data.decode.vocab,
    }),
    listSamples: async () => [sample],
    openSample: async () => ({ doc: data.decode.doc, bytes: data.pageBase64 }),
    // Any file opens as the sample page under its own name, a document of its own.
    openDocument: async (p) => ({ doc: { ...data.decode.doc, name: String(p.name) } }),
    closeDocument: async () => ({ closed: true }),
    // The engine's part of the export is tested in main/node/exports/edited-pdf.test.ts: here the request is kept for
    // the test to read (window.exportRequests), and a one-page PDF comes back.
    exportSearchablePdf: async (p) => {
      (window as unknown as { exportRequests: unknown[] }).exportRequests.push(p);
      return { bytes: btoa('%PDF-1.4\n%%EOF\n') };
    },
    cancel: async () => { cancelled = true; return { cancelled: true }; },
    decode: () => new Promise((resolve) => {
      cancelled = false;
      let i = 0;
      const step = () => {
        if (cancelled || i >= data.decode.batches.length) {
          resolve({ cancelled });
          return;
        }
        const events = data.decode.batches[i++]!;
        for (const l of listeners) l({ docId: data.decode.doc.docId, events });
        timer = setTimeout(step, data.batchMs);
      };
      if (timer) clearTimeout(timer);
      step();
    }),
  };
  (window as unknown as { exportRequests: unknown[] }).exportRequests = [];
  (window as unknown as { saccade: unknown }).saccade = {
    kind: 'electron',
    request: (name: string, params: Record<string, unknown>) => handlers[name]!(params),
    onEvents: (l: Listener) => { listeners.add(l); return () => listeners.delete(l); },
  };
}

/** The init script for Playwright: the function's source plus its data (the TypeScript loader may wrap named
 * functions in a `__name` helper that does not exist in the page, hence the stand-in). */
export function replayScript(data: ReplayData): { content: string } {
  return { content: `var __name = (f) => f;\n(${installReplayTransport.toString()})(${JSON.stringify(data)});` };
}
