"""The Differ service over gRPC: diffs of stored runs, and the run store it forwards to.

One address serves everything, the differ's (README "The Differ service"): it answers
Differ.Diff and forwards RunStore calls to its aggregator. TLS and the bearer token follow the
CLI's environment variables (client/server_connection.cc): PROFDIFF_TLS_CA_FILE,
PROFDIFF_TLS_CERT_FILE / PROFDIFF_TLS_KEY_FILE, PROFDIFF_TOKEN_FILE (implies TLS).
"""
import os

import grpc

from ._errors import ProfdiffError
from ._proto import differ_pb2_grpc, run_store_pb2_grpc

# rpc/limits.h kMaxReplyBytes: the largest reply the servers send (a report of a big tree).
_MAX_REPLY_BYTES = 256 << 20


def server_address(server):
    """`server`, else $PROFDIFF_SERVER, else None (no server: paths only)."""
    return server or os.environ.get("PROFDIFF_SERVER") or None


def _read(path, what):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as error:
        raise ProfdiffError(f"{what} {path}: {error.strerror}") from error


def _credentials():
    """Channel credentials from the CLI's environment, or None for plaintext."""
    ca = os.environ.get("PROFDIFF_TLS_CA_FILE")
    cert = os.environ.get("PROFDIFF_TLS_CERT_FILE")
    key = os.environ.get("PROFDIFF_TLS_KEY_FILE")
    token_file = os.environ.get("PROFDIFF_TOKEN_FILE")
    if not (ca or cert or key or token_file):
        return None
    if bool(cert) != bool(key):
        raise ProfdiffError("PROFDIFF_TLS_CERT_FILE and PROFDIFF_TLS_KEY_FILE go together")
    credentials = grpc.ssl_channel_credentials(
        root_certificates=_read(ca, "PROFDIFF_TLS_CA_FILE") if ca else None,
        private_key=_read(key, "PROFDIFF_TLS_KEY_FILE") if key else None,
        certificate_chain=_read(cert, "PROFDIFF_TLS_CERT_FILE") if cert else None)
    if token_file:
        token = _read(token_file, "PROFDIFF_TOKEN_FILE").decode().strip()
        if not token:
            raise ProfdiffError(f"PROFDIFF_TOKEN_FILE {token_file}: empty")
        # "authorization: Bearer TOKEN" on every call (rpc/bearer_token_checker.h).
        credentials = grpc.composite_channel_credentials(
            credentials, grpc.access_token_call_credentials(token))
    return credentials


class Service:
    """A channel to one differ; use as a context manager."""

    def __init__(self, server, timeout):
        self.server = server
        self.timeout = timeout
        options = [("grpc.max_receive_message_length", _MAX_REPLY_BYTES)]
        credentials = _credentials()
        self._channel = (grpc.secure_channel(server, credentials, options)
                         if credentials else grpc.insecure_channel(server, options))
        self.differ = differ_pb2_grpc.DifferStub(self._channel)
        self.store = run_store_pb2_grpc.RunStoreStub(self._channel)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._channel.close()

    def call(self, method, request, what):
        """`method(request)` with the deadline; gRPC errors become ProfdiffError naming the
        server and what was asked."""
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as error:
            code = error.code()
            details = error.details() or ""
            if code == grpc.StatusCode.UNAVAILABLE:
                message = f"server {self.server}: unreachable ({details})"
            elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
                message = f"server {self.server}: {what}: no answer within {self.timeout} s"
            else:
                message = f"server {self.server}: {what}: {details} ({code.name})"
            raise ProfdiffError(message, server=self.server, code=code.name) from error
