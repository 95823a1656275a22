// Where the CLI writes each input's Markdown (and its .json, .hocr and searchable .pdf beside it), checked
// before any work: an output never replaces an input (a scan named by -o once became Markdown), and replaces
// any other existing file only with --force. `-o name.pdf` with one input asks for the searchable PDF alone.
import { statSync, type Stats } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';

export interface OutputFiles {
  /** null: no Markdown file; it goes to standard output when `stdout` says so. */
  markdown: string | null;
  stdout: boolean;
  json: string | null;
  hocr: string | null;
  /** The searchable PDF: the input's pages with the words read laid over them, invisible. */
  pdf: string | null;
}

export interface OutputPlan {
  /** One entry per input, in order. */
  files: OutputFiles[];
  /** Folders to create before writing. */
  folders: string[];
}

export interface OutputChoices {
  json: boolean;
  hocr: boolean;
  pdf: boolean;
  /** Replace existing files (never an input). */
  force: boolean;
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

const SINGLE_FILE = /\.(md|pdf)$/i;

/** -o names a folder when it is one, or when it does not exist and does not end in .md or .pdf. */
function namesFolder(out: string): boolean {
  const s = statOrNull(out);
  return s ? s.isDirectory() : !SINGLE_FILE.test(out);
}

/** Each input's name in a folder of outputs: its own, made unique. */
function uniqueStems(inputs: string[]): string[] {
  const used = new Set<string>();
  return inputs.map((f) => {
    let stem = basename(f, extname(f));
    for (let k = 2; used.has(stem); k++) stem = `${basename(f, extname(f))}-${k}`;
    used.add(stem);
    return stem;
  });
}

export function planOutputs(inputs: string[], out: string | null, choices: OutputChoices): OutputPlan {
  const single = out !== null && !namesFolder(out);
  if (single && inputs.length > 1) throw new Error(`-o ${out} is a file, but ${inputs.length} inputs need a folder`);
  const onlyPdf = single && /\.pdf$/i.test(out);
  const stems = uniqueStems(inputs);
  const files = inputs.map((input, i): OutputFiles => {
    // The other outputs go beside the Markdown; without -o, to the working folder, named after the input.
    const stem = out === null ? basename(input, extname(input)) : single ? out.replace(SINGLE_FILE, '') : join(out, stems[i]!);
    return {
      markdown: out === null || onlyPdf ? null : single ? out : `${stem}.md`,
      stdout: out === null,
      json: choices.json ? `${stem}.json` : null,
      hocr: choices.hocr ? `${stem}.hocr` : null,
      pdf: onlyPdf ? out : choices.pdf ? `${stem}.pdf` : null,
    };
  });
  const inputFiles = inputs.map((p) => ({ path: resolve(p), stat: statOrNull(p) }));
  const existing: string[] = [];
  for (const path of files.flatMap((f) => [f.markdown, f.json, f.hocr, f.pdf]).filter((p): p is string => p !== null)) {
    const stat = statOrNull(path);
    // The same file by path, or by device and inode (a hard link, a symbolic link, another spelling).
    const input = inputFiles.find((f) => f.path === resolve(path) || (stat && f.stat && f.stat.dev === stat.dev && f.stat.ino === stat.ino));
    if (input) throw new Error(`${path} is an input; the output must go elsewhere (-o names a new .md or .pdf file, or a folder)`);
    if (stat?.isDirectory()) throw new Error(`${path} is a folder, not a file the output can be written to`);
    if (stat) existing.push(path);
  }
  if (existing.length === 1 && !choices.force) throw new Error(`${existing[0]} already exists; add --force to overwrite it`);
  if (existing.length > 1 && !choices.force) {
    throw new Error(`${existing[0]} and ${existing.length - 1} more output file(s) already exist; add --force to overwrite them`);
  }
  const folders = [...new Set(files.flatMap((f) => [f.markdown, f.pdf]).filter((p): p is string => p !== null).map((p) => dirname(p)))];
  return { files, folders };
}
