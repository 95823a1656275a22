// The engine session: answers the renderer's requests and streams decoding events. It runs in its own
// process (a child of the server, or an Electron utility process) so a native crash never takes a window down.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DecodeOptions, DecodeResult } from '../../common/engine-types';
import type { DocumentInfo, RequestMessage, RequestMap, RequestName, SampleInfo, SessionEvent } from '../../common/protocol';
import { defaultModelDir, loadAddon, type NativeAddon, type NativeModel } from './native-addon';

/** The page pipeline (main/node/pipeline): documents in, layout regions and engine events out. */
export interface OpenedDocument {
  info: DocumentInfo;
  close(): void;
}

export interface PagePipeline {
  openDocument(name: string, bytes: Uint8Array): Promise<OpenedDocument>;
  decodeDocument(doc: OpenedDocument, model: NativeModel, options: DecodeOptions, pages: number[] | null,
    emit: (events: SessionEvent[]) => void, signal: AbortSignal): Promise<DecodeResult & { markdown: string }>;
  listSamples(): SampleInfo[];
  readSample(name: string): { name: string; bytes: Uint8Array };
}

type Handler<N extends RequestName> = (params: RequestMap[N][0]) => Promise<RequestMap[N][1]>;

/** Token id -> text, as the model's tokenizer.json defines it; special tokens render as nothing. */
export function readVocab(modelDir: string): string[] | undefined {
  const path = join(modelDir, 'tokenizer.json');
  if (!existsSync(path)) return undefined;
  const json = JSON.parse(readFileSync(path, 'utf8')) as {
    model?: { vocab?: Record<string, number> };
    added_tokens?: Array<{ id: number; special?: boolean }>;
  };
  const vocab: string[] = [];
  for (const [text, id] of Object.entries(json.model?.vocab ?? {})) vocab[id] = text;
  for (const t of json.added_tokens ?? []) if (t.special) vocab[t.id] = '';
  return Array.from(vocab, (t) => t ?? '');
}

export class EngineSession {
  private addon: NativeAddon | null = null;
  private model: NativeModel | null = null;
  private readonly documents = new Map<string, OpenedDocument>();
  private running: AbortController | null = null;

  constructor(
    private readonly emit: (events: SessionEvent[]) => void,
    private readonly pipeline: PagePipeline | null,
  ) {}

  private readonly handlers: { [N in RequestName]: Handler<N> } = {
    hello: async () => {
      const addon = this.ensureAddon();
      const model = await this.ensureModel();
      const info = model.info();
      const dir = String(info.path ?? info.dir ?? defaultModelDir());
      const engine = addon.info();
      return {
        // The backend the model actually runs on ("auto" picks CUDA only where a device answers).
        engine: { ...engine, backend: String(info.backend ?? engine.backend) },
        model: {
          // The engine names the model by its folder (assets/models/<name>) when the checkpoint has no name.
          name: String(info.name ?? basename(dir)),
          parameters: Number(info.parameters ?? 0),
          path: dir,
          mtpHead: Boolean(info.mtpHead),
        },
        vocab: readVocab(defaultModelDir()),
      };
    },
    listSamples: async () => this.ensurePipeline().listSamples(),
    openSample: async ({ name }) => {
      const sample = this.ensurePipeline().readSample(name);
      const doc = await this.open(sample.name, sample.bytes);
      return { doc, bytes: Buffer.from(sample.bytes).toString('base64') };
    },
    // A plain Uint8Array: some decoders (pdf.js) refuse Node's Buffer subclass.
    openDocument: async ({ name, bytes }) => ({ doc: await this.open(name, new Uint8Array(Buffer.from(bytes, 'base64'))) }),
    decode: async ({ docId, pages, options }) => {
      const doc = this.documents.get(docId);
      if (!doc) throw new Error('This document is no longer open in the engine; open it again.');
      if (this.running) throw new Error('A decode is already running; cancel it first.');
      const pipeline = this.ensurePipeline();
      // Running from the request on: a cancel that comes while the model is still loading (the first decode
      // after an engine restart) must stop this decode, not find nothing to stop.
      const controller = new AbortController();
      this.running = controller;
      try {
        const model = await this.ensureModel();
        const { regions, cancelled } = await pipeline.decodeDocument(doc, model, options, pages, this.emit, controller.signal);
        return { regions, cancelled };
      } finally {
        this.running = null;
      }
    },
    cancel: async () => {
      const running = this.running;
      running?.abort();
      return { cancelled: running !== null };
    },
    closeDocument: async ({ docId }) => {
      const doc = this.documents.get(docId);
      doc?.close();
      this.documents.delete(docId);
      return { closed: doc !== undefined };
    },
  };

  async handle(request: RequestMessage): Promise<unknown> {
    const handler = this.handlers[request.name] as Handler<RequestName>;
    return handler(request.params);
  }

  private async open(name: string, bytes: Uint8Array): Promise<DocumentInfo> {
    const doc = await this.ensurePipeline().openDocument(name, bytes);
    this.documents.set(doc.info.docId, doc);
    return doc.info;
  }

  private ensurePipeline(): PagePipeline {
    if (!this.pipeline) throw new Error('The page pipeline is not built yet: this build cannot open documents.');
    return this.pipeline;
  }

  private ensureAddon(): NativeAddon {
    this.addon ??= loadAddon();
    return this.addon;
  }

  private async ensureModel(): Promise<NativeModel> {
    this.model ??= await this.ensureAddon().loadModel(defaultModelDir());
    return this.model;
  }
}
