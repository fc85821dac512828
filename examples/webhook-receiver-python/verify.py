#!/usr/bin/env python3
"""Verify a pds-bridge webhook delivery (Standard Webhooks 1.0) in Python.

v1 (HMAC-SHA256 with the endpoint's whsec_ secret) uses only the standard library; v1a (ed25519 with
the bridge's whpk_ public key, GET /webhooks/public-key) uses the `cryptography` package.

As a command: reads a JSON document {"body": "...", "headers": {...}, "secret"?: "whsec_...",
"publicKey"?: "whpk_...", "now"?: seconds} on standard input, prints {"verified": true, "id": ...}
or {"verified": false, "error": ...}, and exits 0 or 1.
"""
import base64
import binascii
import hashlib
import hmac
import json
import sys
import time


class WebhookVerificationError(Exception):
    pass


def _b64(text):
    """The bytes of strict base64 text, or None when it is not (a forged or damaged header)."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _key(text, prefix, what):
    """The bytes of a whsec_/whpk_ key; a key that is not base64 is the receiver's configuration error."""
    raw = _b64(text[len(prefix):] if text.startswith(prefix) else text)
    if not raw:
        raise WebhookVerificationError(f"the {what} is not base64: copy it again ({prefix}...)")
    return raw


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
    key = _key(secret, "whsec_", "endpoint secret") if secret else None
    raw_key = _key(public_key, "whpk_", "public key") if public_key else None
    if raw_key is not None and len(raw_key) != 32:
        raise WebhookVerificationError("the public key is not an ed25519 key (32 bytes): copy it again (whpk_...)")
    for entry in signatures.split(" "):
        version, _, value = entry.partition(",")
        if version == "v1" and key:
            expected = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
            if hmac.compare_digest(expected.encode(), value.encode()):
                return json.loads(raw)
        if version == "v1a" and raw_key:
            from cryptography.exceptions import InvalidSignature
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

            signature = _b64(value)
            if signature is None:
                continue  # not base64: it matches nothing
            try:
                Ed25519PublicKey.from_public_bytes(raw_key).verify(signature, content)
                return json.loads(raw)
            except (InvalidSignature, ValueError):
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
