// The editor's Markdown rendered beside it: headings, paragraphs, display math, page breaks, and the model's
// tables as tables. The Markdown stays the truth: the preview follows every change of it, and a click on a
// cell (or any block) selects the source it was rendered from in the editor; the page chosen is brought into
// view. Elements are built from parsed records (preview-blocks.ts), never from the text as HTML.
import { useEffect, useRef, useState } from 'react';
import { useSessionState } from '../app/session-context';
import { editorHandle } from './editor-handle';
import { previewBlocks, type PreviewBlock, type SourceSpan } from './preview-blocks';

/** The preview waits for typing to pause: a 50-page text is parsed once per pause, not per key. */
const FOLLOW_MS = 200;

function select(span: SourceSpan) {
  return (e: React.MouseEvent) => {
    e.stopPropagation();
    editorHandle.current?.select(span.start, span.end);
  };
}

function Block({ block }: { block: PreviewBlock }) {
  switch (block.kind) {
    case 'heading': {
      const Tag = `h${Math.min(6, block.level)}` as 'h1';
      return <Tag onClick={select(block)}>{block.text}</Tag>;
    }
    case 'paragraph': return <p onClick={select(block)}>{block.text}</p>;
    case 'math': return <pre className="preview-math" onClick={select(block)}>{block.text}</pre>;
    case 'rule': return <hr />;
    case 'page': return <div className="preview-page" data-page={block.page} onClick={select(block)}>page {block.page}</div>;
    case 'table': return (
      <table>
        <tbody>
          {block.rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, c) => {
                const Cell = cell.header || (r === 0 && block.rows.length > 1) ? 'th' : 'td';
                return <Cell key={c} colSpan={cell.colSpan} rowSpan={cell.rowSpan} onClick={select(cell)} data-source={`${cell.start}-${cell.end}`}>{cell.text}</Cell>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
}

export function MarkdownPreview() {
  const [text, setText] = useState(() => editorHandle.current?.getText() ?? '');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const follow = () => {
      timer ??= setTimeout(() => {
        timer = null;
        setText(editorHandle.current?.getText() ?? '');
      }, FOLLOW_MS);
    };
    follow();
    const stop = editorHandle.current?.onTextChange(follow);
    return () => { stop?.(); if (timer) clearTimeout(timer); };
  }, []);
  // The page chosen (a thumbnail, F8) is brought into view here too, as it is in the editor.
  const page = useSessionState((s) => s.page);
  const view = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = view.current;
    const mark = el?.querySelector(`[data-page="${page + 1}"]`);
    if (el) el.scrollTop = mark instanceof HTMLElement ? mark.offsetTop - el.offsetTop : 0;
  }, [page]);
  const blocks = previewBlocks(text);
  return (
    <div className="markdown-preview" data-testid="preview" ref={view}>
      {blocks.map((b) => <Block key={`${b.kind}/${b.start}`} block={b} />)}
    </div>
  );
}
