/** The most names a memo keeps: far more than the daemon's own field names, bounded against a caller's. */
const NAMES_KEPT_MAX = 4096;
/** Longer names are judged every time rather than kept. */
const NAME_CHARS_KEPT_MAX = 128;

/**
 * memoizeNames remembers a pure judgement of field names (is this a card-data name, a secret's
 * name?). The daemon asks it for the same few dozen names of its own audit lines, log lines and
 * request bodies on every request; the answer depends on the name alone. Names a caller invents
 * are kept only until the memo is full, then judged each time, so no input can grow it.
 */
export function memoizeNames(judge: (name: string) => boolean): (name: string) => boolean {
  const known = new Map<string, boolean>();
  return (name) => {
    const remembered = known.get(name);
    if (remembered !== undefined) return remembered;
    const verdict = judge(name);
    // Kept as a copy: a name cut from a longer text (a query string's `name=value` pairs) may be a
    // V8 slice that would keep the whole text alive for as long as the memo keeps the name.
    if (known.size < NAMES_KEPT_MAX && name.length <= NAME_CHARS_KEPT_MAX) known.set(Buffer.from(name, 'utf8').toString('utf8'), verdict);
    return verdict;
  };
}
