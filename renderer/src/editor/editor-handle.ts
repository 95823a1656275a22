// The mounted editor's text and navigation, for actions outside React's tree (export, menu commands).
export interface EditorHandle {
  getText(): string;
  revealRegion(regionId: string): void;
  focus(): void;
}

export const editorHandle: { current: EditorHandle | null } = { current: null };
