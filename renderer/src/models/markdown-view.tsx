// A model card's Markdown drawn as React elements (headings, paragraphs, lists, tables, emphasis, code), never
// as HTML: a card comes from any folder the user points at, so its raw HTML is shown as text and its links
// are not followed. Fenced code (training command lines) folds away under a summary.
import type { ReactNode } from 'react';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; rows: string[][] }
  | { kind: 'code'; text: string };

const TABLE_RULE = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$/;

export function parseMarkdownBlocks(md: string): Block[] {
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    if (/^\s*```/.test(line)) {
      const body: string[] = [];
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]!); i++) body.push(lines[i]!);
      i++;
      blocks.push({ kind: 'code', text: body.join('\n') });
    } else if (/^#{1,6}\s/.test(line)) {
      blocks.push({ kind: 'heading', level: line.match(/^#+/)![0].length, text: line.replace(/^#+\s*/, '') });
      i++;
    } else if (/^\s*[-*+]\s/.test(line)) {
      const items: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== '' && !/^#{1,6}\s|^\s*```/.test(lines[i]!); i++) {
        if (/^\s*[-*+]\s/.test(lines[i]!)) items.push(lines[i]!.replace(/^\s*[-*+]\s+/, ''));
        else items[items.length - 1] += ` ${lines[i]!.trim()}`;
      }
      blocks.push({ kind: 'list', items });
    } else if (line.trim().startsWith('|') && TABLE_RULE.test(lines[i + 1]?.trim() ?? '')) {
      const rows: string[][] = [];
      for (; i < lines.length && lines[i]!.trim().startsWith('|'); i++) {
        if (!TABLE_RULE.test(lines[i]!.trim())) rows.push(lines[i]!.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim()));
      }
      blocks.push({ kind: 'table', rows });
    } else if (line.trim() === '') {
      i++;
    } else {
      const text: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== '' && !/^#{1,6}\s|^\s*```|^\s*[-*+]\s/.test(lines[i]!); i++) text.push(lines[i]!.trim());
      blocks.push({ kind: 'paragraph', text: text.join(' ') });
    }
  }
  return blocks;
}

/** `code`, **strong** and *emphasis*, and a link's text; everything else as it is written. */
function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|\[([^\]]+)\]\([^)]*\)/g;
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    const key = out.length;
    if (m[1] !== undefined) out.push(<code key={key}>{m[1]}</code>);
    else if (m[2] !== undefined) out.push(<strong key={key}>{m[2]}</strong>);
    else if (m[3] !== undefined) out.push(<em key={key}>{m[3]}</em>);
    else out.push(<span key={key} className="card-link">{m[4]}</span>);
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

export function MarkdownView({ source, testId }: { source: string; testId?: string }) {
  return (
    <div className="markdown-view" data-testid={testId}>
      {parseMarkdownBlocks(source).map((b, i) => {
        switch (b.kind) {
          case 'heading': {
            const Tag = `h${Math.min(6, b.level + 2)}` as 'h3';
            return <Tag key={i}>{inline(b.text)}</Tag>;
          }
          case 'paragraph': return <p key={i}>{inline(b.text)}</p>;
          case 'list': return <ul key={i}>{b.items.map((item, j) => <li key={j}>{inline(item)}</li>)}</ul>;
          case 'table': return (
            <table key={i}>
              <thead><tr>{b.rows[0]!.map((c, j) => <th key={j}>{inline(c)}</th>)}</tr></thead>
              <tbody>{b.rows.slice(1).map((r, k) => <tr key={k}>{r.map((c, j) => <td key={j}>{inline(c)}</td>)}</tr>)}</tbody>
            </table>
          );
          case 'code': return (
            <details key={i} className="card-code"><summary>{b.text.split('\n').length} lines of commands</summary><pre>{b.text}</pre></details>
          );
        }
      })}
    </div>
  );
}
