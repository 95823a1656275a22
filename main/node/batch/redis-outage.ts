// A worker's log while its Redis is away. ioredis retries the connection every moment and BullMQ reports each
// failed try (40 `connect ECONNREFUSED` lines in 11 s); the operator needs two lines: when the connection was
// lost, and when it is back with how long it was down.
export class RedisOutage {
  private downSince: number | null = null;

  constructor(private readonly log: (line: string) => void, private readonly now: () => number = Date.now) {}

  /** A connection error: the first since Redis was last reachable is logged. */
  lost(reason: string): void {
    if (this.downSince !== null) return;
    this.downSince = this.now();
    this.log(`lost Redis (${reason}); retrying until it is back`);
  }

  /** The connection is ready again. */
  back(): void {
    if (this.downSince === null) return;
    this.log(`Redis back after ${((this.now() - this.downSince) / 1000).toFixed(1)} s`);
    this.downSince = null;
  }
}
