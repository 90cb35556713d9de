/**
 * Signing a policy window and a revocation (docs/decisions.md §5, §28). A window is signed only
 * when the authorization ledger holds it as decided and recorded: an active entry under its
 * policy id whose every term is the payload's (recorded: durable already for a window to hold; for
 * a window to register, indexed and written with this JWS in one record, which is on disk before
 * the JWS goes anywhere: docs/decisions.md §28.10). That is the monitor's check (OpenSSH's
 * `mon_dispatch`): the signer itself confirms the state in which this request is allowed, so a
 * caller that skipped the decision or the record gets no signature, whatever it passes.
 */
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import type { PolicyWindowPayload, RevocationPayload } from '../core/window-payload.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { formatMinor } from '../money/amount.js';
import { assertSignableWithoutCardData } from '../validate/card-data-guard.js';
import { compactJws } from './compact-jws.js';
import { entered } from './entered.js';
import { JWS_TYP } from '../crypto/signature-purposes.js';

/** What the signer reads of the authorization ledger: the entry recorded under a policy id. */
export interface RecordedWindows {
  get(policyId: string): AuthorizationEntry | undefined;
}

/** mismatch names the first term of the payload the entry does not hold, or undefined. */
function mismatch(entry: AuthorizationEntry, payload: PolicyWindowPayload): string | undefined {
  if (entry.state !== 'active') return `its ledger entry is ${entry.state}`;
  if ((payload.card_id ?? null) !== entry.cardId) return 'card_id differs from the ledger entry';
  if (payload.merchant !== entry.merchant) return 'merchant differs from the ledger entry';
  if (payload.currency !== entry.currency) return 'currency differs from the ledger entry';
  if (payload.amount !== formatMinor(entry.amountMinor)) return 'amount differs from the ledger entry';
  if (payload.kind !== entry.kind) return 'kind differs from the ledger entry';
  if (payload.authorization_type !== entry.authorizationType) return 'authorization_type differs from the ledger entry';
  if (payload.not_after !== entry.notAfterSeconds) return 'not_after differs from the ledger entry';
  // A pipeline entry keeps the payload it decided on (the evidence record): it must be this one.
  if (entry.evidence !== undefined && JSON.stringify(entry.evidence.window) !== JSON.stringify(payload)) return 'the payload is not the one the ledger recorded';
  return undefined;
}

/**
 * signRecordedWindow signs the window the pipeline decided and recorded in ledger, as a compact
 * JWS. A payload carrying card data is never signed (`card_data_not_accepted`).
 */
export function signRecordedWindow(key: SigningKey, ledger: RecordedWindows, payload: PolicyWindowPayload): string {
  const entry = ledger.get(payload.policy_id);
  const why = entry === undefined ? 'the ledger holds no entry for it' : mismatch(entry, payload);
  entered(why === undefined, `window ${payload.policy_id}`, () => why as string);
  assertSignableWithoutCardData(payload);
  return compactJws(JSON.stringify(payload), key, JWS_TYP.window);
}

/** signRevocation signs a revocation of one policy window, any id (it only takes authority away, §42), as buildRevocationPayload makes it. */
export function signRevocation(key: SigningKey, payload: RevocationPayload): string {
  entered(payload.v === 1 && payload.typ === 'revocation' && typeof payload.policy_id === 'string' && payload.policy_id !== '' && typeof payload.device_id === 'string', 'revocation', () => 'the payload is not a revocation of one policy id');
  assertSignableWithoutCardData(payload);
  return compactJws(JSON.stringify(payload), key, JWS_TYP.revocation);
}
