// The engine session: answers the renderer's requests and streams decoding events. It runs in its own
// process (a child of the server, or an Electron utility process) so a native crash never takes a window down.
import type { RequestMessage, RequestMap, RequestName, SessionEvent } from '../../common/protocol';
import { defaultModelDir, loadAddon, type NativeAddon, type NativeModel } from './native-addon';

type Handler<N extends RequestName> = (params: RequestMap[N][0]) => Promise<RequestMap[N][1]>;

export class EngineSession {
  private addon: NativeAddon | null = null;
  private model: NativeModel | null = null;

  constructor(private readonly emit: (events: SessionEvent[]) => void) {}

  private readonly handlers: { [N in RequestName]?: Handler<N> } = {
    hello: async () => {
      const addon = this.ensureAddon();
      const model = await this.ensureModel();
      const info = model.info();
      return {
        engine: addon.info(),
        model: {
          name: String(info.name ?? 'unknown'),
          parameters: Number(info.parameters ?? 0),
          path: String(info.path ?? defaultModelDir()),
        },
      };
    },
  };

  async handle(request: RequestMessage): Promise<unknown> {
    const handler = this.handlers[request.name] as Handler<RequestName> | undefined;
    if (!handler) throw new Error(`request ${request.name} is not available in this build`);
    return handler(request.params);
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
