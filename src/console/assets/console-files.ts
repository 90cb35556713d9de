/**
 * The console's browser files (console.js, console.css, icon.svg), served as the bytes they hold
 * (docs/decisions.md §29.5). Run from the sources, they are read once from beside this module; in
 * a bundle (the npm package, the single binary) scripts/build-bundles.ts replaces this module with
 * one that holds the same bytes inlined, so no file is read at run time there.
 */
import { readFileSync } from 'node:fs';

/** The files this folder serves; the bundle's copy holds exactly these. */
export const CONSOLE_FILES = ['console.css', 'console.js', 'icon.svg'] as const;
export type ConsoleFileName = (typeof CONSOLE_FILES)[number];

const read = new Map<string, Uint8Array>();

/** consoleFile returns the bytes of one of the console's browser files. */
export function consoleFile(name: string): Uint8Array {
  if (!(CONSOLE_FILES as readonly string[]).includes(name)) throw new Error(`consoleFile: ${name} is not a console file`);
  let bytes = read.get(name);
  if (bytes === undefined) {
    bytes = new Uint8Array(readFileSync(new URL(`./${name}`, import.meta.url)));
    read.set(name, bytes);
  }
  return bytes;
}
