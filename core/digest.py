"""A fast content hash for cache keys and names. `hashlib` loads OpenSSL, a few milliseconds of
every cold start; BLAKE2 is built into CPython and needs none of it."""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without CPython's built-in module
    from hashlib import blake2b


def new(data: bytes = b""):
    """A hash object (update(), hexdigest()) over `data`."""
    return blake2b(data, digest_size=32)


def hexdigest(data: bytes) -> str:
    return new(data).hexdigest()
