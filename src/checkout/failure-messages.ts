/**
 * What the customer reads when an attempt did not go through: one French sentence per failure code
 * (the connectors' `FAILURE_CODES`, plus the page's own), saying what to do next.
 */

const MESSAGES: Record<string, string> = {
  REJECTED_BY_PAYER: 'La demande de paiement a été refusée sur le téléphone.',
  WRONG_PIN: 'Le code secret saisi sur le téléphone est incorrect.',
  INSUFFICIENT_FUNDS: 'Le solde du compte mobile money est insuffisant.',
  PAYER_NOT_FOUND: "Ce numéro n'a pas de compte mobile money chez cet opérateur.",
  ACCOUNT_INACTIVE: "Ce compte mobile money n'est pas actif. Contactez votre opérateur.",
  ACCOUNT_BLOCKED: 'Ce compte mobile money est bloqué. Contactez votre opérateur.',
  LIMIT_EXCEEDED: 'Le plafond de ce compte mobile money est atteint.',
  TIMEOUT: "Le paiement n'a pas été validé à temps sur le téléphone.",
  PROVIDER_UNAVAILABLE: "L'opérateur ne répond pas pour le moment.",
  PROVIDER_ERROR: "L'opérateur a rencontré une erreur.",
  NOT_FOUND_AT_PROVIDER: "L'opérateur n'a pas reçu la demande de paiement.",
  INVALID_REQUEST: "L'opérateur a refusé la demande.",
  CONFIGURATION_ERROR: "Ce moyen de paiement n'est pas disponible pour le moment.",
  SESSION_EXPIRED: 'La session de paiement a expiré.',
  CUSTOMER_CANCELLED: 'Le paiement a été annulé.',
};

/** The French explanation of `code`; a generic sentence for a code without its own. */
export function failureMessage(code: string | null): string {
  return (code && MESSAGES[code]) || "Le paiement n'a pas abouti.";
}
