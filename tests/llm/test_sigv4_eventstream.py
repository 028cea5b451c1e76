"""SigV4 signing (AWS's published example, Bedrock's double-encoded model id) and the AWS
event-stream decoder (split frames, corrupt CRCs, exception frames)."""

from __future__ import annotations

import json
import struct
from datetime import UTC, datetime

import pytest

from superstep_core.llm import PermanentLLMError, RetryableLLMError
from superstep_core.llm.auth import SigV4Auth
from superstep_core.llm.codec import StreamErrorEvent
from superstep_core.llm.eventstream import EventStreamDecoder, EventStreamError, encode_frame
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.sigv4 import AwsCredentials, sign_request

from .cases import BEDROCK
from .support import MESSAGES, Reply, serve, split

EXAMPLE_CREDS = AwsCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
FIXED = datetime(2015, 8, 30, 12, 36, 0, tzinfo=UTC)


def test_sigv4_matches_the_aws_documentation_example() -> None:
    # AWS General Reference, "Signature Version 4 signing process" worked example (IAM
    # ListUsers, 2015-08-30T12:36:00Z).
    request = HttpRequest(
        "GET",
        "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08",
        {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
    )
    signed = sign_request(
        request,
        EXAMPLE_CREDS,
        region="us-east-1",
        service="iam",
        now=FIXED,
        content_sha256_header=False,
    )
    assert signed.header("Authorization") == (
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
        "SignedHeaders=content-type;host;x-amz-date, "
        "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
    )


def test_bedrock_request_is_signed_at_send_time_with_session_token() -> None:
    env = {
        "AWS_ACCESS_KEY_ID": "AKID",
        "AWS_SECRET_ACCESS_KEY": "shh",
        "AWS_SESSION_TOKEN": "tok",
        "AWS_REGION": "us-east-1",
    }
    kwargs = {k: v for k, v in BEDROCK.kwargs.items() if k != "api_key"}
    with serve(BEDROCK.model, [Reply(body=BEDROCK.text_reply)], env=env, **kwargs) as (
        model,
        server,
    ):
        assert model.spec(MESSAGES).header("Authorization") is None  # spec is pre-signing
        auth = model._sender.auth
        assert isinstance(auth, SigV4Auth)
        auth._clock = lambda: FIXED
        model.invoke(MESSAGES)
    sent = server.sent[0].headers
    assert sent["x-amz-date"] == "20150830T123600Z"
    assert sent["x-amz-security-token"] == "tok"
    assert sent["authorization"].startswith(
        "AWS4-HMAC-SHA256 Credential=AKID/20150830/us-east-1/bedrock/aws4_request, "
        "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, "
        "Signature="
    )
    assert "shh" not in repr(auth) and "tok" not in repr(auth)


def test_canonical_uri_encodes_the_model_id_twice() -> None:
    request = HttpRequest(
        "POST",
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse",
        {},
        {},
    )
    a = sign_request(request, EXAMPLE_CREDS, region="us-east-1", service="bedrock", now=FIXED)
    other = HttpRequest(
        "POST",
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-pro-v1:0/converse",
        {},
        {},
    )
    b = sign_request(other, EXAMPLE_CREDS, region="us-east-1", service="bedrock", now=FIXED)
    assert a.header("Authorization") != b.header("Authorization")


def _frame(event: str, payload: dict[str, object]) -> bytes:
    return encode_frame(
        {":event-type": event, ":message-type": "event"}, json.dumps(payload).encode()
    )


def test_event_stream_reassembles_frames_split_across_chunks() -> None:
    data = _frame("a", {"x": 1}) + _frame("b", {"y": 2})
    decoder = EventStreamDecoder()
    frames = [f for piece in split(data, 5) for f in decoder.feed(piece)]
    assert [(f.event_type, json.loads(f.payload)) for f in frames] == [
        ("a", {"x": 1}),
        ("b", {"y": 2}),
    ]


def test_event_stream_rejects_a_corrupt_crc() -> None:
    data = bytearray(_frame("a", {"x": 1}))
    data[-1] ^= 0xFF
    with pytest.raises(EventStreamError, match="CRC"):
        EventStreamDecoder().feed(bytes(data))
    prelude = bytearray(_frame("a", {}))
    prelude[8:12] = struct.pack(">I", 0)
    with pytest.raises(EventStreamError, match="prelude"):
        EventStreamDecoder().feed(bytes(prelude))


def test_exception_frames_raise_with_their_retry_class() -> None:
    frame = encode_frame(
        {":message-type": "exception", ":exception-type": "throttlingException"},
        b'{"message":"slow down"}',
    )
    (decoded,) = EventStreamDecoder().feed(frame)
    with pytest.raises(StreamErrorEvent) as caught:
        decoded.raise_for_exception()
    assert caught.value.details.retryable
    assert caught.value.details.message == "slow down"


def test_a_throttled_converse_stream_is_a_retryable_error() -> None:
    frame = encode_frame(
        {":message-type": "exception", ":exception-type": "throttlingException"},
        b'{"message":"slow down"}',
    )
    with (
        serve(BEDROCK.model, [Reply(chunks=[frame])], **BEDROCK.kwargs) as (model, _),
        pytest.raises(RetryableLLMError, match="slow down"),
    ):
        list(model.stream(MESSAGES))


def test_a_corrupt_converse_stream_is_a_permanent_error() -> None:
    data = bytearray(_frame("messageStart", {"role": "assistant"}))
    data[-2] ^= 0x01
    with (
        serve(BEDROCK.model, [Reply(chunks=[bytes(data)])], **BEDROCK.kwargs) as (model, _),
        pytest.raises(PermanentLLMError, match="CRC"),
    ):
        list(model.stream(MESSAGES))
