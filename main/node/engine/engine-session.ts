// One session of the engine: what one window or browser tab asked for. It answers that connection's requests,
// streams its decode's events to it alone (each batch naming its document), acts only on the documents it
// opened, and releases them when the connection goes. Sessions live in the engine process (a child of the
// server, or an Electron utility process) so a native crash never takes a window down; what they share (the
// model, the decoder) is the SharedEngine's.
import { basename } from 'node:path';
import {
  MAX_DOCUMENTS_PER_SESSION, type DocumentInfo, type EventBatch, type ModelInfo, type RequestMessage, type RequestMap,
  type RequestName,
} from '../../../common/protocol';
import { editedSearchablePdf } from '../exports/edited-pdf';
import { readModelCard } from '../models/model-folder';
import { defaultModelDir, type NativeModel } from './native-addon';
import type { OpenedDocument, SharedEngine } from './shared-engine';

type Handler<N extends RequestName> = (params: RequestMap[N][0]) => Promise<RequestMap[N][1]>;

/** What the UI shows of a loaded model: its name, size, type and card. */
export function describeModel(model: NativeModel, dir: string): ModelInfo {
  const info = model.info();
  return {
    // The engine names the model by its folder (assets/models/<name>) when the checkpoint has no name.
    name: String(info.name ?? basename(dir)),
    parameters: Number(info.parameters ?? 0),
    path: dir,
    mtpHead: Boolean(info.mtpHead),
    drafter: Number(info.diffusionBlockSize ?? 0) > 0,
    modelType: String(info.modelType ?? 'saccade_ocr'),
    card: readModelCard(dir),
    embedded: dir === defaultModelDir(),
  };
}

export class EngineSession {
  /** Only documents this session opened: another session's ids are unknown here, like closed ones. */
  private readonly documents = new Map<string, OpenedDocument>();
  /** What gives each open document's bytes back to the engine's total (SharedEngine.holdDocumentBytes). */
  private readonly held = new Map<string, () => void>();
  /** Each open document's bytes, which its searchable PDF is made of (counted in `held` already). */
  private readonly inputs = new Map<string, Uint8Array>();
  /** Opens under way count against the cap before their documents exist. */
  private opening = 0;
  private running: AbortController | null = null;
  private ended = false;

  constructor(
    private readonly engine: SharedEngine,
    private readonly send: (batch: EventBatch) => void,
  ) {}

  private readonly handlers: { [N in RequestName]: Handler<N> } = {
    hello: async () => {
      const addon = this.engine.nativeAddon();
      const model = await this.engine.loadedModel();
      const dir = this.engine.currentModelDir();
      const engine = addon.info();
      return {
        // The backend the model actually runs on ("auto" picks CUDA only where a device answers).
        engine: { ...engine, backend: String(model.info().backend ?? engine.backend) },
        model: describeModel(model, dir),
        vocab: model.vocabulary(),
      };
    },
    recentModels: async () => ({ folders: this.engine.recentModelFolders() }),
    switchModel: async ({ dir }) => {
      const model = await this.engine.switchModel(dir, this);
      const loaded = this.engine.currentModelDir();
      return { model: describeModel(model, loaded), vocab: model.vocabulary() };
    },
    listSamples: async () => this.engine.pipeline().listSamples(),
    openSample: async ({ name }) => {
      const sample = this.engine.pipeline().readSample(name);
      const doc = await this.open(sample.name, sample.bytes);
      return { doc, bytes: Buffer.from(sample.bytes).toString('base64') };
    },
    // A plain Uint8Array: some decoders (pdf.js) refuse Node's Buffer subclass.
    openDocument: async ({ name, bytes }) => ({ doc: await this.open(name, new Uint8Array(Buffer.from(bytes, 'base64'))) }),
    decode: async ({ docId, pages, options }) => {
      const doc = this.documents.get(docId);
      if (!doc) throw new Error('This document is no longer open in the engine; open it again.');
      if (this.running) throw new Error('A decode is already running; cancel it first.');
      const pipeline = this.engine.pipeline();
      if (!this.engine.claimDecoder(this)) {
        throw new Error('The engine is decoding a document of another window or tab; decode this one when that has finished.');
      }
      // Running from the request on: a cancel that comes while the model is still loading (the first decode
      // after an engine restart) must stop this decode, not find nothing to stop.
      const controller = new AbortController();
      this.running = controller;
      const emit = (events: EventBatch['events']) => { if (!this.ended) this.send({ docId, events }); };
      try {
        const model = await this.engine.loadedModel();
        return await pipeline.decodeDocument(doc, model, { options, pages, emit, signal: controller.signal });
      } finally {
        this.running = null;
        this.engine.releaseDecoder(this);
        if (this.ended) this.releaseDocuments();
      }
    },
    cancel: async () => {
      const running = this.running;
      running?.abort();
      return { cancelled: running !== null };
    },
    exportSearchablePdf: async ({ docId, text, events }) => {
      const doc = this.documents.get(docId);
      const input = this.inputs.get(docId);
      if (!doc || !input) throw new Error('This document is no longer open in the engine; open it again.');
      const pdf = await editedSearchablePdf(doc.info, input, events, text);
      return { bytes: Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('base64') };
    },
    closeDocument: async ({ docId }) => {
      const doc = this.documents.get(docId);
      if (doc) this.closeOne(doc);
      return { closed: doc !== undefined };
    },
  };

  async handle(request: RequestMessage): Promise<unknown> {
    const handler = this.handlers[request.name] as Handler<RequestName>;
    return handler(request.params);
  }

  /** The connection is gone: its decode stops, and its documents are released once nothing uses them. */
  end(): void {
    this.ended = true;
    this.running?.abort();
    if (!this.running) this.releaseDocuments();
  }

  private releaseDocuments(): void {
    for (const doc of [...this.documents.values()]) this.closeOne(doc);
  }

  private closeOne(doc: OpenedDocument): void {
    doc.close();
    this.held.get(doc.info.docId)?.();
    this.held.delete(doc.info.docId);
    this.inputs.delete(doc.info.docId);
    this.documents.delete(doc.info.docId);
  }

  private async open(name: string, bytes: Uint8Array): Promise<DocumentInfo> {
    if (this.documents.size + this.opening >= MAX_DOCUMENTS_PER_SESSION) {
      throw new Error(`${name}: ${MAX_DOCUMENTS_PER_SESSION} documents are open in this window already; close one first.`);
    }
    const release = this.engine.holdDocumentBytes(name, bytes.length);
    this.opening++;
    try {
      const doc = await this.engine.pipeline().openDocument(name, bytes);
      if (this.ended) {
        doc.close();
        throw new Error(`${name}: the connection closed while the document was opening`);
      }
      this.documents.set(doc.info.docId, doc);
      this.held.set(doc.info.docId, release);
      this.inputs.set(doc.info.docId, bytes);
      return doc.info;
    } catch (err) {
      release();
      throw err;
    } finally {
      this.opening--;
    }
  }
}
