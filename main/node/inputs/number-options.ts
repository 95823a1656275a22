// Numbers given on a command line, read strictly. Number() takes '' and ' ' as 0, '0x10' as 16 and '1e3' as
// 1000, and turns 'lots' into NaN, which then slips past every comparison; here each option accepts plain
// decimal digits within its range, and anything else is refused with one line naming the option and range.

/** The engine's range for batchSize (native/src/decode/engine.cc validate). */
export const MAX_BATCH = 64;
/** Tokens per region: well past any checkpoint's positions (4,096 for the shipped one), within 32 bits. */
export const MAX_NEW_TOKENS = 65_536;

const shown = (text: string) => (text === '' ? "''" : text);

/** A count: decimal digits only (no sign, fraction, exponent or spaces), from min to max. */
export function wholeNumber(option: string, text: string, min: number, max: number): number {
  const n = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new Error(`${option} must be a whole number from ${min} to ${max}, not ${shown(text)}`);
  return n;
}

/** A fraction in (0, 1], written as a plain decimal: 1, 0.25, .5. */
export function fraction(option: string, text: string): number {
  const n = /^(\d{1,15}(\.\d{0,15})?|\.\d{1,15})$/.test(text) ? Number(text) : NaN;
  if (!(n > 0 && n <= 1)) throw new Error(`${option} must be in (0, 1], not ${shown(text)}`);
  return n;
}
