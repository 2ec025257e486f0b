#!/usr/bin/env python3
"""A real OAuth 2.0 authorization server on loopback for the LatchkeyTokens tests.

django-oauth-toolkit 3.4.1 (oauthlib 3.3.1) configured in one file: 5-second access tokens, refresh
rotation with reuse protection (no grace period), RFC 7009 revocation, the RFC 8628 device grant and
RFC 8414 metadata, plus a few test-only endpoints under /test/ that let a test make its own user and
clients, approve a device code and count what the token endpoint saw (per client).

Run it with the virtual environment's Python (see .ci/run):

    .venv-oauth/bin/python scripts/oauth-server/dot_server.py [--port 0] [--access-token-seconds 5]

It binds 127.0.0.1 only, prints `LATCHKEY-OAUTH-READY port=<n> pid=<pid>` once it accepts requests,
keeps its database in a temporary directory removed at exit, and stops on SIGTERM/SIGINT or when its
standard input reaches end of file (so it dies with the test process that started it).

Test endpoints (loopback test server only; never expose anything like this):
    POST /test/fixture/              -> {"username", "password", "password_client": {...}, ...}
    GET  /test/stats/?client_id=ID   -> {"token": {"<grant_type> <status>": n, ...}, "revoke": {...}}
    POST /test/device/approve/       user_code=..&username=..   (or deny=1)
    POST /test/expire-access-token/  token=..   (the server now rejects it as expired; its refresh token lives)
    GET  /api/me/                    protected resource (scope "read"): {"username": ..}
"""

import argparse
import base64
import collections
import hashlib
import json
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
from datetime import timedelta
from urllib.parse import unquote_plus

STATS_LOCK = threading.Lock()
# client_id -> Counter of "<endpoint> <grant_type> <status>"
STATS = collections.defaultdict(collections.Counter)


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--access-token-seconds", type=int, default=5)
    parser.add_argument("--refresh-grace-seconds", type=int, default=0)
    parser.add_argument("--device-interval", type=int, default=1, help="seconds between device polls")
    parser.add_argument("--no-stdin-watch", action="store_true", help="do not stop on end of standard input")
    return parser.parse_args()


