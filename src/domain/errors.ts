/**
 * The closed list of error codes, each with its HTTP status and French message (every API message
 * is French whatever the caller's locale). Operating errors are thrown as `ApiError(code)`; the
 * HTTP layer turns them into the envelope. Adding a code here is the only way to add one: the
 * `satisfies` clause keeps the table exhaustive.
 */
export const ERRORS = {
  VALIDATION_ERROR: { status: 400, message: 'La requête contient des champs invalides.' },
  BAD_REQUEST: { status: 400, message: "La requête HTTP est mal formée et n'a pas pu être lue." },
  MALFORMED_JSON: { status: 400, message: "Le corps de la requête n'est pas un JSON valide." },
  CURRENCY_MISMATCH: {
    status: 400,
    message: "La devise ne correspond pas à celle de l'application ou du moyen de paiement.",
  },
  AMOUNT_BELOW_MINIMUM: { status: 400, message: 'Le montant est inférieur au minimum autorisé pour ce moyen de paiement.' },
  AMOUNT_ABOVE_MAXIMUM: { status: 400, message: 'Le montant est supérieur au maximum autorisé pour ce moyen de paiement.' },
  INSUFFICIENT_BALANCE: {
    status: 400,
    message: 'Solde disponible insuffisant pour cette opération (montant et frais compris).',
  },
  REFUND_NOT_ALLOWED: { status: 400, message: "Ce paiement ne peut pas être remboursé : seul un paiement réussi peut l'être." },
  REFUND_AMOUNT_EXCEEDED: { status: 400, message: 'Le montant demandé dépasse ce qui reste à rembourser sur ce paiement.' },
  INVALID_PARAMETER: { status: 400, message: "Un paramètre de l'URL est invalide." },
  UNAUTHORIZED: { status: 401, message: 'Clé API invalide ou manquante.' },
  TOKEN_EXPIRED: { status: 401, message: 'Votre session a expiré. Reconnectez-vous.' },
  INVALID_TOKEN: { status: 401, message: "Jeton d'accès invalide." },
  INVALID_CREDENTIALS: { status: 401, message: 'Adresse e-mail ou mot de passe incorrect.' },
  INVALID_REFRESH_TOKEN: { status: 401, message: 'Jeton de rafraîchissement invalide.' },
  COMPROMISED_SESSION: {
    status: 401,
    message: 'Ce jeton de rafraîchissement a déjà été utilisé : la session a été fermée par sécurité. Reconnectez-vous.',
  },
  EXPIRED_SESSION: { status: 401, message: 'Votre session a expiré. Reconnectez-vous.' },
  INVALID_TOKEN_TYPE: { status: 401, message: "Ce jeton n'est pas du type attendu." },
  SECOND_FACTOR_REQUIRED: {
    status: 401,
    message: "Ce compte est protégé par un second facteur : envoyez le code à 6 chiffres de votre application (otp) ou un code de secours (recoveryCode).",
  },
  SECOND_FACTOR_INVALID: { status: 401, message: 'Code à deux facteurs ou code de secours invalide ou déjà utilisé.' },
  SECOND_FACTOR_ENROLMENT_REQUIRED: {
    status: 403,
    message: "Votre rôle exige la connexion à deux facteurs : activez-la dans votre profil avant cette action.",
  },
  FRESH_SECOND_FACTOR_REQUIRED: {
    status: 403,
    message: 'Cette action demande de confirmer votre second facteur (POST /api/v1/merchants/me/two-factor/verify) depuis moins de 5 minutes.',
  },
  SECOND_FACTOR_ALREADY_ENABLED: { status: 409, message: 'La connexion à deux facteurs est déjà activée sur ce compte.' },
  ACCESS_DENIED: { status: 403, message: "Vous n'avez pas accès à cette ressource." },
  ACCOUNT_NOT_ACTIVE: { status: 403, message: "Ce compte n'est pas actif." },
  EMAIL_NOT_VERIFIED: { status: 403, message: "Votre adresse e-mail n'est pas encore vérifiée." },
  API_KEY_SCOPE_DENIED: {
    status: 403,
    message: "Cette clé API n'a pas la portée requise pour cette opération. Émettez une clé qui l'inclut depuis le tableau de bord.",
  },
  API_KEY_IP_DENIED: {
    status: 403,
    message: "Cette clé API n'est pas autorisée depuis cette adresse IP. Ajoutez l'adresse à la liste autorisée de la clé.",
  },
  APP_ACCESS_DENIED: { status: 403, message: "Vous n'avez pas accès à cette application." },
  USER_NOT_FOUND: { status: 404, message: 'Utilisateur introuvable.' },
  MEMBER_NOT_FOUND: { status: 404, message: "Membre ou invitation introuvable dans l'équipe de ce compte." },
  INVITATION_INVALID: {
    status: 400,
    message: "Cette invitation n'est pas valable : elle a expiré, a été annulée ou a déjà servi. Demandez-en une nouvelle.",
  },
  APP_NOT_FOUND: { status: 404, message: 'Application introuvable.' },
  API_KEY_NOT_FOUND: { status: 404, message: "Aucune clé API active pour cette application." },
  OTP_NOT_FOUND: { status: 404, message: "Aucun code en cours de validité. Demandez-en un nouveau." },
  OTP_INVALID: { status: 400, message: 'Code invalide.' },
  OTP_EXPIRED: { status: 400, message: 'Ce code a expiré. Demandez-en un nouveau.' },
  INVALID_RESET_TOKEN: { status: 400, message: 'Jeton de réinitialisation invalide ou expiré.' },
  EMAIL_ALREADY_EXISTS: { status: 409, message: 'Un compte existe déjà avec cette adresse e-mail.' },
  ACCOUNT_ALREADY_VERIFIED: { status: 409, message: 'Ce compte est déjà vérifié.' },
  APP_NAME_ALREADY_EXISTS: { status: 409, message: 'Vous avez déjà une application de ce nom.' },
  PROVIDER_ALREADY_EXISTS: { status: 409, message: 'Un moyen de paiement avec ce code existe déjà.' },
  PROVIDER_NOT_FOUND: { status: 404, message: "Ce moyen de paiement n'existe pas ou n'est pas disponible." },
  TRANSACTION_NOT_FOUND: { status: 404, message: 'Transaction introuvable.' },
  STATEMENT_NOT_READY: { status: 409, message: "Ce relevé est encore en préparation : réessayez quand son statut est READY." },
  PAYOUT_NOT_CANCELLABLE: {
    status: 409,
    message: "Ce transfert ne peut plus être annulé : seul un transfert en file d'attente (pas encore envoyé à l'opérateur) peut l'être.",
  },
  RESOURCE_NOT_FOUND: { status: 404, message: 'Ressource introuvable.' },
  WEBHOOK_SECRET_NOT_FOUND: { status: 404, message: "Cette application n'a pas de secret de webhook." },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: 'Livraison de webhook introuvable.' },
  WEBHOOK_URL_NOT_CONFIGURED: { status: 409, message: "Aucune URL de webhook n'est configurée pour cette application." },
  WEBHOOK_SECRET_ALREADY_EXISTS: {
    status: 409,
    message: 'Cette application possède déjà un secret de webhook. Utilisez la rotation pour en obtenir un nouveau.',
  },
  WEBHOOK_TEST_FAILED: { status: 502, message: "Le webhook de test n'a pas pu être livré." },
  // Fund collections (the codes SharePay's dashboard handles).
  AMOUNT_REQUIRED_FOR_FIXED: { status: 400, message: 'Une collecte à montant fixe doit indiquer son montant (amount).' },
  COLLECTION_NOT_FOUND: { status: 404, message: 'Collecte introuvable.' },
  // Batch pay-outs.
  BATCH_NOT_FOUND: { status: 404, message: 'Lot de virements introuvable.' },
  BATCH_NOT_AWAITING_APPROVAL: { status: 409, message: "Ce lot n'attend pas d'approbation : il a déjà été approuvé, rejeté, annulé ou il a expiré." },
  BATCH_NOT_FINISHED: { status: 409, message: "Ce lot n'est pas terminé avec des échecs : rien à relancer." },
  BATCH_SELF_APPROVAL: { status: 403, message: "Un lot doit être approuvé par une autre personne que celle qui l'a créé." },
  COLLECTION_NOT_EDITABLE: {
    status: 409,
    message: "Cette collecte est fermée ou expirée : rouvrez-la avant de la modifier.",
  },
  COLLECTION_ALREADY_CLOSED: { status: 409, message: "Cette collecte est déjà fermée : elle n'accepte plus de paiements." },
  COLLECTION_NOT_CLOSED: { status: 409, message: "Cette collecte est ouverte : seule une collecte fermée ou expirée peut être rouverte." },
  COLLECTION_NOT_AVAILABLE: { status: 410, message: "Cette collecte n'accepte plus de paiements." },
  API_KEY_ALREADY_ACTIVE: { status: 409, message: 'Cette application possède déjà une clé API active.' },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    message: "Cette clé d'idempotence a déjà été utilisée avec une requête différente.",
  },
  // Reconciliation (staff).
  STATEMENT_FILE_INVALID: { status: 400, message: "Le relevé de l'opérateur est illisible : aucune ligne n'a été importée." },
  STATEMENT_FILE_REQUIRED: {
    status: 400,
    message: "Cet opérateur n'offre pas de liste de transactions par API : importez son relevé (CSV).",
  },
  RECONCILIATION_CASE_NOT_FOUND: { status: 404, message: 'Écart de rapprochement introuvable.' },
  RECONCILIATION_CASE_CLOSED: { status: 409, message: 'Cet écart est déjà résolu.' },
  RECONCILIATION_ACTION_NOT_APPLICABLE: { status: 409, message: "Cette action ne s'applique pas à cet écart." },
  OPERATOR_RECORDS_UNAVAILABLE: { status: 502, message: "Les opérations de l'opérateur n'ont pas pu être obtenues. Réessayez plus tard." },
  SESSION_EXPIRED: { status: 410, message: 'Cette session de paiement a expiré.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Le corps de la requête est trop volumineux (1 Mio au maximum).' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Le corps de la requête doit être envoyé en application/json.' },
  REQUEST_TIMEOUT: { status: 408, message: "La requête n'a pas été reçue entièrement à temps." },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, message: 'Les en-têtes de la requête sont trop volumineux.' },
  TOO_MANY_REQUESTS: { status: 429, message: 'Trop de requêtes. Réessayez plus tard.' },
  INTERNAL_SERVER_ERROR: { status: 500, message: 'Une erreur interne est survenue. Vérifiez le statut de la transaction avant de réessayer.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service momentanément indisponible. Réessayez plus tard.' },
  RAIL_CLOSED: {
    status: 503,
    message: "Ce moyen de paiement est fermé pour le moment (l'opérateur ne répond plus). Réessayez plus tard ou proposez-en un autre.",
  },
} as const satisfies Record<string, { status: number; message: string }>;

/** One of the service's error codes. */
export type ErrorCode = keyof typeof ERRORS;

/**
 * An operating error with a stable code. `data` is only used by VALIDATION_ERROR
 * (field name → French message); `message` overrides the default French text.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly data: Record<string, string> | null;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    options: { message?: string; data?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    super(options.message ?? ERRORS[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.data = options.data ?? null;
    this.headers = options.headers ?? {};
  }
}

/** Shorthand for a VALIDATION_ERROR on named fields. */
export function validationError(fields: Record<string, string>): ApiError {
  return new ApiError('VALIDATION_ERROR', { data: fields });
}
