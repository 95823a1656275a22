// One build for every runtime: Electron main + the Node entry points (server, engine host, CLI, batch, page service, bench,
// eval, the PDF workers), the preload script, and the renderer (which also runs unchanged in a plain browser).
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const nodeEntries = {
  'electron-main': resolve(__dirname, 'main/electron/electron-main.ts'),
  server: resolve(__dirname, 'main/node/server.ts'),
  'engine-host': resolve(__dirname, 'main/node/engine-host.ts'),
  cli: resolve(__dirname, 'main/node/cli.ts'),
  // Large archives through a queue on Redis: add, work, status.
  batch: resolve(__dirname, 'main/node/batch.ts'),
  // The model kept loaded, reading page images on request (the OCRmyPDF plugin's engine).
  'page-service': resolve(__dirname, 'main/node/page-service.ts'),
  eval: resolve(__dirname, 'main/node/eval.ts'),
  bench: resolve(__dirname, 'main/node/bench.ts'),
  'batch-bench': resolve(__dirname, 'main/node/batch-bench.ts'),
  // pdf.js runs in a worker thread of its own, loaded from this file (main/node/pipeline/source/pdf-source.ts).
  'pdf-worker': resolve(__dirname, 'main/node/pipeline/source/pdf-worker.ts'),
  // Searchable PDFs are made in one too, the CLI's and the app's export (main/node/exports/searchable-pdf-output.ts).
  'searchable-pdf-worker': resolve(__dirname, 'main/node/exports/searchable-pdf-worker.ts'),
};

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: nodeEntries,
        output: { format: 'cjs', entryFileNames: '[name].js' },
        // A development dependency with a native binding, which the benchmark loads where it is installed.
        external: ['onnxruntime-node'],
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve(__dirname, 'main/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'renderer/index.html') },
    },
  },
});