def client_id_of(request):
    """The client id of a token-endpoint request: HTTP Basic (form-urlencoded id) or the form field."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header.lower().startswith("basic "):
        try:
            decoded = base64.b64decode(header[6:].strip()).decode("utf-8")
            return unquote_plus(decoded.split(":", 1)[0])
        except (ValueError, UnicodeDecodeError):
            return "?"
    return request.POST.get("client_id", "?")


class CountingMiddleware:
    """Counts token, revocation and device-authorization requests per client and outcome."""

    ENDPOINTS = {"/o/token/": "token", "/o/revoke_token/": "revoke", "/o/device-authorization/": "device"}

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        endpoint = self.ENDPOINTS.get(request.path)
        if endpoint is None or request.method != "POST":
            return self.get_response(request)
        client_id = client_id_of(request)
        grant = request.POST.get("grant_type", "-")
        response = self.get_response(request)
        key = f"{endpoint} {grant} {response.status_code}"
        with STATS_LOCK:
            STATS[client_id][key] += 1
        return response


def configure_django(data_dir, port, args):
    from django.conf import settings

    base = f"http://127.0.0.1:{port}"
    settings.configure(
        DEBUG=False,
        SECRET_KEY=secrets.token_urlsafe(32),
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "oauth2_provider",
        ],
        MIDDLEWARE=[f"{__name__}.CountingMiddleware"],
        DATABASES={
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": os.path.join(data_dir, "db.sqlite3"),
                # Parallel tests write concurrently: take the write lock up front (no lock-upgrade
                # deadlocks answered with "database is locked") and let readers run beside the writer.
                "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"},
            }
        },
        # Fast hashing: client secrets and user passwords are checked on every token request.
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        USE_TZ=True,
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        LOGGING_CONFIG=None,
        OAUTH2_PROVIDER={
            "ACCESS_TOKEN_EXPIRE_SECONDS": args.access_token_seconds,
            "REFRESH_TOKEN_EXPIRE_SECONDS": 3600,
            "ROTATE_REFRESH_TOKEN": True,
            "REFRESH_TOKEN_REUSE_PROTECTION": True,
            "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": args.refresh_grace_seconds,
            "SCOPES": {"read": "Read", "write": "Write"},
            "DEFAULT_SCOPES": ["read"],
            "DEVICE_FLOW_INTERVAL": args.device_interval,
            "OAUTH_DEVICE_VERIFICATION_URI": f"{base}/o/device/",
        },
    )
    import django

    django.setup()


# URL configuration (ROOT_URLCONF is this module); filled in by build_urls() after django.setup().
urlpatterns = []


def build_urls():
    from django.contrib.auth import get_user_model
    from django.http import JsonResponse
    from django.urls import include, path
    from django.views.decorators.csrf import csrf_exempt
    from oauth2_provider import urls as oauth_urls
    from oauth2_provider.decorators import protected_resource_metadata
    from django.utils import timezone
    from oauth2_provider.models import Application, get_access_token_model, get_device_grant_model

    User = get_user_model()

    def make_client(owner, suffix, client_type, grant, confidential):
        client_id = f"{grant.replace(':', '-')[-20:]}-{suffix}"
        secret = secrets.token_urlsafe(24) if confidential else ""
        Application.objects.create(
            client_id=client_id,
            client_secret=secret,
            client_type=client_type,
            authorization_grant_type=grant,
            name=client_id,
            user=owner,
            redirect_uris="http://127.0.0.1/callback",
            algorithm="",
        )
        result = {"client_id": client_id}
        if confidential:
            result["client_secret"] = secret
        return result

    @csrf_exempt
    def fixture(request):
        suffix = secrets.token_hex(6)
        password = secrets.token_urlsafe(12)
        user = User.objects.create_user(username=f"user-{suffix}", password=password)
        conf = Application.CLIENT_CONFIDENTIAL
        public = Application.CLIENT_PUBLIC
        return JsonResponse(
            {
                "username": user.username,
                "password": password,
                "password_client": make_client(user, suffix, conf, Application.GRANT_PASSWORD, True),
                "public_password_client": make_client(user, suffix + "p", public, Application.GRANT_PASSWORD, False),
                "client_credentials_client": make_client(
                    user, suffix, conf, Application.GRANT_CLIENT_CREDENTIALS, True
                ),
                "device_client": make_client(user, suffix, public, Application.GRANT_DEVICE_CODE, False),
            }
        )

    def stats(request):
        client_id = request.GET.get("client_id", "")
        with STATS_LOCK:
            counts = dict(STATS.get(client_id, {}))
        return JsonResponse({"counts": counts})

    @csrf_exempt
    def approve_device(request):
        DeviceGrant = get_device_grant_model()
        grant = DeviceGrant.objects.get(user_code=request.POST["user_code"])
        if request.POST.get("deny"):
            grant.status = grant.DENIED
        else:
            grant.user = User.objects.get(username=request.POST["username"])
            grant.status = grant.AUTHORIZED
        grant.save()
        return JsonResponse({"status": grant.status})

    @csrf_exempt
    def expire_access_token(request):
        """Makes the server treat an access token as expired now (its refresh token stays valid)."""
        checksum = hashlib.sha256(request.POST["token"].encode("utf-8")).hexdigest()
        updated = get_access_token_model().objects.filter(token_checksum=checksum).update(
            expires=timezone.now() - timedelta(seconds=1)
        )
        return JsonResponse({"expired": updated})

    @protected_resource_metadata(scopes=["read"])
    def me(request):
        return JsonResponse({"username": request.resource_owner.username if request.resource_owner else None})

    urlpatterns.extend(
        [
            path("o/", include(oauth_urls)),
            path("", include((oauth_urls.metadata_urlpatterns, "metadata"), namespace="root-metadata")),
            path("api/me/", me),
            path("test/fixture/", fixture),
            path("test/stats/", stats),
            path("test/device/approve/", approve_device),
            path("test/expire-access-token/", expire_access_token),
        ]
    )


def main():
    args = parse_arguments()
    server = make_server(args.port)
    port = server.server_address[1]

    data_dir = tempfile.mkdtemp(prefix="latchkey-oauth-")
    try:
        configure_django(data_dir, port, args)
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        build_urls()
        serve(server, port, args)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def make_server(port):
    """Binds 127.0.0.1:port (0: a free port) before Django is configured, so settings can name it."""
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, *unused):  # no request logs: bodies and headers carry tokens
            pass

    class Server(ThreadedWSGIServer):
        daemon_threads = True
        request_queue_size = 128

    return Server(("127.0.0.1", port), QuietHandler)


def serve(server, port, args):
    from django.core.wsgi import get_wsgi_application

    server.set_app(get_wsgi_application())

    def stop(*unused):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if not args.no_stdin_watch:

        def watch_stdin():
            try:
                while sys.stdin.buffer.read(4096):
                    pass
            except OSError:
                pass
            stop()

        threading.Thread(target=watch_stdin, daemon=True).start()

    print(f"LATCHKEY-OAUTH-READY port={port} pid={os.getpid()}", flush=True)
    server.serve_forever(poll_interval=0.2)
    server.server_close()


if __name__ == "__main__":
    main()
