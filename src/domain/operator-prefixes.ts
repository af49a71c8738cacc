/**
 * Which operator a mobile number belongs to, from its prefix, where the ranges are known (those
 * existing integrations use to pick a rail in Cameroon: MTN 650–654, 67x, 680–683; Orange 640,
 * 655–659, 686–689, 69x). Used to tell a customer that the number typed does not match the operator
 * chosen, before a pay-in request is sent to the wrong network.
 */

type Ranges = Record<string, Array<[number, number]>>;

/** Three-digit national prefixes per operator, per ISO 3166 alpha-2 country. */
const PREFIXES: Record<string, Ranges> = {
  CM: {
    MTN_MOMO: [
      [650, 654],
      [670, 679],
      [680, 683],
    ],
    ORANGE_MONEY: [
      [640, 640],
      [655, 659],
      [686, 689],
      [690, 699],
    ],
  },
};

/**
 * The operator whose known ranges contain `nationalNumber` in `country`, or null when the
 * country's ranges are not known or no range matches (the number is then not second-guessed).
 */
export function operatorOfNumber(nationalNumber: string, country: string): string | null {
  const ranges = PREFIXES[country];
  if (!ranges || !/^\d{3}/.test(nationalNumber)) return null;
  const prefix = Number(nationalNumber.slice(0, 3));
  for (const [operator, list] of Object.entries(ranges)) {
    if (list.some(([from, to]) => prefix >= from && prefix <= to)) return operator;
  }
  return null;
}
