// Text from outside (file names, fields of jobs in a shared Redis, messages that quote them) on its way to a
// terminal. A terminal obeys the control characters in what it is sent: an ESC sequence can retitle the window,
// clear the screen, move the cursor to rewrite earlier lines, or answer back into the input. So each control
// character, and each mark that reorders the text shown around it, is written as a visible escape instead, and a
// line break in a name cannot start a line that looks like the program's own.

/** C0 controls, DEL, C1 controls, and the bidirectional marks and overrides. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A value as JSON for a terminal: JSON.stringify escapes C0 controls but leaves DEL, C1 controls and the
 * bidirectional marks as they are, so those are written as \u escapes too (the same JSON to a reader).
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
