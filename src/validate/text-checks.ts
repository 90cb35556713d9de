/** The checks a text field can ask for, shared by the validator and its JSON Schema description. */
export interface TextChecks {
  /** Fewest code points; 1 by default, so an empty string is refused. */
  minLength?: number;
  /** Most code points; 256 by default. */
  maxLength?: number;
  /** A pattern the whole value must match; anchor it. */
  pattern?: RegExp;
  /** Words for the error message when the pattern fails, e.g. "a card id like card_...". */
  describe?: string;
}
