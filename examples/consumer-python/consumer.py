#!/usr/bin/env python3
"""Reads pds-bridge events from an SQS queue with boto3 and prints one JSON line per event.

    AWS_DEFAULT_REGION=eu-west-1 QUEUE_URL=https://sqs.eu-west-1.amazonaws.com/123456789012/pds-bridge-events \
    python3 consumer.py

Each message body is a CloudEvents 1.0 JSON document (docs/events.md). A body too large for SQS is
stored in S3 and the message carries a pointer in the AWS SQS extended client format
(docs/consumers.md); this script follows it with boto3's get_object exactly as the extended client
(amazon-sqs-python-extended-client) does, so either can be used. Messages are deleted once handled;
a message that is not a readable event is left in the queue, and the queue's redrive policy moves it
to the dead-letter queue. Runs until the queue is empty (MAX_EMPTY_RECEIVES empty receives in a row).

STATE_BUCKET names the bridge's state bucket (comma-separated if several): claim-check pointers
are followed only there, under claim-check/, and at most CLAIM_CHECK_MAX_BYTES (64 MiB) are read.

Needs python3 and boto3 only, and what every boto3 client needs: a region (AWS_DEFAULT_REGION or
the profile's) and credentials. AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3/_SQS) points it at a local
emulator; S3 is then addressed path-style. The commands for the local stack and for AWS are in
docs/consumers.md ("Python").
"""

import json
import os
import sys

import boto3
from botocore.config import Config

POINTER_CLASSES = (
    "software.amazon.payloadoffloading.PayloadS3Pointer",
    "com.amazon.sqs.javamessaging.MessageS3Pointer",  # written by older Java clients
)
SIZE_ATTRIBUTES = ("ExtendedPayloadSize", "SQSLargePayloadSize")
# Where pds-bridge writes claim-checked bodies: its state bucket (STATE_BUCKET, comma-separated if
# several) under this prefix. A pointer anywhere else is refused unread: a forged message must not
# make this consumer read, and take for an event, an object stored elsewhere.
CLAIM_CHECK_PREFIX = "claim-check/"
# Most bytes read from one claim-checked body (far above any event).
CLAIM_CHECK_MAX_BYTES = int(os.environ.get("CLAIM_CHECK_MAX_BYTES", str(64 * 1024 * 1024)))
KNOWN_TYPES = (
    "pds.ingest.completed",
    "pds.ingest.failed",
    "pds.messaging-asset.received",
    "pds.supplier-review.received",
    "pds.publication.completed",
    "pds.publication.failed",
    "pds.confirmation.changed",
    "pds.webhook.endpoint-disabled",
)


# The version of each type's data this consumer is written for (docs/events.md, "Schemas and versions").
# During a breaking change the bridge sends both versions of each fact for one release: skip the other.
DATA_VERSION = 1


def is_known(event):
    expected = f"urn:pds-bridge:schemas/events/{event['type']}/v{DATA_VERSION}.json"
    return event["type"] in KNOWN_TYPES and event.get("dataschema", expected) == expected


class NotAnEvent(Exception):
    """The message cannot be read as a pds-bridge event; retrying will not change that."""


def s3_client():
    local = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    # No wildcard DNS in front of a local emulator: bucket names go in the path.
    config = Config(s3={"addressing_style": "path"}) if local else None
    return boto3.client("s3", config=config)


