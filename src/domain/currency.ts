/**
 * Currencies' base units. Every amount in Kolo (API, ledger, rails' limits, fees, operator calls)
 * is an integer count of its currency's base unit, which this module alone defines.
 */

/**
 * Currencies counted in whole major units although ISO 4217 gives them a minor unit, because the
 * only operators moving them take whole amounts: KES (M-Pesa Daraja's `Amount` is a whole number
 * of shillings, and the rails' limits are in shillings).
 */
const WHOLE_UNIT_CURRENCIES: ReadonlySet<string> = new Set(['KES']);

const digitsByCurrency = new Map<string, number>();

/**
 * Decimal places between `currency`'s base unit and its major unit: 0 when the base unit is the
 * major unit (XAF, XOF, UGX, KES), 2 for a currency counted in hundredths (GHS: 1250 = 12.50 GHS).
 * ISO 4217's minor-unit digits as `Intl.NumberFormat` knows them, except the whole-unit
 * currencies above. Throws RangeError for a string that is not a currency code.
 */
export function baseUnitDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    digits = WHOLE_UNIT_CURRENCIES.has(currency)
      ? 0
      : (new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 0);
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}
