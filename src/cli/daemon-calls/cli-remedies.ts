/**
 * Remedies for a person at the terminal where the daemon's remedy speaks to an API client (issue
 * 30 item 4): the daemon tells a program to send `{"passphrase": "..."}` in a JSON body, while
 * someone running `latch approve` types it at a prompt. --json keeps the daemon's error unchanged.
 */
import type { LatchClientError } from '../../client/client-errors.js';

const CLI_REMEDIES: Readonly<Record<string, string>> = {
  invalid_passphrase:
    'Run the command again and type the approval passphrase when asked (in scripts: pipe it to --passphrase-stdin); it is the one set with latch approvals passphrase set. After 5 wrong attempts in 15 minutes approving is locked.',
};

/** cliRemedy returns what a person at the terminal should do about error. */
export function cliRemedy(error: Pick<LatchClientError, 'code' | 'remedy'>): string {
  return Object.hasOwn(CLI_REMEDIES, error.code) ? (CLI_REMEDIES[error.code] as string) : error.remedy;
}
