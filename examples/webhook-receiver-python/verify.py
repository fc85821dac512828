#!/usr/bin/env python3
"""Verify a pds-bridge webhook delivery (Standard Webhooks 1.0) in Python.

v1 (HMAC-SHA256 with the endpoint's whsec_ secret) uses only the standard library; v1a (ed25519 with
the bridge's whpk_ public key, GET /webhooks/public-key) uses the `cryptography` package.

As a command: reads a JSON document {"body": "...", "headers": {...}, "secret"?: "whsec_...",
"publicKey"?: "whpk_...", "now"?: seconds} on standard input, prints {"verified": true, "id": ...}
or {"verified": false, "error": ...}, and exits 0 or 1.
"""
import base64
import hashlib
import hmac
import json
import sys
import time


class WebhookVerificationError(Exception):
    pass


def verify_webhook(body, headers, secret=None, public_key=None, tolerance=300, now=None):
    """Return the parsed event when a signature matches; raise WebhookVerificationError otherwise."""
    if not secret and not public_key:
        raise WebhookVerificationError("give the endpoint secret (whsec_...) or the bridge public key (whpk_...)")
    lower = {k.lower(): v for k, v in headers.items()}
    try:
        msg_id, timestamp, signatures = lower["webhook-id"], lower["webhook-timestamp"], lower["webhook-signature"]
    except KeyError as missing:
        raise WebhookVerificationError(f"the {missing.args[0]} header is missing") from None
    now = int(time.time()) if now is None else int(now)
    if not timestamp.isdigit() or abs(now - int(timestamp)) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is outside the tolerance")
    raw = body.encode("utf-8") if isinstance(body, str) else body
    content = f"{msg_id}.{timestamp}.".encode("utf-8") + raw
    for entry in signatures.split(" "):
        version, _, value = entry.partition(",")
        if version == "v1" and secret:
            key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
            expected = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
            if hmac.compare_digest(expected, value):
                return json.loads(raw)
        if version == "v1a" and public_key:
            from cryptography.exceptions import InvalidSignature
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

            raw_key = base64.b64decode(public_key[len("whpk_"):] if public_key.startswith("whpk_") else public_key)
            try:
                Ed25519PublicKey.from_public_bytes(raw_key).verify(base64.b64decode(value), content)
                return json.loads(raw)
            except InvalidSignature:
                pass
    raise WebhookVerificationError("no signature matches")


if __name__ == "__main__":
    request = json.load(sys.stdin)
    try:
        event = verify_webhook(
            request["body"], request["headers"], request.get("secret"), request.get("publicKey"), now=request.get("now")
        )
        print(json.dumps({"verified": True, "id": event.get("id")}))
    except WebhookVerificationError as error:
        print(json.dumps({"verified": False, "error": str(error)}))
        sys.exit(1)
