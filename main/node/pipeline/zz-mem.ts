import { readFileSync } from 'node:fs';
import { openPageSource } from './page-source';
(async () => {
  const src = await openPageSource(new Uint8Array(readFileSync('/tmp/pp/big.pdf')));
  for (let i = 0; i < 25; i++) {
    await src.render(0);
    (globalThis as { gc?: () => void }).gc?.();
    if (i % 8 === 0) console.log(i, Math.round(process.memoryUsage().rss / 1e6), 'MB rss');
  }
  src.close();
})();
