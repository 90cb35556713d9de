/**
 * The MCP protocol revisions this server speaks, newest first. Tools need nothing that changed
 * between them except what is gated by atLeast(): tool annotations (2025-03-26), titles and
 * structuredContent (2025-06-18).
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/** The newest revision, answered to a client that asks for one this server does not speak. */
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

/**
 * negotiateVersion answers `initialize` (MCP lifecycle, version negotiation): the client's
 * version when this server supports it, else the latest this server supports; a client that
 * cannot speak that one disconnects.
 */
export function negotiateVersion(requested: string): ProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? (requested as ProtocolVersion) : LATEST_PROTOCOL_VERSION;
}

/** atLeast reports whether the negotiated revision includes a feature introduced in `since` (dates compare as text). */
export function atLeast(version: ProtocolVersion, since: ProtocolVersion): boolean {
  return version >= since;
}
