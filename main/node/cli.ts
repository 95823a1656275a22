// `npm run ocr -- <files, folders, 'globs' or -...> -o <out.md, out.pdf or folder> [--mode ar|spec|mtp|diffusion] [--json] [--hocr] [--pdf] ...`:
// scans to Markdown (and hOCR: words with their boxes and confidences; and searchable PDFs) from the command line. Options,
// inputs (a folder's tree, cli-inputs.ts) and outputs are checked before any work (a bad one: one line, exit status
// 2); a file that cannot be read is reported on one line and the batch goes on; the exit status says whether every
// file succeeded (130: cancelled with Ctrl+C).
import { mkdirSync } from 'node:fs';
import { parseArgs, type CliArgs } from './cli/cli-args';
import { DocumentOutputs } from './cli/cli-document-outputs';
import { expandInputs, type ExpandedInputs } from './cli/cli-inputs';
import { planOutputs, type OutputPlan } from './cli/cli-outputs';
import { defaultDecodeMode, loadAddon } from './engine/native-addon';
import { readInput } from './inputs/input-file';
import { decodeDocument, openDocument, type PageReaders } from './pipeline';
import { ReaderEngines } from './engine/reader-engines';
import { ProgressBar } from './cli/progress-bar';
import { readStandardInput } from './cli/standard-input';
import { terminalText } from './cli/terminal-text';
import { userPath } from './cli/user-folder';

