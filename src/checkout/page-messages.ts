/**
 * The message catalogue of the hosted pages (checkout and fund collections): every text the payer
 * reads, in French and in English, including the pages' script strings. One typed object per
 * language, so a text missing in one language is a type error. The merchant API's `message`
 * texts are not here: they stay French (src/domain/errors.ts).
 */

/** The languages of the hosted pages; French is the default (see `page-locale.ts`). */
export type PageLocale = 'fr' | 'en';

/** The failure codes the payer can meet on a page: the connectors' pay-in codes plus the page's own. */
export type PayerFailureCode =
  | 'REJECTED_BY_PAYER'
  | 'WRONG_PIN'
  | 'INSUFFICIENT_FUNDS'
  | 'PAYER_NOT_FOUND'
  | 'ACCOUNT_INACTIVE'
  | 'ACCOUNT_BLOCKED'
  | 'LIMIT_EXCEEDED'
  | 'TIMEOUT'
  | 'PROVIDER_UNAVAILABLE'
  | 'PROVIDER_ERROR'
  | 'NOT_FOUND_AT_PROVIDER'
  | 'INVALID_REQUEST'
  | 'CONFIGURATION_ERROR'
  | 'SESSION_EXPIRED'
  | 'CUSTOMER_CANCELLED';

/** Strings of the collection page's script, sent to it in the page (`data-messages`). */
export interface ScriptMessages {
  amountRequired: string;
  amountInvalid: string;
  amountInvalidDecimals: string;
  chooseOperator: string;
  /** Shown beside the amount, the number or the e-mail the JSON API refused, when `useApiMessages` is false. */
  amountRefused: string;
  numberRefused: string;
  emailRefused: string;
  startFailed: string;
  network: string;
  /** True when the API's own `message`/field texts (French) are in the page's language. */
  useApiMessages: boolean;
}

/** Every text of the hosted pages in one language. Functions take already formatted values. */
export interface PageMessages {
  /** The page language, for `<html lang>`. */
  lang: PageLocale;
  /** BCP 47 tag given to `Intl` for numbers and dates. */
  intlLocale: string;
  layout: {
    testMode: string;
    testIntro: string;
    testOutcomes: [digits: string, outcome: string][];
    testOthers: string;
    reference: string;
    securedBy: string;
  };
  form: {
    title: string;
    noRails: string;
    chooseOperator: string;
    phoneLabel: string;
    phoneHintExample: (example: string) => string;
    phoneHintAny: string;
    pay: string;
    payAmount: (amount: string) => string;
    cancel: string;
    lastAttemptFailed: (reason: string) => string;
    retry: string;
    tooManyAttemptsTitle: string;
    tooManyAttemptsText: string;
  };
  errors: {
    chooseOperator: string;
    railLimits: (rail: string, min: string, max: string) => string;
    /** The rail is CLOSED for pay-ins (RAIL_CLOSED): nothing was sent. */
    railClosed: (rail: string) => string;
    amountBelowRail: (rail: string, min: string) => string;
    amountAboveRail: (rail: string, max: string) => string;
    phoneRequired: string;
    /** `country` is an ISO 3166 code; an unknown one is shown as is. */
    phoneInvalid: (country: string) => string;
    phoneOtherOperator: (other: string, rail: string) => string;
    phoneNotOperator: (rail: string) => string;
    amountRequired: string;
    /** For a currency without decimals (XAF). */
    amountInvalid: string;
    /** For a currency with two decimals (KES). */
    amountInvalidDecimals: string;
    emailInvalid: string;
  };
  waiting: {
    title: string;
    heading: string;
    sentBefore: string;
    sentMiddle: string;
    dialToApprove: (code: string) => string;
    continueTo: (rail: string) => string;
    live: string;
    refresh: string;
    checkoutHint: string;
    collectHint: string;
  };
  result: {
    expiredTitle: string;
    expiredHeading: string;
    expiredText: string;
    successTitle: string;
    successText: string;
    cancelledTitle: string;
    cancelledText: string;
    failedTitle: string;
    failedHeading: string;
    redirecting: string;
    backToMerchant: string;
    canClose: string;
  };
  message: {
    tooManyHeading: string;
    tooManyText: string;
    formExpiredHeading: string;
    formExpiredText: string;
    reloadCheckout: string;
    reloadCollect: string;
    badRequestHeading: string;
    badRequestText: string;
    errorHeading: string;
    errorText: string;
    sessionNotFoundHeading: string;
    sessionNotFoundText: string;
    unavailableHeading: string;
    unavailableText: string;
    redirectHeading: (rail: string) => string;
    redirectText: (rail: string) => string;
  };
  collect: {
    openUntil: (date: string) => string;
    fixedAmount: string;
    amountLabel: (currency: string) => string;
    yourDetails: string;
    name: string;
    email: string;
    thanksHeading: string;
    thanksDefault: (title: string) => string;
    payAgain: string;
    retry: string;
    nothingDebited: string;
    paymentNotFoundHeading: string;
    paymentNotFoundText: string;
    notFoundHeading: string;
    notFoundText: string;
    closedHeading: string;
    closedReasons: { CLOSED: string; EXPIRED: string; DELETED: string; PAUSED: string };
  };
  failures: Record<PayerFailureCode, string> & { default: string };
  script: ScriptMessages;
}

