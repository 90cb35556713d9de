import { invalidRequest } from '../errors/latch-error.js';
import { numberTextProblem } from './exact-decimal.js';

/**
 * A JSON number kept as its source text. Latch never turns a request's number into a binary
 * float before deciding what it is: money is parsed exactly from this text, and the PAN guard
 * sees every digit of a 19-digit number.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface JsonLimits {
  /** Deepest nesting of arrays and objects. */
  depthMax: number;
  /** Most members in one object or elements in one array. */
  membersMax: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { depthMax: 8, membersMax: 64 };

/**
 * parseJson is a strict RFC 8259 parser with limits: duplicate keys, trailing commas, comments,
 * lone surrogates in escapes, nesting beyond `depthMax` and containers beyond `membersMax` are all
 * refused with `invalid_request` (param `body`), and so are numbers whose text or exponent is
 * absurdly large (see numberTextProblem), so that every number's exact value is cheap to compute.
 * Numbers stay as JsonNumber text. An error names where it is as an offset (a request body), or as
 * a line and column (`where: 'line-column'`, a file a person edits: policy.json).
 */
export function parseJson(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS, where: ErrorPlace = 'offset'): JsonValue {
  const parser = new Parser(text, limits, where);
  parser.skipWhitespace();
  const value = parser.parseValue(0);
  parser.skipWhitespace();
  if (parser.position !== text.length) parser.fail('unexpected data after the JSON value');
  return value;
}

/** isJsonObject reports whether value is a plain JSON object (not an array or null). */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

/** How an error names where in the text it is. */
export type ErrorPlace = 'offset' | 'line-column';

/** lineColumn is where offset falls in text, both counted from 1 (a column counts UTF-16 code units). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

const NUMBER_PATTERN = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class Parser {
  position = 0;
  constructor(
    private readonly text: string,
    private readonly limits: JsonLimits,
    private readonly where: ErrorPlace,
  ) {}

  fail(what: string): never {
    throw invalidRequest('body', `The body is not valid JSON: ${what} at ${this.place()}.`);
  }

  private place(): string {
    if (this.where === 'offset') return `offset ${this.position}`;
    const { line, column } = lineColumn(this.text, this.position);
    return `line ${line}, column ${column}`;
  }

  skipWhitespace(): void {
    const text = this.text;
    while (this.position < text.length) {
      const c = text.charCodeAt(this.position);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.position++;
    }
  }

  parseValue(depth: number): JsonValue {
    const c = this.text[this.position];
    switch (c) {
      case '{':
        return this.parseObject(depth + 1);
      case '[':
        return this.parseArray(depth + 1);
      case '"':
        return this.parseString();
      case 't':
        return this.parseLiteral('true', true);
      case 'f':
        return this.parseLiteral('false', false);
      case 'n':
        return this.parseLiteral('null', null);
      default:
        return this.parseNumber();
    }
  }

  private parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.position)) this.fail('unexpected token');
    this.position += word.length;
    return value;
  }

  private parseNumber(): JsonNumber {
    NUMBER_PATTERN.lastIndex = this.position;
    const match = NUMBER_PATTERN.exec(this.text);
    if (match === null) this.fail(this.position >= this.text.length ? 'unexpected end' : 'unexpected token');
    const problem = numberTextProblem(match[0]);
    if (problem !== undefined) this.fail(problem);
    this.position += match[0].length;
    return new JsonNumber(match[0]);
  }

  private checkDepth(depth: number): void {
    if (depth > this.limits.depthMax) this.fail(`nesting deeper than ${this.limits.depthMax}`);
  }

  private parseArray(depth: number): JsonValue[] {
    this.checkDepth(depth);
    this.position++;
    const items: JsonValue[] = [];
    this.skipWhitespace();
    if (this.text[this.position] === ']') {
      this.position++;
      return items;
    }
    for (;;) {
      if (items.length >= this.limits.membersMax) this.fail(`more than ${this.limits.membersMax} elements`);
      this.skipWhitespace();
      items.push(this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text[this.position++];
      if (c === ']') return items;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  private parseObject(depth: number): JsonObject {
    this.checkDepth(depth);
    this.position++;
    // A null-prototype object: keys such as __proto__ are ordinary data here.
    const object = Object.create(null) as JsonObject;
    let count = 0;
    this.skipWhitespace();
    if (this.text[this.position] === '}') {
      this.position++;
      return object;
    }
    for (;;) {
      if (count >= this.limits.membersMax) this.fail(`more than ${this.limits.membersMax} members`);
      this.skipWhitespace();
      if (this.text[this.position] !== '"') this.fail('expected a string key');
      const key = this.parseString();
      if (Object.hasOwn(object, key)) this.fail('duplicate key');
      this.skipWhitespace();
      if (this.text[this.position++] !== ':') this.fail("expected ':'");
      this.skipWhitespace();
      object[key] = this.parseValue(depth);
      count++;
      this.skipWhitespace();
      const c = this.text[this.position++];
      if (c === '}') return object;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }

  private parseString(): string {
    const text = this.text;
    this.position++;
    let out = '';
    let chunkStart = this.position;
    for (;;) {
      if (this.position >= text.length) this.fail('unterminated string');
      const code = text.charCodeAt(this.position);
      if (code === 0x22) {
        out += text.slice(chunkStart, this.position);
        this.position++;
        return out;
      }
      if (code < 0x20) this.fail('control character in string');
      if (code >= 0xd800 && code <= 0xdfff) this.checkRawSurrogate(code);
      if (code === 0x5c) {
        out += text.slice(chunkStart, this.position);
        out += this.parseEscape();
        chunkStart = this.position;
        continue;
      }
      this.position++;
    }
  }

  /** A raw lone surrogate means the body was not valid UTF-8 text; refuse it. */
  private checkRawSurrogate(code: number): void {
    const next = this.text.charCodeAt(this.position + 1);
    if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      this.position++;
      return;
    }
    this.fail('lone surrogate in string');
  }

  private parseEscape(): string {
    const c = this.text[this.position + 1];
    this.position += 2;
    switch (c) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u':
        return this.parseUnicodeEscape();
      default:
        this.position -= 2;
        return this.fail('bad escape');
    }
  }

  private readHex4(): number {
    const hex = this.text.slice(this.position, this.position + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
    this.position += 4;
    return parseInt(hex, 16);
  }

  private parseUnicodeEscape(): string {
    const first = this.readHex4();
    if (first < 0xd800 || first > 0xdfff) return String.fromCharCode(first);
    if (first > 0xdbff || this.text.slice(this.position, this.position + 2) !== '\\u') this.fail('lone surrogate escape');
    this.position += 2;
    const second = this.readHex4();
    if (second < 0xdc00 || second > 0xdfff) this.fail('lone surrogate escape');
    return String.fromCharCode(first, second);
  }
}
