/**
 * Runs the `curl` commands the quick start prints, as a shell would, without needing curl: the
 * printed subset is `curl -s [-H 'Header: value']... [-d 'body'] URL`, with `$(cat 'file')`
 * inside double quotes. Anything else in a printed command fails the test, so the banner cannot
 * drift into something a user could not paste.
 */
import { readFileSync } from 'node:fs';

export interface PrintedCurl {
  /** The comment line printed above the command. */
  comment: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** printedCurls extracts the commands (joined across `\` continuations) with their comments. */
export function printedCurls(banner: string): PrintedCurl[] {
  const lines = banner.split('\n');
  const commands: PrintedCurl[] = [];
  let comment = '';
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line.startsWith('#')) comment = line.slice(1).trim();
    if (!line.startsWith('curl ')) continue;
    let text = line;
    while (text.endsWith('\\')) text = `${text.slice(0, -1)} ${(lines[++i] as string).trim()}`;
    commands.push({ comment, ...parseCurl(shellWords(text)) });
  }
  return commands;
}

function parseCurl(words: string[]): Omit<PrintedCurl, 'comment'> {
  if (words[0] !== 'curl') throw new Error(`not curl: ${words.join(' ')}`);
  const headers: Record<string, string> = {};
  let body: string | undefined;
  let url: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '-s') continue;
    if (word === '-H') {
      const header = words[++i] as string;
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (word === '-d') body = words[++i];
    else if (word.startsWith('http://') && url === undefined) url = word;
    else throw new Error(`unexpected curl argument ${word}`);
  }
  if (url === undefined) throw new Error('curl without a URL');
  return { method: body === undefined ? 'GET' : 'POST', url, headers, body };
}

/** shellWords splits a command line with '…' and "…" quoting and $(cat 'file') in double quotes. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      current += text.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      current += text.slice(i + 1, end).replace(/\$\(cat '([^']+)'\)/g, (_m, file: string) => readFileSync(file, 'utf8').trim());
      i = end;
      inWord = true;
    } else if (c === ' ') {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      if (c === '$' || c === '`' || c === '\\') throw new Error(`unquoted shell syntax in ${text}`);
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** runCurl performs one printed command with fetch and returns its status and JSON body. */
export async function runCurl(command: PrintedCurl): Promise<{ status: number; body: any }> {
  const response = await fetch(command.url, { method: command.method, headers: command.headers, ...(command.body === undefined ? {} : { body: command.body }) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}
