// A one-line progress bar for the terminal; on a pipe it prints a line per tenth of the work instead.
export class ProgressBar {
  private label = '';
  private lastTenth = -1;

  /** `unit`: what is counted. */
  constructor(private readonly stream: NodeJS.WriteStream, private readonly unit = 'regions') {}

  start(label: string): void {
    this.label = label;
    this.lastTenth = -1;
  }

  update(done: number, total: number, remainingMs: number | null): void {
    const frac = total > 0 ? Math.min(1, done / total) : 0;
    const eta = remainingMs === null ? '' : ` eta ${Math.ceil(remainingMs / 1000)} s`;
    if (this.stream.isTTY) {
      const width = 30;
      const filled = Math.round(frac * width);
      this.stream.write(`\r${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(frac * 100)}% ${done}/${total} ${this.unit}${eta}   `);
      return;
    }
    const tenth = Math.floor(frac * 10);
    if (tenth > this.lastTenth) {
      this.lastTenth = tenth;
      this.stream.write(`${this.label}: ${Math.round(frac * 100)}% ${done}/${total} ${this.unit}${eta}\n`);
    }
  }

  done(): void {
    if (this.stream.isTTY) this.stream.write('\n');
  }
}
