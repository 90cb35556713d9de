/**
 * PolicyInvalidError says why policy.json cannot be used, naming the offending field as a JSON
 * path (`rules[2].max_amount`; `$` for the file as a whole). The daemon answers it as
 * `503 policy_invalid` with `param` set to `field`. Messages are written here and never repeat a
 * value from the file, so a long or hostile value cannot reach a log or a response.
 */
export class PolicyInvalidError extends Error {
  readonly code = 'policy_invalid' as const;
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.name = 'PolicyInvalidError';
    this.field = field;
  }
}

/** The field path of the file as a whole. */
export const ROOT_FIELD = '$';

/** refuse throws a PolicyInvalidError whose message starts with the field it names. */
export function refuse(field: string, why: string): never {
  throw new PolicyInvalidError(field, `policy.json ${field}: ${why}`);
}

/** memberPath names a member of an object: `rules[2]` + `max_amount` → `rules[2].max_amount`. */
export function memberPath(parent: string, key: string): string {
  return parent === ROOT_FIELD ? key : `${parent}.${key}`;
}

/** elementPath names an element of an array: `rules` + 2 → `rules[2]`. */
export function elementPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
