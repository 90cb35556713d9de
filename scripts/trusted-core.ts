/**
 * Lists the audited core (SECURITY.md, "The audited core") file by file: its lines, and the chain
 * of value imports from a file the rule names that puts it in the count, so that the table can be
 * checked by reading the named files. The rule and the closure are test/support/trusted-core.ts,
 * which test/build/trusted-core.test.ts holds SECURITY.md to.
 *
 *   npx tsx scripts/trusted-core.ts            every file, by row
 *   npx tsx scripts/trusted-core.ts signer/    the files under one folder of src/
 */
import { core, importChain, lineCount, reachedFrom, rowOf } from '../test/support/trusted-core.js';

const under = process.argv[2] ?? '';
const shown = core.filter((name) => name.startsWith(under));
let row = '';
for (const name of [...shown].sort((a, b) => rowOf(a).localeCompare(rowOf(b)) || a.localeCompare(b))) {
  if (rowOf(name) !== row) {
    row = rowOf(name);
    process.stdout.write(`\n${row} ${lineCount(core.filter((other) => rowOf(other) === row))} lines\n`);
  }
  const why = reachedFrom.get(name) === null ? 'named by the rule' : `reached by ${importChain(name)}`;
  process.stdout.write(`  ${String(lineCount([name])).padStart(4)}  ${name}  (${why})\n`);
}
process.stdout.write(`\n${lineCount(shown)} lines in ${shown.length} files\n`);
