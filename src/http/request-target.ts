/** An origin-form request target split into its parts, both still percent-encoded. */
export interface RequestTarget {
  path: string;
  /** The query without the `?`; empty when there is none. */
  rawQuery: string;
}

/**
 * splitTarget splits an origin-form target at the first `?`. It deliberately does not use
 * `new URL(target, base)`, which would read `//evil/x` as a URL on another host.
 */
export function splitTarget(target: string): RequestTarget {
  const question = target.indexOf('?');
  if (question === -1) return { path: target, rawQuery: '' };
  return { path: target.slice(0, question), rawQuery: target.slice(question + 1) };
}
