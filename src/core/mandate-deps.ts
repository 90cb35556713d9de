/** What the authorization pipeline needs from the daemon to sign AP2 open mandates (docs/ap2.md). */
import type { OpenMandateSigner } from '../ap2/sign-open-mandates.js';
import type { OperationContext } from './operation-context.js';

/** What the pipeline needs to sign mandates: the mandate key's signer and a card's label. */
export interface MandateDeps {
  /** The mandate key's signer (mandate.key), or undefined when the data directory has none. */
  signer(): OpenMandateSigner | undefined;
  /** The card's label, the instrument's description; undefined leaves the description out. */
  cardLabel(cardId: string, context: OperationContext): Promise<string | undefined>;
}

