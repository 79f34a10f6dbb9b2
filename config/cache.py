"""Django's Redis cache, failing open: when Redis does not answer, a cache call logs a warning
and behaves as a miss instead of raising. The cache holds throttling counters and cached
pages, nothing that must not be lost, so while Redis is down pages still render (uncached)
and throttling lets requests through, rather than every request answering 500.

Set CACHE_URL (or REDIS_URL) to redis://host:port/db to use it; socket timeouts are short
(REDIS_CACHE_TIMEOUT_S) so a Redis that hangs costs a request at most that long per call."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import ImproperlyConfigured
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

# Transport faults only: Redis being away. Any other error is a bug and still raises.
UNAVAILABLE = (RedisConnectionError, RedisTimeoutError)

# While Redis is down every request makes several cache calls; one warning per interval per
# process says so without flooding the log.
WARN_EVERY_S = 30.0

T = TypeVar("T")


class FailOpenRedisCache(RedisCache):
    """RedisCache whose reads miss and whose writes are dropped while Redis is unreachable."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._warned_at_s = float("-inf")
        self._warn_lock = threading.Lock()

    def _missed(self, operation: str, exc: Exception, fallback: T) -> T:
        now_s = time.monotonic()
        with self._warn_lock:
            warn = now_s - self._warned_at_s >= WARN_EVERY_S
            if warn:
                self._warned_at_s = now_s
        if warn:
            log.warning(
                "cache unavailable, treating %s as a miss (warned at most every %.0f s): %s",
                operation,
                WARN_EVERY_S,
                exc,
            )
        return fallback

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        try:
            return super().add(key, value, timeout, version)
        except UNAVAILABLE as exc:
            return self._missed("add", exc, False)

    def get(self, key, default=None, version=None) -> Any:
        try:
            return super().get(key, default, version)
        except UNAVAILABLE as exc:
            return self._missed("get", exc, default)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> None:
        try:
            super().set(key, value, timeout, version)
        except UNAVAILABLE as exc:
            self._missed("set", exc, None)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        try:
            return super().touch(key, timeout, version)
        except UNAVAILABLE as exc:
            return self._missed("touch", exc, False)

    def delete(self, key, version=None) -> bool:
        try:
            return super().delete(key, version)
        except UNAVAILABLE as exc:
            return self._missed("delete", exc, False)

    def get_many(self, keys, version=None) -> dict:
        try:
            return super().get_many(keys, version)
        except UNAVAILABLE as exc:
            return self._missed("get_many", exc, {})

    def has_key(self, key, version=None) -> bool:
        try:
            return super().has_key(key, version)
        except UNAVAILABLE as exc:
            return self._missed("has_key", exc, False)

    def incr(self, key, delta=1, version=None) -> int:
        try:
            return super().incr(key, delta, version)
        except UNAVAILABLE as exc:
            self._missed("incr", exc, None)
            # What incr says of a key it does not hold: callers already handle a miss.
            raise ValueError(f"Key '{key}' not found (cache unavailable)") from exc

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None) -> list:
        try:
            return super().set_many(data, timeout, version)
        except UNAVAILABLE as exc:
            # Every key failed to be set: Django's contract for set_many's return value.
            return self._missed("set_many", exc, list(data))

    def delete_many(self, keys, version=None) -> None:
        try:
            super().delete_many(keys, version)
        except UNAVAILABLE as exc:
            self._missed("delete_many", exc, None)

    def clear(self) -> bool:
        try:
            return super().clear()
        except UNAVAILABLE as exc:
            return self._missed("clear", exc, False)


def redis_database(url: str, database: int) -> str:
    """The same Redis server as `url`, another database: redis://h:6379/0 -> redis://h:6379/2."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def cache_config(url: str, *, timeout_s: float) -> dict[str, Any]:
    """CACHES["default"] for a URL: redis:// and rediss:// get the fail-open Redis cache with
    short socket timeouts; an empty URL gets this process's memory (no server needed)."""
    if not url:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    if not url.startswith(("redis://", "rediss://")):
        raise ImproperlyConfigured(f"CACHE_URL must be a redis:// or rediss:// URL, not {url!r}")
    return {
        "BACKEND": "config.cache.FailOpenRedisCache",
        "LOCATION": url,
        "KEY_PREFIX": "flopfit",
        "OPTIONS": {
            "socket_connect_timeout": timeout_s,
            "socket_timeout": timeout_s,
            # A connection that went away with Redis is replaced on its next use.
            "health_check_interval": 30,
            "retry_on_timeout": False,
        },
    }
