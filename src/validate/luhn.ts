/**
 * luhnValid reports whether digits[start, end) pass the Luhn (mod 10) check that every payment
 * card number carries. Leading zeros do not change the result, as in the standard algorithm.
 */
export function luhnValid(digits: readonly number[], start = 0, end = digits.length): boolean {
  let sum = 0;
  let double = false;
  for (let i = end - 1; i >= start; i--) {
    let d = digits[i] as number;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
