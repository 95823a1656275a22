// Bounds the memory uploads can take across every connection together. ws buffers a message whole before it
// hands it over, so bytes are counted from the moment they arrive on a socket until the engine has answered
// the request they carried; a connection whose bytes would pass the bound is cut off at once, before ws
// buffers any more of its message.
import type { Duplex } from 'node:stream';

/** The most a WebSocket frame header adds to its payload (64-bit length and a client's mask key). */
const MAX_FRAME_HEADER = 14;

export interface ConnectionBytes {
  /** A whole message of `size` bytes arrived; its bytes stay counted until the returned function is called. */
  messageArrived(size: number): () => void;
  /** The connection closed: what it was still sending no longer counts. */
  stop(): void;
}

export class UploadBudget {
  private inFlight = 0;

  constructor(readonly limit: number) {}

  get bytesInFlight(): number {
    return this.inFlight;
  }

  watch(socket: Duplex, cutOff: () => void): ConnectionBytes {
    /** Bytes of messages this connection is still sending. */
    let arriving = 0;
    let stopped = false;
    const onData = (chunk: Buffer) => {
      arriving += chunk.length;
      this.inFlight += chunk.length;
      if (this.inFlight > this.limit) cutOff();
    };
    // Ahead of ws's own listener, which may hand a message over within the chunk that completes it: the chunk
    // must be counted by then, or messageArrived would find its last bytes missing.
    socket.prependListener('data', onData);
    return {
      messageArrived: (size) => {
        let held = Math.min(arriving, size + MAX_FRAME_HEADER);
        arriving -= held;
        return () => {
          this.inFlight -= held;
          held = 0;
        };
      },
      stop: () => {
        if (stopped) return;
        stopped = true;
        socket.off('data', onData);
        this.inFlight -= arriving;
        arriving = 0;
      },
    };
  }
}