/** Country names as French phrases ("du Cameroun") for "… valide du Cameroun". */
const FR_COUNTRIES: Record<string, string> = {
  CM: 'du Cameroun',
  CI: "de Côte d'Ivoire",
  SN: 'du Sénégal',
  BJ: 'du Bénin',
  GH: 'du Ghana',
  UG: "d'Ouganda",
  KE: 'du Kenya',
};

const EN_COUNTRIES: Record<string, string> = {
  CM: 'Cameroon',
  CI: "Côte d'Ivoire",
  SN: 'Senegal',
  BJ: 'Benin',
  GH: 'Ghana',
  UG: 'Uganda',
  KE: 'Kenya',
};

const fr: PageMessages = {
  lang: 'fr',
  intlLocale: 'fr-FR',
  layout: {
    testMode: 'Mode test',
    testIntro: " : aucun argent réel n'est débité. Numéros de test (3 derniers chiffres) : ",
    testOutcomes: [
      ['100', 'refusé'],
      ['101', 'code secret incorrect'],
      ['102', 'solde insuffisant'],
    ],
    testOthers: ' ; tout autre numéro valide réussit.',
    reference: 'Référence',
    securedBy: 'Paiement sécurisé par Kolo',
  },
  form: {
    title: 'Paiement',
    noRails: "Aucun moyen de paiement n'est disponible pour le moment. Réessayez plus tard.",
    chooseOperator: 'Choisissez votre opérateur',
    phoneLabel: 'Numéro de téléphone mobile money',
    phoneHintExample: (example) => `Le numéro qui va payer, par exemple ${example}.`,
    phoneHintAny: 'Le numéro qui va payer, avec ou sans indicatif du pays.',
    pay: 'Payer',
    payAmount: (amount) => `Payer ${amount}`,
    cancel: 'Annuler',
    lastAttemptFailed: (reason) => `Le paiement n'a pas abouti : ${reason}`,
    retry: 'Vous pouvez réessayer, avec le même numéro ou un autre numéro ou opérateur.',
    tooManyAttemptsTitle: 'Nombre maximal de tentatives atteint.',
    tooManyAttemptsText: 'Cette session de paiement ne peut plus être utilisée. Retournez sur le site du marchand pour recommencer.',
  },
  errors: {
    chooseOperator: 'Choisissez votre opérateur.',
    railLimits: (rail, min, max) => `${rail} accepte les paiements de ${min} à ${max}. Choisissez un autre opérateur.`,
    railClosed: (rail) => `${rail} est fermé pour le moment (l'opérateur ne répond plus). Réessayez plus tard ou choisissez un autre opérateur.`,
    amountBelowRail: (rail, min) => `${rail} accepte les paiements à partir de ${min}. Choisissez un autre montant ou un autre opérateur.`,
    amountAboveRail: (rail, max) => `${rail} accepte les paiements jusqu'à ${max}. Choisissez un autre montant ou un autre opérateur.`,
    phoneRequired: 'Saisissez votre numéro de téléphone.',
    phoneInvalid: (country) => `Ce numéro n'est pas un numéro de téléphone valide ${FR_COUNTRIES[country] ?? `(${country})`}.`,
    phoneOtherOperator: (other, rail) => `Ce numéro est un numéro ${other}, pas ${rail}. Choisissez ${other} ou saisissez un autre numéro.`,
    phoneNotOperator: (rail) => `Ce numéro n'est pas un numéro ${rail}.`,
    amountRequired: 'Saisissez le montant que vous souhaitez donner.',
    amountInvalid: 'Saisissez un montant en chiffres, sans décimales (par exemple 5000).',
    amountInvalidDecimals: 'Saisissez un montant en chiffres, avec au plus deux décimales (par exemple 50 ou 50,50).',
    emailInvalid: "Cette adresse e-mail n'est pas valide. Corrigez-la ou laissez le champ vide.",
  },
  waiting: {
    title: 'Confirmez sur votre téléphone',
    heading: 'Confirmez le paiement sur votre téléphone',
    sentBefore: 'Une demande de paiement de ',
    sentMiddle: ' a été envoyée au ',
    dialToApprove: (code) => `Composez ${code} pour valider le paiement`,
    continueTo: (rail) => `Continuer vers ${rail}`,
    live: 'En attente de votre confirmation…',
    refresh: 'Actualiser',
    checkoutHint: 'Vous ne souhaitez plus payer ? Refusez la demande sur votre téléphone : vous pourrez ensuite annuler ou choisir un autre numéro.',
    collectHint: 'Vous ne souhaitez plus payer ? Refusez la demande sur votre téléphone.',
  },
  result: {
    expiredTitle: 'Session expirée',
    expiredHeading: 'Cette session de paiement a expiré',
    expiredText: "Aucun paiement n'a été effectué. Retournez sur le site du marchand pour recommencer.",
    successTitle: 'Paiement réussi',
    successText: 'Merci ! Votre paiement a bien été reçu.',
    cancelledTitle: 'Paiement annulé',
    cancelledText: "Vous avez annulé le paiement. Aucun montant n'a été débité.",
    failedTitle: 'Paiement échoué',
    failedHeading: "Le paiement n'a pas abouti",
    redirecting: 'Vous allez être redirigé vers le site du marchand…',
    backToMerchant: 'Retourner sur le site du marchand',
    canClose: 'Vous pouvez fermer cette page.',
  },
  message: {
    tooManyHeading: 'Trop de tentatives',
    tooManyText: 'Trop de tentatives de paiement depuis cette connexion. Réessayez dans quelques minutes.',
    formExpiredHeading: 'Formulaire expiré',
    formExpiredText: "Pour votre sécurité, ce formulaire n'a pas été accepté. Rechargez la page et réessayez (les cookies doivent être autorisés).",
    reloadCheckout: 'Recharger la page de paiement',
    reloadCollect: 'Recharger la page de la collecte',
    badRequestHeading: 'Requête invalide',
    badRequestText: "La demande n'a pas pu être traitée.",
    errorHeading: 'Une erreur est survenue',
    errorText: 'Réessayez dans un instant.',
    sessionNotFoundHeading: 'Session de paiement introuvable',
    sessionNotFoundText: "Ce lien de paiement n'existe pas. Vérifiez l'adresse ou retournez sur le site du marchand.",
    unavailableHeading: 'Paiement indisponible',
    unavailableText: "Ce marchand n'accepte pas de paiements pour le moment. Aucun montant n'a été débité. Retournez sur le site du marchand.",
    redirectHeading: (rail) => `Paiement avec ${rail}`,
    redirectText: (rail) => `Vous allez être redirigé vers ${rail} pour valider le paiement, puis ramené ici.`,
  },
  collect: {
    openUntil: (date) => `Collecte ouverte jusqu'au ${date}.`,
    fixedAmount: 'Montant fixe',
    amountLabel: (currency) => `Montant à donner (${currency})`,
    yourDetails: 'Vos coordonnées (facultatif)',
    name: 'Nom',
    email: 'Adresse e-mail',
    thanksHeading: 'Merci ! Votre paiement a bien été reçu.',
    thanksDefault: (title) => `Votre contribution à « ${title} » a été enregistrée.`,
    payAgain: 'Faire un autre paiement',
    retry: 'Réessayer',
    nothingDebited: "Aucun montant n'a été débité.",
    paymentNotFoundHeading: 'Paiement introuvable',
    paymentNotFoundText: "Ce lien de suivi de paiement n'existe pas. Vérifiez l'adresse.",
    notFoundHeading: 'Collecte introuvable',
    notFoundText: "Cette collecte n'existe pas. Vérifiez le lien que l'on vous a envoyé.",
    closedHeading: "Cette collecte n'accepte plus de paiements",
    closedReasons: {
      CLOSED: 'Son organisateur l’a clôturée.',
      EXPIRED: 'Elle a pris fin : la date limite est passée.',
      DELETED: 'Elle a été supprimée par son organisateur.',
      PAUSED: "Son organisateur n'accepte pas de paiements pour le moment.",
    },
  },
  failures: {
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
    default: "Le paiement n'a pas abouti.",
  },
  script: {
    amountRequired: 'Saisissez le montant que vous souhaitez donner.',
    amountInvalid: 'Saisissez un montant en chiffres, sans décimales (par exemple 5000).',
    amountInvalidDecimals: 'Saisissez un montant en chiffres, avec au plus deux décimales (par exemple 50 ou 50,50).',
    chooseOperator: 'Choisissez votre opérateur.',
    amountRefused: "Ce montant n'est pas accepté. Choisissez un autre montant ou un autre opérateur.",
    numberRefused: "Ce numéro n'est pas un numéro mobile money de l'opérateur choisi.",
    emailRefused: "Cette adresse e-mail n'est pas valide. Corrigez-la ou laissez le champ vide.",
    startFailed: 'Le paiement n’a pas pu être démarré. Réessayez.',
    network: 'La connexion a échoué. Vérifiez votre réseau et réessayez.',
    // The public collect API answers in French: its detailed texts can be shown as they are.
    useApiMessages: true,
  },
};

