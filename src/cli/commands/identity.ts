/**
 * `latch identity directory [--out FILE]` and `latch identity show NAME`: the owner's view of the
 * agents' Web Bot Auth identity keys (docs/decisions.md §23). Both print public keys only; the
 * secret halves never leave their files.
 */
import { writeFileAtomic } from '../../datadir/atomic-file.js';
import { assertAgentName } from '../../datadir/agents.js';
import { OWNER_IDENTITY } from '../../signer/key-admin.js';
import { identityKeyring } from '../../identity/identity-keyring.js';
import { ensureIdentityKey } from '../../identity/identity-keys.js';
import { directoryBody, directoryKey, WELL_KNOWN_DIRECTORY_PATH } from '../../identity/key-directory.js';
import { UsageError } from '../command.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { localCommand } from '../local-command.js';
import { daemonLivesElsewhere } from '../owner-session.js';
import { resolveHome } from '../../datadir/home.js';
import { newCliClient } from '../daemon-calls/daemon-call-command.js';
import { privateHome } from '../private-home.js';

const EXIT_CODES = 'Exit codes: 0 done; 2 bad usage or agent name; 3 unsafe or broken data directory, or no such agent; 7 --agent given; 1 anything else.';
/** The published directory is public: anyone may read it. */
const PUBLIC_FILE_MODE = 0o644;

/** `latch identity directory` writes the key directory for the owner to publish. */
export const identityDirectoryCommand = localCommand<{ keys: number; file: string | null; document: string }>({
  name: 'identity directory',
  summary: "Write the agents' Web Bot Auth key directory, to publish on your domain",
  usage: `Usage: latch identity directory [--out FILE] [--json]

Writes the HTTP Message Signatures Directory of this device's identity keys (the owner's and every
agent's, each kid its RFC 7638 thumbprint) to FILE, or to standard output. Publish it at
https://<your domain>${WELL_KNOWN_DIRECTORY_PATH} with the media type
application/http-message-signatures-directory+json, and set identity_directory_url in config.json to
that URL: signatures then name it in Signature-Agent. Publish it again after latch agent add,
remove or rotate --identity. The running daemon serves the same keys, signed, at
GET /web-bot-auth/directory; in the separate-user setup this command takes the document from
there. --json prints {"keys", "file", "document"}.

${EXIT_CODES}`,
  flags: { out: 'value' },
  positionalsMax: 0,
  async perform(args, io) {
    const out = stringFlag(args.flags, 'out');
    // In the separate-user setup the keys are the daemon's: it serves the same document (§30.4).
    if (daemonLivesElsewhere(resolveHome(io.env), io.env)) {
      const client = newCliClient({ ...io, env: { ...io.env, LATCH_AGENT: '' } }, '');
      try {
        const document = await client.keyDirectory();
        if (out !== undefined) writeFileAtomic(out, document, PUBLIC_FILE_MODE);
        return { keys: (JSON.parse(document) as { keys: unknown[] }).keys.length, file: out ?? null, document };
      } finally {
        client.close();
      }
    }
    const keys = identityKeyring(privateHome(io.env)).all().map(({ key }) => key);
    const body = directoryBody(keys);
    if (out !== undefined) writeFileAtomic(out, body, PUBLIC_FILE_MODE);
    return { keys: keys.length, file: out ?? null, document: Buffer.from(body).toString('utf8') };
  },
  human: ({ keys, file, document }) => (file === null ? [document] : [`Wrote ${keys} key${keys === 1 ? '' : 's'} to ${file}.`]),
});

/** What `latch identity show` prints: one holder's key id and public JWK. */
interface ShownKey {
  name: string;
  key_id: string;
  jwk: { kid: string };
}

/** `latch identity show NAME` prints one identity key's id and public JWK. */
export const identityShowCommand = localCommand<ShownKey>({
  name: 'identity show',
  summary: "Show an agent's (or the owner's) identity key id and public JWK",
  usage: `Usage: latch identity show NAME [--passphrase-stdin] [--json]

Prints the key id (RFC 7638 thumbprint) and public JWK of the Web Bot Auth identity key of agent
NAME, or of the owner with NAME "owner", as JSON. The key is made if it does not exist yet.
In the separate-user setup the keys are the daemon's: it answers (GET /web-bot-auth/keys/NAME,
with the owner passphrase; --passphrase-stdin reads it from standard input), and an agent it
does not know is its refusal, exit 7.

${EXIT_CODES}`,
  flags: { 'passphrase-stdin': 'boolean' },
  positionalsMax: 1,
  async perform(args, io) {
    const name = args.positionals[0];
    if (name === undefined) throw new UsageError('latch identity show needs an agent NAME (or owner)');
    if (name !== OWNER_IDENTITY) assertAgentName(name);
    // In the separate-user setup the keys are the daemon's files: it shows the public half (§30).
    if (daemonLivesElsewhere(resolveHome(io.env), io.env)) {
      const client = newCliClient({ ...io, env: { ...io.env, LATCH_AGENT: '' } }, '', { passphraseStdin: args.flags['passphrase-stdin'] === true });
      try {
        const shown = await client.identityKey(name);
        return { name: shown.name, key_id: shown.key_id, jwk: shown.jwk };
      } finally {
        client.close();
      }
    }
    const key = ensureIdentityKey(privateHome(io.env), name);
    return { name, key_id: key.keyId, jwk: directoryKey(key) };
  },
  human: (shown) => [JSON.stringify(shown, null, 2)],
});
