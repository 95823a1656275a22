// The mounted editor's text and navigation, for actions outside React's tree (export, menu commands).
export interface EditorHandle {
  getText(): string;
  revealRegion(regionId: string): void;
  /** Selects the next (1) or previous (-1) word to check after the cursor, and shows it on the page. */
  revealCheck(direction: 1 | -1): void;
  focus(): void;
  /** Selects the text between two offsets and brings it into view, in the editor and on its page. */
  select(start: number, end: number): void;
  /** Calls `listener` whenever the text changes; returns what stops it. */
  onTextChange(listener: () => void): () => void;
}

export const editorHandle: { current: EditorHandle | null } = { current: null };
