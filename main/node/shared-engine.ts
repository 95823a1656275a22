// What every session of one engine process shares: the native addon, the model (loaded once, on first use),
// the page pipeline, and the decoder itself, which runs one decode at a time whichever session asked for it.
// What a session owns (its documents, its decode, its events) stays in its EngineSession.
import type { DecodeOptions, DecodeResult } from '../../common/engine-types';
import type { DocumentInfo, SampleInfo, SessionEvent } from '../../common/protocol';
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

export class SharedEngine {
  private addon: NativeAddon | null = null;
  private model: Promise<NativeModel> | null = null;
  private decoderOwner: object | null = null;

  constructor(private readonly pagePipeline: PagePipeline | null) {}

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
      const loading = Promise.resolve().then(() => this.nativeAddon().loadModel(defaultModelDir()));
      this.model = loading;
      loading.catch(() => { if (this.model === loading) this.model = null; });
    }
    return this.model;
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
