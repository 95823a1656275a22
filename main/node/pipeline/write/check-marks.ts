// How the text writes a check box: "[ ]" empty, "[x]" ticked (docs/decisions/0025). One spelling for the reader
// that writes a confirmed box, the word boxes that box a mark as one word, and the eval that leaves marks
// unscored.

export type CheckMark = '[ ]' | '[x]';

/** Whether a word is a check box's mark. */
export function isCheckMark(text: string): text is CheckMark {
  return text === '[ ]' || text === '[x]';
}