def event_body(message, s3):
    """The event JSON text: the body, or the S3 object a claim-check pointer names."""
    body = message.get("Body", "")
    attributes = message.get("MessageAttributes", {})
    if not any(name in attributes for name in SIZE_ATTRIBUTES):
        return body
    pointer = json.loads(body)
    # The extended client's own check: a two-element list of the pointer class and its location.
    if not (isinstance(pointer, list) and len(pointer) == 2 and isinstance(pointer[1], dict)):
        raise NotAnEvent("flagged as offloaded, but the body is not an S3 pointer")
    if pointer[0] not in POINTER_CLASSES:
        raise NotAnEvent(f"unknown pointer class {pointer[0]!r}")
    location = pointer[1]
    bucket, key = location.get("s3BucketName"), location.get("s3Key")
    trusted = [name.strip() for name in os.environ.get("STATE_BUCKET", "").split(",") if name.strip()]
    if bucket not in trusted or not isinstance(key, str) or not key.startswith(CLAIM_CHECK_PREFIX):
        raise NotAnEvent(
            f"the pointer leads to s3://{bucket}/{key}, outside where pds-bridge writes claim-checked "
            f"events (STATE_BUCKET {trusted}, prefix {CLAIM_CHECK_PREFIX!r}); not followed"
        )
    stored = s3.get_object(Bucket=bucket, Key=key)
    if stored.get("ContentLength", 0) > CLAIM_CHECK_MAX_BYTES:
        stored["Body"].close()
        raise NotAnEvent(f"s3://{bucket}/{key} is larger than {CLAIM_CHECK_MAX_BYTES} bytes; not read")
    data = stored["Body"].read(CLAIM_CHECK_MAX_BYTES + 1)
    if len(data) > CLAIM_CHECK_MAX_BYTES:
        raise NotAnEvent(f"s3://{bucket}/{key} is larger than {CLAIM_CHECK_MAX_BYTES} bytes; not read")
    return data.decode("utf-8")


def parse_event(text):
    """The verified CloudEvents envelope in `text`."""
    try:
        event = json.loads(text)
    except ValueError as error:
        raise NotAnEvent(f"body is not JSON: {error}") from error
    if not isinstance(event, dict) or event.get("specversion") != "1.0":
        raise NotAnEvent("not a CloudEvents 1.0 envelope")
    missing = [name for name in ("id", "source", "type", "time", "subject", "data") if name not in event]
    if missing:
        raise NotAnEvent(f"envelope lacks {', '.join(missing)}")
    content_type = event.get("datacontenttype", "application/json")
    if content_type.split(";")[0].strip() != "application/json":
        raise NotAnEvent(f"data is {content_type}, not JSON")
    return event


def handle(event):
    """What this consumer does with each event: here, one JSON line on stdout."""
    data = event["data"]
    line = {
        "id": event["id"],
        "type": event["type"],
        "subject": event["subject"],
        "known": is_known(event),  # newer bridges may add types and versions: skip those you do not handle
        "dataBytes": len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")),
    }
    if line["known"] and event["type"] == "pds.ingest.failed":
        line["code"] = data["code"]  # branch on code, never on reason
    print(json.dumps(line), flush=True)


def main():
    queue_url = os.environ.get("QUEUE_URL")
    if not queue_url:
        sys.exit("Set QUEUE_URL to the queue pds-bridge sends its events to (EVENTS_QUEUE_URL).")
    if boto3.session.Session().region_name is None:
        # boto3 would stop with NoRegionError and a stack trace; say what to set instead.
        sys.exit(
            "Set AWS_DEFAULT_REGION (or a region in your AWS profile): the queue's region, "
            "us-east-1 for the local stack (docs/consumers.md shows both commands)."
        )
    max_empty = int(os.environ.get("MAX_EMPTY_RECEIVES", "2"))
    sqs = boto3.client("sqs")
    s3 = s3_client()
    seen = set()  # event ids are deterministic: a redelivered fact has the same id
    empty = 0
    while empty < max_empty:
        received = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=1,
            MessageAttributeNames=["All"],  # the claim-check flag is a message attribute
        )
        messages = received.get("Messages", [])
        empty = 0 if messages else empty + 1
        for message in messages:
            try:
                event = parse_event(event_body(message, s3))
            except NotAnEvent as problem:
                print(f"message {message['MessageId']} is not a pds-bridge event: {problem}", file=sys.stderr)
                continue
            if event["id"] not in seen:
                handle(event)
                seen.add(event["id"])
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])


if __name__ == "__main__":
    main()
