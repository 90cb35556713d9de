/**
 * CloudClock learns the cloud's clock from the `Date` header of its answers, so that the daemon
 * can sign windows in the cloud's time: a window is valid on the cloud's clock, and a device clock
 * that is minutes off would otherwise sign windows that start in the future or are already over
 * (docs/decisions.md §15.8). The header has one-second resolution; the estimate takes the middle of that
 * second, which is good to about a second — far finer than any window.
 */

/** The largest skew the RFC 9421 signatures survive: the cloud refuses `created` further off. */
export const SIGNATURE_SKEW_SECONDS_MAX = 300;
/** A Date header claiming a skew beyond this is ignored as nonsense (ten years). */
const PLAUSIBLE_SKEW_SECONDS_MAX = 10 * 366 * 86_400;

export class CloudClock {
  private skew: number | undefined;

  constructor(private readonly localMs: () => number = Date.now) {}

  /** observe takes the Date header of one cloud answer, received now. Malformed headers are ignored. */
  observe(dateHeader: string | null): void {
    if (dateHeader === null || dateHeader.length > 64) return;
    const cloudMs = Date.parse(dateHeader);
    if (Number.isNaN(cloudMs)) return;
    const skew = Math.round((cloudMs + 500 - this.localMs()) / 1000);
    if (Math.abs(skew) <= PLAUSIBLE_SKEW_SECONDS_MAX) this.skew = skew;
  }

  /** skewSeconds is how far the cloud's clock runs ahead of this device's (negative: behind), or undefined before any answer. */
  skewSeconds(): number | undefined {
    return this.skew;
  }

  /** nowSeconds is the cloud's time as best known: the device's until the first answer. */
  nowSeconds(): number {
    return Math.floor(this.localMs() / 1000) + (this.skew ?? 0);
  }

  /** describeSkew names both clocks, for messages. */
  describeSkew(): string {
    const device = new Date(this.localMs()).toISOString();
    const cloud = new Date(this.localMs() + (this.skew ?? 0) * 1000).toISOString();
    return `this device's clock reads ${device}, the cloud's ${cloud} (${this.skew ?? 0} s apart)`;
  }
}