async function main(): Promise<number> {
  let args: CliArgs;
  let listed: ExpandedInputs;
  let plan: OutputPlan;
  try {
    args = parseArgs(process.argv.slice(2));
    const out = args.out === null ? null : userPath(args.out);
    listed = expandInputs(args.files, out);
    plan = planOutputs(listed, out, args);
    for (const folder of plan.folders) mkdirSync(folder, { recursive: true });
  } catch (err) {
    // An option's value or a path quoted in the message is the user's text: each line is escaped on its own, so
    // that the usage text keeps its line breaks.
    console.error((err as Error).message.split('\n').map(terminalText).join('\n'));
    return 2;
  }
  args.modelDir = userPath(args.modelDir);
  const inputs = listed.inputs;
  for (const line of listed.skipped) console.error(terminalText(line));
  // What a folder or glob could not give fails the run; the documents it did give are read.
  for (const { shown, reason } of listed.failed) console.error(terminalText(`error: ${shown}: ${reason}`));
  const failed: number[] = [];
  const failedNames = () => [...listed.failed.map((f) => f.shown), ...failed.sort((a, b) => a - b).map((i) => inputs[i]!.shown)];
  if (inputs.length === 0) {
    console.error(terminalText(`failed: ${failedNames().join(', ')}`));
    return 1;
  }
  const addon = loadAddon();
  const loadStarted = Date.now();
  const engines = new ReaderEngines(addon, args.modelDir, args.threads);
  const model = await engines.first();
  const loadSeconds = (Date.now() - loadStarted) / 1000;
  if (!args.modeGiven) args.options.mode = defaultDecodeMode(model.info());
  const controller = new AbortController();
  process.once('SIGINT', () => {
    console.error('\ncancelling...');
    controller.abort();
  });
  const started = Date.now();
  let pages = 0;
  // Tokens in the output, and every token the engine committed (readings later replaced by a line's other
  // view or dropped as unsure included): the engine's rate is the second over its forwards.
  let tokens = 0;
  let committed = 0;
  let forwards = 0;
  // Engine time per stage, summed over regions: the image's preprocessing and vision tower, the prompt's
  // prefill, and decoding (each region's share of the batched steps: the decoding's wall time).
  const stageMs = { encode: 0, prefill: 0, decode: 0 };
  let regions = 0;
  const several = inputs.length > 1;
  // One file shows its regions as they are read; several files, read side by side, show the files done.
  const bar = new ProgressBar(process.stderr, several ? 'files' : 'regions');
  let filesDone = 0;
  // Files read to their end; a cancelled run names how many it left unread or part read.
  let filesRead = 0;
  // A line about one file, on a line of its own below the bar of several files.
  const fileError = (line: string): void => {
    if (several) bar.done();
    console.error(terminalText(line));
  };

  const readFile = async (i: number, readers: PageReaders | null): Promise<void> => {
    const file = inputs[i]!;
    let doc;
    let input: Uint8Array;
    try {
      input = file.path === null ? await readStandardInput() : readInput(file.path);
      doc = await openDocument(file.name, input);
    } catch (err) {
      fileError(`error: ${file.shown}: ${(err as Error).message.replace(`${file.name}: `, '')}`);
      failed.push(i);
      return;
    }
    const outputs = new DocumentOutputs(doc.info, plan.files[i]!, args.options, args.force, input, plan.isInput);
    try {
      if (!several) bar.start(`${file.name} (1/1)`);
      const { cancelled } = await decodeDocument(doc, readers ?? await engines.forPages(doc.info.pages.length), {
        options: args.options,
        pages: null,
        emit: (events) => {
          outputs.record(events);
          if (!several) for (const e of events) if (e.type === 'progress') bar.update(e.regionsDone, e.regionsTotal, e.remainingMs);
        },
        onPage: async (page) => {
          await outputs.page(page);
          pages++;
          for (const r of page.regions) {
            tokens += r.stats.tokens;
            committed += r.stats.committed;
            forwards += r.stats.forwards;
            stageMs.encode += r.stats.encodeMs;
            stageMs.prefill += r.stats.prefillMs;
            stageMs.decode += r.stats.decodeShareMs;
            regions++;
          }
        },
        signal: controller.signal,
        analysis: args.analysis,
        figures: outputs.figures,
      });
      if (!several) bar.done();
      await outputs.finish({ cancelled });
      if (!cancelled) filesRead++;
    } catch (err) {
      if (!several) bar.done();
      const message = (err as Error).message;
      const kept = outputs.pagesWritten;
      fileError(`error: ${file.shown}: ${message}${kept > 0 ? ` (the ${kept} page(s) read before it are written)` : ''}`);
      failed.push(i);
      try {
        await outputs.finish({ cancelled: false, error: message });
      } catch (finishErr) {
        fileError(`error: ${file.shown}: its outputs could not be completed (${(finishErr as Error).message})`);
      }
    } finally {
      doc.close();
    }
  };

  if (several) {
    // As many files in flight as there are readers, so that every core has a page to read.
    const readers = await engines.forPages(inputs.length);
    bar.start(`${inputs.length} files`);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < inputs.length && !controller.signal.aborted; i = next++) {
        await readFile(i, readers);
        if (controller.signal.aborted) break;
        filesDone++;
        const elapsedMs = Date.now() - started;
        bar.update(filesDone, inputs.length, Math.round((elapsedMs / filesDone) * (inputs.length - filesDone)));
      }
    };
    await Promise.all(Array.from({ length: readers.size }, worker));
    bar.done();
  } else {
    await readFile(0, null);
  }
  const seconds = (Date.now() - started) / 1000;
  const backend = addon.info().backend;
  console.error(
    `${pages} page(s) from ${filesRead}/${inputs.length} file(s) in ${seconds.toFixed(1)} s: `
    + `${(pages / Math.max(seconds, 1e-9)).toFixed(3)} pages/s, ${tokens} tokens kept, ${committed} decoded at `
    + `${(committed / Math.max(forwards, 1)).toFixed(2)} tokens per forward, mode ${args.options.mode}, backend ${backend}`,
  );
  console.error(
    `stages: model load ${loadSeconds.toFixed(2)} s; over ${regions} region(s) image encoding ${(stageMs.encode / 1000).toFixed(2)} s, `
    + `prefill ${(stageMs.prefill / 1000).toFixed(2)} s, decoding ${(stageMs.decode / 1000).toFixed(2)} s`,
  );
  // Files read side by side fail in the order they end; the summary names them in the order given.
  if (failed.length + listed.failed.length > 0) console.error(terminalText(`failed: ${failedNames().join(', ')}`));
  const unread = inputs.length - filesRead - failed.length;
  if (controller.signal.aborted) console.error(`cancelled: ${unread} file(s) not read to the end`);
  await engines.close();
  // 130: stopped by Ctrl+C, as a shell reports a command it interrupted.
  return controller.signal.aborted ? 130 : failed.length + listed.failed.length > 0 ? 1 : 0;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (err) => {
    console.error(terminalText(`error: ${(err as Error).message}`));
    process.exit(1);
  });
}