const en: PageMessages = {
  lang: 'en',
  intlLocale: 'en-GB',
  layout: {
    testMode: 'Test mode',
    testIntro: ': no real money is debited. Test numbers (last 3 digits): ',
    testOutcomes: [
      ['100', 'declined'],
      ['101', 'wrong PIN'],
      ['102', 'insufficient funds'],
    ],
    testOthers: '; any other valid number succeeds.',
    reference: 'Reference',
    securedBy: 'Payment secured by Kolo',
  },
  form: {
    title: 'Payment',
    noRails: 'No payment method is available right now. Please try again later.',
    chooseOperator: 'Choose your operator',
    phoneLabel: 'Mobile money phone number',
    phoneHintExample: (example) => `The number that will pay, for example ${example}.`,
    phoneHintAny: 'The number that will pay, with or without the country code.',
    pay: 'Pay',
    payAmount: (amount) => `Pay ${amount}`,
    cancel: 'Cancel',
    lastAttemptFailed: (reason) => `The payment did not go through: ${reason}`,
    retry: 'You can try again, with the same number or another number or operator.',
    tooManyAttemptsTitle: 'Maximum number of attempts reached.',
    tooManyAttemptsText: "This payment session can no longer be used. Go back to the merchant's website to start again.",
  },
  errors: {
    chooseOperator: 'Choose your operator.',
    railLimits: (rail, min, max) => `${rail} accepts payments from ${min} to ${max}. Choose another operator.`,
    railClosed: (rail) => `${rail} is closed for now (the operator no longer answers). Try again later or choose another operator.`,
    amountBelowRail: (rail, min) => `${rail} accepts payments from ${min}. Choose another amount or another operator.`,
    amountAboveRail: (rail, max) => `${rail} accepts payments up to ${max}. Choose another amount or another operator.`,
    phoneRequired: 'Enter your phone number.',
    phoneInvalid: (country) => (EN_COUNTRIES[country] ? `This is not a valid phone number in ${EN_COUNTRIES[country]}.` : `This is not a valid phone number (${country}).`),
    phoneOtherOperator: (other, rail) => `This number belongs to ${other}, not ${rail}. Choose ${other} or enter another number.`,
    phoneNotOperator: (rail) => `This number does not belong to ${rail}.`,
    amountRequired: 'Enter the amount you wish to give.',
    amountInvalid: 'Enter the amount in figures, without decimals (for example 5000).',
    amountInvalidDecimals: 'Enter the amount in figures, with at most two decimals (for example 50 or 50.50).',
    emailInvalid: 'This email address is not valid. Correct it or leave the field empty.',
  },
  waiting: {
    title: 'Confirm on your phone',
    heading: 'Confirm the payment on your phone',
    sentBefore: 'A payment request for ',
    sentMiddle: ' has been sent to ',
    dialToApprove: (code) => `Dial ${code} to approve the payment`,
    continueTo: (rail) => `Continue to ${rail}`,
    live: 'Waiting for your confirmation…',
    refresh: 'Refresh',
    checkoutHint: 'Changed your mind? Decline the request on your phone: you can then cancel or choose another number.',
    collectHint: 'Changed your mind? Decline the request on your phone.',
  },
  result: {
    expiredTitle: 'Session expired',
    expiredHeading: 'This payment session has expired',
    expiredText: "No payment was made. Go back to the merchant's website to start again.",
    successTitle: 'Payment successful',
    successText: 'Thank you! Your payment has been received.',
    cancelledTitle: 'Payment cancelled',
    cancelledText: 'You cancelled the payment. Nothing was debited.',
    failedTitle: 'Payment failed',
    failedHeading: 'The payment did not go through',
    redirecting: "Taking you back to the merchant's website…",
    backToMerchant: "Back to the merchant's website",
    canClose: 'You can close this page.',
  },
  message: {
    tooManyHeading: 'Too many attempts',
    tooManyText: 'Too many payment attempts from this connection. Please try again in a few minutes.',
    formExpiredHeading: 'Form expired',
    formExpiredText: 'For your security, this form was not accepted. Reload the page and try again (cookies must be allowed).',
    reloadCheckout: 'Reload the payment page',
    reloadCollect: 'Reload the collection page',
    badRequestHeading: 'Invalid request',
    badRequestText: 'The request could not be processed.',
    errorHeading: 'Something went wrong',
    errorText: 'Please try again in a moment.',
    sessionNotFoundHeading: 'Payment session not found',
    sessionNotFoundText: "This payment link does not exist. Check the address or go back to the merchant's website.",
    unavailableHeading: 'Payment unavailable',
    unavailableText: "This merchant is not accepting payments right now. Nothing was debited. Go back to the merchant's website.",
    redirectHeading: (rail) => `Pay with ${rail}`,
    redirectText: (rail) => `You will be taken to ${rail} to approve the payment, then brought back here.`,
  },
  collect: {
    openUntil: (date) => `Collection open until ${date}.`,
    fixedAmount: 'Fixed amount',
    amountLabel: (currency) => `Amount to give (${currency})`,
    yourDetails: 'Your details (optional)',
    name: 'Name',
    email: 'Email address',
    thanksHeading: 'Thank you! Your payment has been received.',
    thanksDefault: (title) => `Your contribution to “${title}” has been recorded.`,
    payAgain: 'Make another payment',
    retry: 'Try again',
    nothingDebited: 'Nothing was debited.',
    paymentNotFoundHeading: 'Payment not found',
    paymentNotFoundText: 'This payment tracking link does not exist. Check the address.',
    notFoundHeading: 'Collection not found',
    notFoundText: 'This collection does not exist. Check the link you were sent.',
    closedHeading: 'This collection no longer accepts payments',
    closedReasons: {
      CLOSED: 'Its organiser has closed it.',
      EXPIRED: 'It has ended: its closing date has passed.',
      DELETED: 'Its organiser has deleted it.',
      PAUSED: 'Its organiser is not accepting payments right now.',
    },
  },
  failures: {
    REJECTED_BY_PAYER: 'The payment request was declined on the phone.',
    WRONG_PIN: 'The PIN entered on the phone is incorrect.',
    INSUFFICIENT_FUNDS: 'The mobile money balance is insufficient.',
    PAYER_NOT_FOUND: 'This number has no mobile money account with this operator.',
    ACCOUNT_INACTIVE: 'This mobile money account is not active. Contact your operator.',
    ACCOUNT_BLOCKED: 'This mobile money account is blocked. Contact your operator.',
    LIMIT_EXCEEDED: 'This mobile money account has reached its limit.',
    TIMEOUT: 'The payment was not approved on the phone in time.',
    PROVIDER_UNAVAILABLE: 'The operator is not responding right now.',
    PROVIDER_ERROR: 'The operator ran into an error.',
    NOT_FOUND_AT_PROVIDER: 'The operator did not receive the payment request.',
    INVALID_REQUEST: 'The operator refused the request.',
    CONFIGURATION_ERROR: 'This payment method is not available right now.',
    SESSION_EXPIRED: 'The payment session has expired.',
    CUSTOMER_CANCELLED: 'The payment was cancelled.',
    default: 'The payment did not go through.',
  },
  script: {
    amountRequired: 'Enter the amount you wish to give.',
    amountInvalid: 'Enter the amount in figures, without decimals (for example 5000).',
    amountInvalidDecimals: 'Enter the amount in figures, with at most two decimals (for example 50 or 50.50).',
    chooseOperator: 'Choose your operator.',
    amountRefused: 'This amount is not accepted. Choose another amount or another operator.',
    numberRefused: 'This is not a mobile money number of the chosen operator.',
    emailRefused: 'This email address is not valid. Correct it or leave the field empty.',
    startFailed: 'The payment could not be started. Please try again.',
    network: 'The connection failed. Check your network and try again.',
    useApiMessages: false,
  },
};

/** The catalogue: the messages of each page language. */
export const PAGE_MESSAGES: Record<PageLocale, PageMessages> = { fr, en };

/** What the payer reads for a failure `code` (a generic sentence for a code without its own). */
export function failureMessage(m: PageMessages, code: string | null): string {
  return (code !== null && Object.hasOwn(m.failures, code) ? m.failures[code as PayerFailureCode] : null) ?? m.failures.default;
}

/** A USSD code in an operator hint ("Composez *126# pour valider le paiement" → `*126#`). */
const USSD_CODE = /[*#][0-9*#]*#/;

/**
 * A rail's USSD hint in the page's language: the catalogue's sentence around the USSD code the
 * hint names (rails store a French sentence), or the hint as written when it names none.
 */
export function ussdHintText(m: PageMessages, hint: string | null): string | null {
  if (!hint) return null;
  const code = USSD_CODE.exec(hint)?.[0];
  return code ? m.waiting.dialToApprove(code) : hint;
}
