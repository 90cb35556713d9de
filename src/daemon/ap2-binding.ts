/**
 * bindAp2 gives the AP2 routes (docs/ap2.md) the daemon's mandate keys and core: the current key
 * from mandate.key and the retired ones still listed, each re-read when its file changes (a
 * rotation takes effect without a restart), and the pipeline the mandates go through.
 */
import type { ReadingDevice } from '../operations/cloud-reads.js';
import { mandateJwks } from '../ap2/mandate-jwks.js';
import { requestAp2Mandates } from '../variant-common/ap2-mandate-operation.js';
import type { MandateDeps } from '../core/core-deps.js';
import { cloudCall, type CoreDeps } from '../core/core-deps.js';
import type { Ap2Operations } from '../variant-a/ap2-routes.js';
import type { DaemonServices } from './services.js';
import type { MandatePublicKey } from '../signer/index.js';

/** How long a card's label is reused for the mandates' instrument description. */
const CARD_LABEL_TTL_MS = 60_000;
const CARD_LABELS_MAX = 256;

/** bindAp2 returns the AP2 operations of one daemon. */
export function bindAp2(services: DaemonServices, deps: CoreDeps, mandateKey: () => MandatePublicKey | undefined, nowSeconds: () => number): Ap2Operations {
  return {
    jwks: () => mandateJwks(mandateKey(), services.retiredMandateKeys(), nowSeconds()),
    requestMandates: (request, context) => requestAp2Mandates(deps, request, context),
  };
}

/**
 * mandateDeps is what the pipeline signs mandates with beside the signer (core-deps.ts): card labels
 * read from the cloud, kept a minute so that two ES256 signatures are all a mandate adds.
 */
export function mandateDeps(services: DaemonServices, device: () => ReadingDevice): MandateDeps {
  const labels = new Map<string, { label: string; atMs: number }>();
  return {
    cardLabel: async (cardId, context) => {
      const nowMs = Date.now();
      const kept = labels.get(cardId);
      if (kept !== undefined && nowMs - kept.atMs < CARD_LABEL_TTL_MS) return kept.label;
      const enrolled = device();
      const card = await enrolled.cloud.getCard(cardId, cloudCall(enrolled, context));
      if (labels.size >= CARD_LABELS_MAX) labels.clear();
      labels.set(cardId, { label: card.label, atMs: nowMs });
      return card.label;
    },
  };
}
