// The renderer's one way to reach the engine session. Two carriers implement it: Electron's preload bridge
// and a WebSocket to the local server; the UI never knows which one it has.
import type { RequestMap, RequestName, SessionEvent } from '../../../common/protocol';

export interface Transport {
  readonly kind: 'electron' | 'websocket';
  request<N extends RequestName>(name: N, params: RequestMap[N][0]): Promise<RequestMap[N][1]>;
  onEvents(listener: (events: SessionEvent[]) => void): () => void;
}
