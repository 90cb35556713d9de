/**
 * A daemon child with one planted broken state (invariant-stops-daemon.test.ts): the ledger, read
 * by the signer as it enters the window purpose, answers an entry of merchant `planted.example`
 * with one minor unit more than was recorded, so the window about to be signed is no longer the
 * ledger's. The callers' checks cannot see it (the decision and the record are as they were); the
 * signer must. Everything else is `latch daemon` as shipped. Prints daemon_listening on stdout.
 */
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { StoredAuthorizationLedger } from '../../src/core/authorization-ledger.js';

const home = process.env['LATCH_HOME'] as string;
const recorded = StoredAuthorizationLedger.prototype.get;
StoredAuthorizationLedger.prototype.get = function planted(this: StoredAuthorizationLedger, policyId: string) {
  const entry = recorded.call(this, policyId);
  return entry?.merchant === 'planted.example' ? { ...entry, amountMinor: entry.amountMinor + 1 } : entry;
};
const daemon = createDaemon({ home, portA: 0, portB: 0, variantB: false, env: { LATCH_HOME: home }, logStream: process.stderr });
void daemon.listen().then((ports) => process.stdout.write(`${JSON.stringify({ event: 'daemon_listening', pid: process.pid, port_a: ports.portA ?? null })}\n`));
