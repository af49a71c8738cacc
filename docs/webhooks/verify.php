<?php
/**
 * Verify a Kolo webhook delivery with PHP 8 core functions only.
 *
 * kolo_verify_webhook($secret, $headers, $body) returns the event (an array) or throws
 * UnexpectedValueException.
 *   $secret:  the application's webhook secret, exactly as Kolo shows it (whsec_...)
 *   $headers: the request headers, name => value, names in any case (getallheaders())
 *   $body:    the raw request body (file_get_contents('php://input')), not re-encoded
 *
 * Standard Webhooks is checked when `webhook-signature` is present (Kolo always sends it with a
 * secret), else X-Sharepay-Signature (a SharePay server sends only that one; it signs the body
 * only, so it cannot detect a replay: deduplicate on the event's `id`).
 *
 * From a shell: php verify.php 'webhook-id: ...' 'webhook-timestamp: ...' \
 *   'webhook-signature: ...' < body.json   (secret in KOLO_WEBHOOK_SECRET)
 * prints the event and exits 0, or prints the reason and exits 1.
 */

const KOLO_TOLERANCE_SECONDS = 300; // largest accepted gap between the delivery's timestamp and now

function kolo_verify_webhook(string $secret, array $headers, string $body, ?int $now = null): array
{
    $headers = array_change_key_case($headers, CASE_LOWER);
    $now = $now ?? time();
    if (isset($headers['webhook-signature'])) {
        kolo_verify_standard($secret, $headers, $body, $now);
    } elseif (isset($headers['x-sharepay-signature'])) {
        kolo_verify_sharepay($secret, $headers['x-sharepay-signature'], $body, $now);
    } else {
        throw new UnexpectedValueException('no webhook-signature or X-Sharepay-Signature header');
    }
    $event = json_decode($body, true);
    if (!is_array($event)) {
        throw new UnexpectedValueException('the signed body is not a JSON object');
    }
    return $event;
}

function kolo_verify_standard(string $secret, array $headers, string $body, int $now): void
{
    $id = $headers['webhook-id'] ?? '';
    $timestamp = $headers['webhook-timestamp'] ?? '';
    if ($id === '' || !preg_match('/^\d+\z/', $timestamp)) {
        throw new UnexpectedValueException('missing webhook-id or webhook-timestamp');
    }
    kolo_check_timestamp((int) $timestamp, $now);
    // The HMAC key: the text after "whsec_", base64-decoded.
    $key = base64_decode(str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret);
    $expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", $key, true));
    // Several space-separated signatures during a secret rotation: any one may match.
    foreach (explode(' ', $headers['webhook-signature']) as $signature) {
        [$version, $value] = array_pad(explode(',', $signature, 2), 2, '');
        if ($version === 'v1' && hash_equals($expected, $value)) {
            return;
        }
    }
    throw new UnexpectedValueException('no webhook-signature matches this secret and body');
}

function kolo_verify_sharepay(string $secret, string $header, string $body, int $now): void
{
    $fields = [];
    foreach (explode(',', $header) as $part) {
        [$name, $value] = array_pad(explode('=', trim($part), 2), 2, '');
        $fields[$name] = $value;
    }
    $timestamp = $fields['t'] ?? '';
    if (!preg_match('/^\d+\z/', $timestamp) || ($fields['v1'] ?? '') === '') {
        throw new UnexpectedValueException('malformed X-Sharepay-Signature');
    }
    kolo_check_timestamp((int) $timestamp, $now);
    // Keyed with the whole secret string, whsec_ included; over the body only.
    if (!hash_equals(hash_hmac('sha256', $body, $secret), $fields['v1'])) {
        throw new UnexpectedValueException('X-Sharepay-Signature does not match this secret and body');
    }
}

function kolo_check_timestamp(int $timestamp, int $now): void
{
    if (abs($now - $timestamp) > KOLO_TOLERANCE_SECONDS) {
        throw new UnexpectedValueException('timestamp more than ' . KOLO_TOLERANCE_SECONDS . ' s away from now');
    }
}

if (PHP_SAPI === 'cli' && realpath($argv[0]) === __FILE__) {
    $given = [];
    foreach (array_slice($argv, 1) as $arg) {
        [$name, $value] = explode(': ', $arg, 2);
        $given[$name] = $value;
    }
    try {
        $event = kolo_verify_webhook((string) getenv('KOLO_WEBHOOK_SECRET'), $given, file_get_contents('php://stdin'));
    } catch (UnexpectedValueException $error) {
        fwrite(STDERR, 'invalid webhook: ' . $error->getMessage() . "\n");
        exit(1);
    }
    echo json_encode($event, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
}
