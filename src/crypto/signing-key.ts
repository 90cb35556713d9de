/** The device key material the daemon signs with. DeviceKeyPair from the data directory satisfies it. */
export interface SigningKey {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly keyId: string;
}
