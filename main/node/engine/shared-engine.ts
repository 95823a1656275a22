// What every session of one engine process shares: the native addon, the model (loaded once, on first use),
// the page pipeline, and the decoder itself, which runs one decode at a time whichever session asked for it.
// What a session owns (its documents, its decode, its events) stays in its EngineSession. The model is the
// engine's, so a switch to another model folder is every session's: it waits for no decode but is refused
// while one runs (a decode keeps the model it started with), and a folder that fails to load leaves the
// previous model in place.
import { MAX_OPEN_DOCUMENT_BYTES, type DocumentInfo, type SampleInfo } from '../../../common/protocol';
import { checkModelFolder } from '../models/model-folder';
import { RecentModelFolders } from '../models/recent-model-folders';
import { defaultModelDir, loadAddon, type NativeAddon, type NativeModel } from './native-addon';
import type { DocumentRun } from '../pipeline';

/** The model types the page pipeline can drive (the engine's own modelType names). */
const KNOWN_MODEL_TYPES = new Set(['saccade_ocr', 'glm_ocr']);

/** The page pipeline (main/node/pipeline): documents in, layout regions and engine events out. */
export interface OpenedDocument {
  info: DocumentInfo;
  close(): void;
}

export interface PagePipeline {
  openDocument(name: string, bytes: Uint8Array): Promise<OpenedDocument>;
  decodeDocument(doc: OpenedDocument, model: NativeModel, run: DocumentRun): Promise<{ cancelled: boolean }>;
  listSamples(): SampleInfo[];
  readSample(name: string): { name: string; bytes: Uint8Array };
}

export class SharedEngine {
  private addon: NativeAddon | null = null;
  private model: Promise<NativeModel> | null = null;
  private decoderOwner: object | null = null;
  private modelDir = defaultModelDir();
  /** Bytes of the documents every session holds open: bounded together, not only per session. */
  private openBytes = 0;

  constructor(
    private readonly pagePipeline: PagePipeline | null,
    private readonly recent = new RecentModelFolders(null),
  ) {}

  /**
   * Counts a document's bytes against what all sessions together may hold open, or refuses it in one line;
   * the function returned gives them back (once).
   */
  holdDocumentBytes(name: string, bytes: number): () => void {
    if (this.openBytes + bytes > MAX_OPEN_DOCUMENT_BYTES) {
      const mb = (n: number) => Math.round(n / 2 ** 20);
      throw new Error(`${name}: the engine holds ${mb(this.openBytes)} MB of open documents from all windows and tabs, and keeps at most ${mb(MAX_OPEN_DOCUMENT_BYTES)} MB; close documents you are done with.`);
    }
    this.openBytes += bytes;
    let held = true;
    return () => {
      if (held) this.openBytes -= bytes;
      held = false;
    };
  }

  pipeline(): PagePipeline {
    if (!this.pagePipeline) throw new Error('The page pipeline is not built yet: this build cannot open documents.');
    return this.pagePipeline;
  }

  nativeAddon(): NativeAddon {
    this.addon ??= loadAddon();
    return this.addon;
  }

  /** One load however many sessions ask at once; a failed load is tried again by the next caller. */
  loadedModel(): Promise<NativeModel> {
    if (!this.model) {
      const dir = this.modelDir;
      const loading = Promise.resolve().then(() => this.nativeAddon().loadModel(dir));
      this.model = loading;
      loading.catch(() => { if (this.model === loading) this.model = null; });
    }
    return this.model;
  }

  /** The folder of the model loadedModel gives. */
  currentModelDir(): string {
    return this.modelDir;
  }

  /** Folders loaded before, most recent first; the embedded default is not among them. */
  recentModelFolders(): string[] {
    return this.recent.list().filter((dir) => dir !== defaultModelDir());
  }

  /**
   * Loads `dir` (null: the embedded default) in place of the current model. Holds the decoder meanwhile, so no
   * decode starts on a model about to close; throws one line, with the previous model still loaded.
   */
  async switchModel(dir: string | null, owner: object): Promise<NativeModel> {
    if (!this.claimDecoder(owner)) {
      throw new Error('A decode is running; switch the model when it has finished or been cancelled.');
    }
    try {
      const target = dir === null ? defaultModelDir() : checkModelFolder(dir);
      let next: NativeModel;
      try {
        next = await this.nativeAddon().loadModel(target);
      } catch (err) {
        throw new Error(`${dir ?? target}: ${oneLine(err)}`);
      }
      const type = String(next.info().modelType ?? '');
      if (!KNOWN_MODEL_TYPES.has(type)) {
        next.close();
        throw new Error(`${dir ?? target}: Saccade cannot read a model of type "${type}"`);
      }
      const previous = this.model;
      this.model = Promise.resolve(next);
      this.modelDir = target;
      if (dir !== null && target !== defaultModelDir()) this.recent.add(target);
      if (previous) await previous.then((m) => m.close(), () => undefined);
      return next;
    } finally {
      this.releaseDecoder(owner);
    }
  }

  /** Takes the decoder for `owner`; false while another decode holds it. */
  claimDecoder(owner: object): boolean {
    if (this.decoderOwner !== null) return false;
    this.decoderOwner = owner;
    return true;
  }

  releaseDecoder(owner: object): void {
    if (this.decoderOwner === owner) this.decoderOwner = null;
  }
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
}
