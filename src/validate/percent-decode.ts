const HEX = /^[0-9A-Fa-f]{2}$/;
const utf8Lenient = new TextDecoder('utf-8', { fatal: false });

/**
 * percentDecodeLenient decodes %XX escapes (and `+` as a space when asked, as in query strings)
 * without ever throwing: a malformed escape stays as written and bytes that are not UTF-8 become
 * U+FFFD. It is for inspecting input (the card-data guard), not for routing.
 */
export function percentDecodeLenient(text: string, plusAsSpace: boolean): string {
  if (!text.includes('%') && !(plusAsSpace && text.includes('+'))) return text;
  const parts: Buffer[] = [];
  let bytes: number[] = [];
  let literalStart = 0;
  const flushLiteral = (end: number): void => {
    if (end > literalStart) {
      if (bytes.length > 0) parts.push(Buffer.from(bytes));
      bytes = [];
      parts.push(Buffer.from(text.slice(literalStart, end), 'utf8'));
    }
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '%' && HEX.test(text.slice(i + 1, i + 3))) {
      flushLiteral(i);
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 3;
      literalStart = i;
    } else if (c === '+' && plusAsSpace) {
      flushLiteral(i);
      bytes.push(0x20);
      i += 1;
      literalStart = i;
    } else {
      i += 1;
    }
  }
  flushLiteral(text.length);
  if (bytes.length > 0) parts.push(Buffer.from(bytes));
  return utf8Lenient.decode(Buffer.concat(parts));
}
