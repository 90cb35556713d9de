/** The protected header Latch writes: EdDSA (RFC 8037) with the key's thumbprint as kid. */
export interface JwsHeader {
  alg: 'EdDSA';
  kid: string;
  typ?: string;
}
