"""Verify a Kolo webhook delivery with the Python 3 standard library only.

verify(secret, headers, body) returns the event (a dict) or raises ValueError.
  secret:  the application's webhook secret, exactly as Kolo shows it (whsec_...)
  headers: the request headers, names in any case
  body:    the raw request body (bytes), exactly as received: not parsed and re-serialised

Standard Webhooks is checked when `webhook-signature` is present (Kolo always sends it with a
secret), else X-Sharepay-Signature (a SharePay server sends only that one; it signs the body
only, so it cannot detect a replay: deduplicate on the event's `id`).

From a shell: python3 verify.py 'webhook-id: ...' 'webhook-timestamp: ...' \
  'webhook-signature: ...' < body.json   (secret in KOLO_WEBHOOK_SECRET)
prints the event and exits 0, or prints the reason and exits 1.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time

TOLERANCE_SECONDS = 300  # largest accepted gap between the delivery's timestamp and now


def verify(secret, headers, body, now=None):
    headers = {name.lower(): value for name, value in headers.items()}
    now = int(time.time()) if now is None else now
    if "webhook-signature" in headers:
        _verify_standard(secret, headers, body, now)
    elif "x-sharepay-signature" in headers:
        _verify_sharepay(secret, headers["x-sharepay-signature"], body, now)
    else:
        raise ValueError("no webhook-signature or X-Sharepay-Signature header")
    return json.loads(body)


def _verify_standard(secret, headers, body, now):
    msg_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    if not msg_id or not timestamp.isdigit():
        raise ValueError("missing webhook-id or webhook-timestamp")
    _check_timestamp(int(timestamp), now)
    # The HMAC key: the text after "whsec_", base64-decoded.
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    # Several space-separated signatures during a secret rotation: any one may match.
    for signature in headers["webhook-signature"].split(" "):
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode(), expected):
            return
    raise ValueError("no webhook-signature matches this secret and body")


def _verify_sharepay(secret, header, body, now):
    fields = dict(part.strip().split("=", 1) for part in header.split(",") if "=" in part)
    timestamp, given = fields.get("t", ""), fields.get("v1", "")
    if not timestamp.isdigit() or not given:
        raise ValueError("malformed X-Sharepay-Signature")
    _check_timestamp(int(timestamp), now)
    # Keyed with the whole secret string, whsec_ included; over the body only.
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise ValueError("X-Sharepay-Signature does not match this secret and body")


def _check_timestamp(timestamp, now):
    if abs(now - timestamp) > TOLERANCE_SECONDS:
        raise ValueError("timestamp more than %d s away from now" % TOLERANCE_SECONDS)


if __name__ == "__main__":
    given_headers = dict(arg.split(": ", 1) for arg in sys.argv[1:])
    try:
        event = verify(os.environ["KOLO_WEBHOOK_SECRET"], given_headers, sys.stdin.buffer.read())
    except ValueError as error:
        print("invalid webhook: %s" % error, file=sys.stderr)
        sys.exit(1)
    print(json.dumps(event))
