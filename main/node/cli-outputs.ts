// Where the CLI writes each input's Markdown (and its .json and .hocr beside it), checked before any work: an
// output never replaces an input (a scan named by -o once became Markdown), and replaces any other existing
// file only with --force.
import { statSync, type Stats } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';

export interface OutputFiles {
  /** null: the Markdown goes to standard output. */
  markdown: string | null;
  json: string | null;
  hocr: string | null;
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

/** -o names a folder when it is one, or when it does not exist and does not end in .md. */
function namesFolder(out: string): boolean {
  const s = statOrNull(out);
  return s ? s.isDirectory() : extname(out).toLowerCase() !== '.md';
}

/** The Markdown path of each input: the -o file for a single input, else <folder>/<stem>.md, stems made unique. */
function markdownPaths(inputs: string[], out: string | null): Array<string | null> {
  if (out === null) return inputs.map(() => null);
  if (!namesFolder(out)) {
    if (inputs.length > 1) throw new Error(`-o ${out} is a file, but ${inputs.length} inputs need a folder`);
    return [out];
  }
  const used = new Set<string>();
  return inputs.map((f) => {
    let stem = basename(f, extname(f));
    for (let k = 2; used.has(stem); k++) stem = `${basename(f, extname(f))}-${k}`;
    used.add(stem);
    return join(out, `${stem}.md`);
  });
}

export function planOutputs(inputs: string[], out: string | null, choices: OutputChoices): OutputPlan {
  const files = markdownPaths(inputs, out).map((markdown, i): OutputFiles => {
    // Without -o, the .json and .hocr go to the working folder, named after the input.
    const stem = markdown ? markdown.replace(/\.md$/i, '') : basename(inputs[i]!, extname(inputs[i]!));
    return { markdown, json: choices.json ? `${stem}.json` : null, hocr: choices.hocr ? `${stem}.hocr` : null };
  });
  const inputFiles = inputs.map((p) => ({ path: resolve(p), stat: statOrNull(p) }));
  const existing: string[] = [];
  for (const path of files.flatMap((f) => [f.markdown, f.json, f.hocr]).filter((p): p is string => p !== null)) {
    const stat = statOrNull(path);
    // The same file by path, or by device and inode (a hard link, a symbolic link, another spelling).
    const input = inputFiles.find((f) => f.path === resolve(path) || (stat && f.stat && f.stat.dev === stat.dev && f.stat.ino === stat.ino));
    if (input) throw new Error(`${path} is an input; the output must go elsewhere (-o names a new .md file or a folder)`);
    if (stat?.isDirectory()) throw new Error(`${path} is a folder, not a file the output can be written to`);
    if (stat) existing.push(path);
  }
  if (existing.length === 1 && !choices.force) throw new Error(`${existing[0]} already exists; add --force to overwrite it`);
  if (existing.length > 1 && !choices.force) {
    throw new Error(`${existing[0]} and ${existing.length - 1} more output file(s) already exist; add --force to overwrite them`);
  }
  const folders = [...new Set(files.map((f) => f.markdown && dirname(f.markdown)).filter((d): d is string => d !== null))];
  return { files, folders };
}
