/**
 * `latch ap2 key [--out FILE]`: the public JWK of the AP2 mandate key (docs/ap2.md), what an AP2
 * credentials provider or merchant loads as this trusted surface's key. Public material only; the
 * private key never leaves mandate.key and the signer.
 */
import { writeFileAtomic } from '../../datadir/atomic-file.js';
import { ensureMandateKey, passphraseFromEnv } from '../../signer/key-admin.js';
import { mandateJwk, type MandateJwk } from '../../ap2/mandate-jwks.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { localCommand } from '../local-command.js';
import { privateHome } from '../private-home.js';

/** A public key is public: anyone may read the file. */
const PUBLIC_FILE_MODE = 0o644;

/** `latch ap2 key` prints or writes the current mandate key's public JWK. */
export const ap2KeyCommand = localCommand<{ jwk: MandateJwk; file: string | null }>({
  name: 'ap2 key',
  summary: 'Print (or --out FILE) the public JWK of the AP2 mandate key',
  usage: `Usage: latch ap2 key [--out FILE] [--json]

Prints the public JWK of the key that signs AP2 open mandates (P-256, ES256; kid is its RFC 7638
thumbprint), or writes it to FILE (mode 0644). An AP2 credentials provider or merchant loads it as
the trusted surface's key. The running daemon serves it, with retired keys whose mandates may not
have expired, at GET /ap2/jwks. The key is made if the data directory has none yet; an encrypted
mandate.key needs LATCH_KEY_PASSPHRASE. --json prints {"jwk", "file"}.

Exit codes: 0 done; 2 bad usage; 3 unsafe or broken data directory, or a wrong passphrase; 7 --agent given.`,
  flags: { out: 'value' },
  positionalsMax: 0,
  perform(args, io) {
    const jwk = mandateJwk(ensureMandateKey(privateHome(io.env), passphraseFromEnv(io.env)));
    const out = stringFlag(args.flags, 'out');
    if (out !== undefined) writeFileAtomic(out, `${JSON.stringify(jwk, null, 2)}\n`, PUBLIC_FILE_MODE);
    return { jwk, file: out ?? null };
  },
  human: ({ jwk, file }) => (file === null ? [JSON.stringify(jwk, null, 2)] : [`Wrote the mandate key ${jwk.kid} to ${file}.`]),
});
