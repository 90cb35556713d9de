/**
 * `latch identity directory [--out FILE]` and `latch identity show NAME`: the owner's view of the
 * agents' Web Bot Auth identity keys (docs/decisions.md §23). Both print public keys only; the
 * secret halves never leave their files.
 */
import { writeFileAtomic } from '../../datadir/atomic-file.js';
import { assertAgentName, AgentNameError } from '../../datadir/agents.js';
import { OWNER_IDENTITY } from '../../identity/identity-key-file.js';
import { identityKeyring } from '../../identity/identity-keyring.js';
import { ensureIdentityKey } from '../../identity/identity-keys.js';
import { directoryBody, directoryKey, WELL_KNOWN_DIRECTORY_PATH } from '../../identity/key-directory.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import { privateHome } from '../private-home.js';
import { reportError } from '../report-error.js';

const EXIT_CODES = 'Exit codes: 0 done; 2 bad usage or agent name; 3 unsafe or broken data directory, or no such agent; 1 anything else.';
/** The published directory is public: anyone may read it. */
const PUBLIC_FILE_MODE = 0o644;

function run(commandName: string, io: CliIo, body: () => number): Promise<number> {
  return Promise.resolve()
    .then(body)
    .catch((error: unknown) => reportError(error instanceof AgentNameError ? new UsageError(error.message) : error, io, commandName));
}

/** `latch identity directory` writes the key directory for the owner to publish. */
export const identityDirectoryCommand: Command = {
  name: 'identity directory',
  summary: "Write the agents' Web Bot Auth key directory, to publish on your domain",
  usage: `Usage: latch identity directory [--out FILE]

Writes the HTTP Message Signatures Directory of this device's identity keys (the owner's and every
agent's, each kid its RFC 7638 thumbprint) to FILE, or to standard output. Publish it at
https://<your domain>${WELL_KNOWN_DIRECTORY_PATH} with the media type
application/http-message-signatures-directory+json, and set identity_directory_url in config.json to
that URL: signatures then name it in Signature-Agent. Publish it again after latch agent add,
remove or rotate --identity. The running daemon serves the same keys, signed, at
GET /web-bot-auth/directory.

${EXIT_CODES}`,
  run: (args, io) =>
    run('identity directory', io, () => {
      const flags = parseFlags(args, { out: 'value' });
      const keys = identityKeyring(privateHome(io.env)).all().map(({ key }) => key);
      const body = directoryBody(keys);
      const out = flags['out'];
      if (typeof out === 'string') {
        writeFileAtomic(out, body, PUBLIC_FILE_MODE);
        writeLine(io.stdout, `Wrote ${keys.length} key${keys.length === 1 ? '' : 's'} to ${out}.`);
      } else {
        writeLine(io.stdout, Buffer.from(body).toString('utf8'));
      }
      return EXIT.ok;
    }),
};

/** `latch identity show NAME` prints one identity key's id and public JWK. */
export const identityShowCommand: Command = {
  name: 'identity show',
  summary: "Show an agent's (or the owner's) identity key id and public JWK",
  usage: `Usage: latch identity show NAME

Prints the key id (RFC 7638 thumbprint) and public JWK of the Web Bot Auth identity key of agent
NAME, or of the owner with NAME "owner", as JSON. The key is made if it does not exist yet.

${EXIT_CODES}`,
  run: (args, io) =>
    run('identity show', io, () => {
      const [name, ...rest] = args;
      if (name === undefined || name.startsWith('--')) throw new UsageError('latch identity show needs an agent NAME (or owner)');
      parseFlags(rest, {});
      if (name !== OWNER_IDENTITY) assertAgentName(name);
      const key = ensureIdentityKey(privateHome(io.env), name);
      writeLine(io.stdout, JSON.stringify({ name, key_id: key.keyId, jwk: directoryKey(key) }, null, 2));
      return EXIT.ok;
    }),
};
