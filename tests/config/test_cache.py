"""The shared cache fails open: on a real Redis it stores and reads; with nothing listening
every call behaves as a miss, quickly, and says so in the log instead of raising."""

import time

import pytest
import redis

from config.cache import FailOpenRedisCache, cache_config

LIVE_URL = "redis://127.0.0.1:6379/9"
# Port 1 (tcpmux) has no listener on any machine this runs on: connections are refused.
DEAD_URL = "redis://127.0.0.1:1/0"


def backend(url: str) -> FailOpenRedisCache:
    return FailOpenRedisCache(url, cache_config(url, timeout_s=0.5))


@pytest.fixture
def live():
    try:
        redis.Redis.from_url(LIVE_URL, socket_connect_timeout=0.5).ping()
    except redis.exceptions.ConnectionError:
        from tests.conftest import require_or_skip

        require_or_skip("Redis is not answering on 127.0.0.1:6379")
    cache = backend(LIVE_URL)
    cache.clear()
    yield cache
    cache.clear()


def test_a_live_redis_stores_and_reads(live):
    live.set("rate", [1, 2], 30)
    assert live.get("rate") == [1, 2]
    assert live.add("rate", "other") is False
    assert live.add("counter", 1) is True
    assert live.incr("counter", 2) == 3
    assert live.get_many(["rate", "missing"]) == {"rate": [1, 2]}
    assert live.delete("rate") is True
    assert live.get("rate", "gone") == "gone"


def test_a_dead_redis_reads_as_a_miss_and_drops_writes_quickly(caplog):
    dead = backend(DEAD_URL)
    started_s = time.monotonic()
    dead.set("rate", [1], 30)
    assert dead.get("rate", "default") == "default"
    assert dead.add("rate", 1) is False
    assert dead.get_many(["rate"]) == {}
    assert dead.has_key("rate") is False
    assert dead.delete("rate") is False
    assert dead.set_many({"a": 1, "b": 2}) == ["a", "b"]
    with pytest.raises(ValueError, match="not found"):
        dead.incr("counter")
    assert time.monotonic() - started_s < 2  # refused connections, not timeouts
    assert "cache unavailable" in caplog.text


def test_the_warning_is_not_repeated_for_every_call(caplog):
    dead = backend(DEAD_URL)
    for _ in range(5):
        dead.get("rate")
    assert caplog.text.count("cache unavailable") == 1


def test_no_url_means_this_process_memory_and_a_bad_scheme_is_refused():
    from django.core.exceptions import ImproperlyConfigured

    assert cache_config("", timeout_s=0.5)["BACKEND"].endswith("LocMemCache")
    with pytest.raises(ImproperlyConfigured, match="CACHE_URL"):
        cache_config("memcached://127.0.0.1:11211", timeout_s=0.5)
