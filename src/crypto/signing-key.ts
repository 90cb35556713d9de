/**
 * A key the signer holds, as everyone else sees it: its public half and RFC 7638 key id. The
 * secret never appears on it; only src/signer/ can sign with it (docs/decisions.md §28).
 * DeviceKey and the identity keys satisfy it.
 */
export interface SigningKey {
  readonly publicKey: Uint8Array;
  readonly keyId: string;
}
