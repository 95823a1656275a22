// Where the CLI writes each input's Markdown (and its .json, .hocr and searchable .pdf beside it), checked
// before any work: an output never replaces an input (a scan named by -o once became Markdown), and replaces
// any other existing file only with --force. `-o name.pdf` with one input asks for the searchable PDF alone;
// a folder's documents are written to the same places below -o's folder as they lie below theirs.
import { statSync, type Stats } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { CliInput, ExpandedInputs } from './cli-inputs';
import { shownPath, userFolder } from './user-folder';

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
  /** Whether a path is an input's file: no output, a figure included, may replace one. */
  isInput(path: string): boolean;
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

function stemOf(name: string): string {
  return basename(name, extname(name));
}

/**
 * Each input's name in its output folder: its own without the extension. Inputs that would share one there
 * (a.png and a.pdf) keep their extensions (a.png.md, a.pdf.md), whatever else is in the run; a name still
 * shared (a.pdf named from two folders) takes -2, -3 in order. Names are compared without case, as macOS and
 * Windows compare them.
 */
function outputStems(inputs: readonly CliInput[]): string[] {
  const key = (input: CliInput, stem: string) => `${input.folder}/${stem}`.toLowerCase();
  const sharing = new Map<string, number>();
  for (const input of inputs) sharing.set(key(input, stemOf(input.name)), (sharing.get(key(input, stemOf(input.name))) ?? 0) + 1);
  const used = new Set<string>();
  return inputs.map((input) => {
    const own = sharing.get(key(input, stemOf(input.name)))! > 1 ? input.name : stemOf(input.name);
    let stem = own;
    for (let k = 2; used.has(key(input, stem)); k++) stem = `${own}-${k}`;
    used.add(key(input, stem));
    return stem;
  });
}

/**
 * Every input's outputs, checked. `out`: -o as an absolute path, or null (the Markdown of one input to
 * standard output, the other outputs to the folder the command was typed in).
 */
export function planOutputs(listed: Pick<ExpandedInputs, 'inputs' | 'needsFolder'>, out: string | null, choices: OutputChoices): OutputPlan {
  const { inputs, needsFolder } = listed;
  const single = out !== null && !namesFolder(out);
  if (out === null && needsFolder) throw new Error('a folder, a glob or several inputs need -o naming the folder their outputs go to');
  if (single && needsFolder) throw new Error(`-o ${shownPath(out)} is a file, but a folder, a glob or several inputs need a folder`);
  if (out === null && inputs.some((input) => input.path === null)) throw new Error('standard input (-) needs -o naming the output');
  const onlyPdf = single && /\.pdf$/i.test(out);
  const stems = outputStems(inputs);
  const files = inputs.map((input, i): OutputFiles => {
    // The other outputs go beside the Markdown; without -o, to the folder the command was typed in.
    const stem = out === null ? join(userFolder(), stems[i]!) : single ? out.replace(SINGLE_FILE, '') : join(out, input.folder, stems[i]!);
    return {
      markdown: out === null || onlyPdf ? null : single ? out : `${stem}.md`,
      stdout: out === null,
      json: choices.json ? `${stem}.json` : null,
      hocr: choices.hocr ? `${stem}.hocr` : null,
      pdf: onlyPdf ? out : choices.pdf ? `${stem}.pdf` : null,
    };
  });
  const inputFiles = inputs.flatMap((input) => (input.path === null ? [] : [{ path: resolve(input.path), stat: statOrNull(input.path) }]));
  const isInput = (path: string): boolean => {
    const stat = statOrNull(path);
    // The same file by path, or by device and inode (a hard link, a symbolic link, another spelling).
    return inputFiles.some((f) => f.path === resolve(path) || (stat && f.stat && f.stat.dev === stat.dev && f.stat.ino === stat.ino));
  };
  const existing: string[] = [];
  for (const path of files.flatMap((f) => [f.markdown, f.json, f.hocr, f.pdf]).filter((p): p is string => p !== null)) {
    if (isInput(path)) throw new Error(`${shownPath(path)} is an input; the output must go elsewhere (-o names a new .md or .pdf file, or a folder)`);
    const stat = statOrNull(path);
    if (stat?.isDirectory()) throw new Error(`${shownPath(path)} is a folder, not a file the output can be written to`);
    if (stat) existing.push(shownPath(path));
  }
  if (existing.length === 1 && !choices.force) throw new Error(`${existing[0]} already exists; add --force to overwrite it`);
  if (existing.length > 1 && !choices.force) {
    throw new Error(`${existing[0]} and ${existing.length - 1} more output file(s) already exist; add --force to overwrite them`);
  }
  const folders = [...new Set(files.flatMap((f) => [f.markdown, f.json, f.hocr, f.pdf]).filter((p): p is string => p !== null).map((p) => dirname(p)))];
  return { files, folders, isInput };
}
