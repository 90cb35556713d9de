/**
 * Cyrillic and Greek letters that look like Latin ones, mapped to the Latin letter a reader sees
 * (after NFKD, so full-width and other compatibility forms are already plain Latin). Field names
 * are compared through this map, so `сvv` spelled with a Cyrillic `с` is `cvv`. It covers the
 * common confusables of Unicode's confusables.txt for these scripts, upper and lower case.
 */
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  // Cyrillic
  ['А', 'A'], ['а', 'a'], ['В', 'B'], ['в', 'b'], ['Е', 'E'], ['е', 'e'], ['Ё', 'E'], ['ё', 'e'],
  ['К', 'K'], ['к', 'k'], ['М', 'M'], ['м', 'm'], ['Н', 'H'], ['н', 'h'], ['О', 'O'], ['о', 'o'],
  ['Р', 'P'], ['р', 'p'], ['С', 'C'], ['с', 'c'], ['Т', 'T'], ['т', 't'], ['У', 'Y'], ['у', 'y'],
  ['Х', 'X'], ['х', 'x'], ['І', 'I'], ['і', 'i'], ['Ї', 'I'], ['ї', 'i'], ['Ј', 'J'], ['ј', 'j'],
  ['Ѕ', 'S'], ['ѕ', 's'], ['Ԁ', 'D'], ['ԁ', 'd'], ['Ԛ', 'Q'], ['ԛ', 'q'], ['Ԝ', 'W'], ['ԝ', 'w'],
  ['Ү', 'Y'], ['ү', 'y'], ['Һ', 'H'], ['һ', 'h'], ['Ӏ', 'I'], ['ӏ', 'l'], ['Ѵ', 'V'], ['ѵ', 'v'],
  ['п', 'n'], ['г', 'r'], ['ь', 'b'], ['Ь', 'b'], ['Ꙇ', 'I'], ['ꙇ', 'i'],
  // Greek
  ['Α', 'A'], ['α', 'a'], ['Β', 'B'], ['Ε', 'E'], ['ε', 'e'], ['Ζ', 'Z'], ['Η', 'H'], ['Ι', 'I'],
  ['ι', 'i'], ['Κ', 'K'], ['κ', 'k'], ['Μ', 'M'], ['Ν', 'N'], ['ν', 'v'], ['Ο', 'O'], ['ο', 'o'],
  ['Ρ', 'P'], ['ρ', 'p'], ['Τ', 'T'], ['τ', 't'], ['Υ', 'Y'], ['υ', 'u'], ['Χ', 'X'], ['χ', 'x'],
  ['ϲ', 'c'], ['Ϲ', 'C'], ['ϳ', 'j'], ['Ϳ', 'J'], ['ς', 's'],
  // Latin letters outside a–z that read as one of them
  ['ı', 'i'], ['ȷ', 'j'], ['ɑ', 'a'], ['ɡ', 'g'], ['ɩ', 'i'], ['ʏ', 'y'], ['ᴄ', 'c'], ['ᴠ', 'v'], ['ᴡ', 'w'],
];

/** LOOKALIKE_TO_LATIN maps one look-alike code point to its Latin letter. */
export const LOOKALIKE_TO_LATIN: ReadonlyMap<string, string> = new Map(PAIRS);
