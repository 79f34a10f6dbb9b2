"""The container health check: `python config/healthprobe.py /healthz` asks this container's
gunicorn for a probe path and exits 0 on 200, 1 otherwise.

Standard library only and run as a script, so each check costs a bare interpreter start. It
sends a Host header the site accepts (the first of ALLOWED_HOSTS): a request to 127.0.0.1
would otherwise be refused by Django's host validation whenever ALLOWED_HOSTS names only the
public host."""

import os
import sys
import urllib.error
import urllib.request

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
TIMEOUT_S = 5


def probe_host(allowed_hosts: str) -> str:
    """A host name that ALLOWED_HOSTS accepts: `.example.com` accepts `example.com`; `*` or an
    empty list leaves `localhost`."""
    for entry in allowed_hosts.split(","):
        host = entry.strip().lstrip(".")
        if host and host != "*":
            return host
    return "localhost"


def probe(path: str, *, base_url: str, allowed_hosts: str) -> int:
    request = urllib.request.Request(
        base_url.rstrip("/") + path,
        # The probe comes over plain HTTP from inside the container; saying it is HTTPS keeps
        # a page that is not exempt from the HTTPS redirect answering for itself.
        headers={"Host": probe_host(allowed_hosts), "X-Forwarded-Proto": "https"},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:  # refused, timed out, reset
        print(f"{path}: {exc}", file=sys.stderr)
        return 1
    if status != 200:
        print(f"{path}: HTTP {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(
        probe(
            sys.argv[1] if len(sys.argv) > 1 else "/healthz",
            base_url=os.environ.get("HEALTHCHECK_BASE_URL", DEFAULT_BASE_URL),
            allowed_hosts=os.environ.get("ALLOWED_HOSTS", ""),
        )
    )
