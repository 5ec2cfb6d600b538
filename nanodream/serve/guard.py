"""Who may talk to the page: the right Host (DNS rebinding), a token off localhost, CSRF on every POST.

A page that can restore memory must not be drivable by another site in the same browser. Every request's
Host must be one this server answers to, for reads too; a POST needs the session's CSRF token and an
Origin of this server, so a cross-site form post is refused with 403 and changes nothing. Bound to a
non-local address, every request also needs the access token printed at start (once given as
`?token=`, it is kept in a cookie).
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from nanodream.serve.addresses import WILDCARDS, machine_addresses, url_host

SESSION_COOKIE = "nanodream_session"
TOKEN_COOKIE = "nanodream_token"
LOCAL_HOSTS = ("127.0.0.1", "localhost")
REFRESH_SECONDS = 30.0  # a page on every interface looks at the machine's addresses again this often (DHCP, VPNs)


@dataclass
class Guard:
    """`host` is the address the server binds. Bound to every interface (0.0.0.0, ::), it answers to each of
    the machine's own addresses; `names` are more host names it answers to (`--allow-host`). Any other Host
    is refused: a DNS name an attacker points at this machine never gets an answer."""

    host: str
    port: int
    token: str | None = None  # required on every request when the server listens beyond localhost
    names: tuple[str, ...] = ()
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    addresses: Callable[[], list[str]] = machine_addresses
    _known: list[str] = field(default_factory=list, init=False, repr=False)
    _looked: float = field(default=float("-inf"), init=False, repr=False)

    @property
    def everywhere(self) -> bool:
        return self.host in WILDCARDS

    def own_addresses(self) -> list[str]:
        """The machine's addresses when bound to every interface (looked up at most every REFRESH_SECONDS)."""
        if self.everywhere and time.monotonic() - self._looked > REFRESH_SECONDS:
            self._known, self._looked = self.addresses(), time.monotonic()
        return self._known

    @property
    def allowed_hosts(self) -> set[str]:
        names = {*LOCAL_HOSTS, "::1", *self.names, *self.own_addresses()}
        if not self.everywhere:
            names.add(self.host)
        hosts = {f"{url_host(name).lower()}:{self.port}" for name in names}
        return hosts | ({url_host(name).lower() for name in names} if self.port == 80 else set())

    @property
    def origins(self) -> set[str]:
        return {f"http://{host}" for host in self.allowed_hosts}

    def page_url(self) -> str:
        """The URL to print: one a person can open (never 0.0.0.0), with the token when one is needed."""
        shown = (self.own_addresses() or ["127.0.0.1"])[0] if self.everywhere else self.host
        return f"http://{url_host(shown)}:{self.port}/" + (f"?token={self.token}" if self.token else "")

    def csrf_token(self, session: str) -> str:
        return hmac.new(self.secret, session.encode(), "sha256").hexdigest()

    def refusal(self, request: Request, form_token: str | None = None) -> Response | None:
        """Why this request is refused (as the response to send), or None when it may proceed."""
        if not self.answers_to(request.headers.get("host", "")):
            return PlainTextResponse("unknown Host: this server answers only to its own address", 400)
        if self.token and not same_secret(self.token, request.query_params.get("token")
                                    or request.cookies.get(TOKEN_COOKIE)):
            return PlainTextResponse("an access token is needed (printed when the server started)", 401)
        if request.method == "POST":
            session = request.cookies.get(SESSION_COOKIE, "")
            if request.headers.get("origin") not in self.origins:
                return PlainTextResponse("cross-site request refused", 403)
            if not session or not same_secret(self.csrf_token(session), form_token):
                return PlainTextResponse("missing or wrong CSRF token; reload the page", 403)
        return None

    def answers_to(self, host: str) -> bool:
        """Whether a request's Host header names this server (names are case-insensitive)."""
        return host.lower() in self.allowed_hosts

    @staticmethod
    def session(request: Request) -> str:
        """The browser's session id; a new one (set by `remember`) for a browser seen for the first time."""
        return request.cookies.get(SESSION_COOKIE) or secrets.token_urlsafe(24)

    def remember(self, request: Request, response: Response, session: str) -> Response:
        """Keep the session id the page's CSRF token was made for (and a token given in the URL)."""
        if request.cookies.get(SESSION_COOKIE) != session:
            response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict")
        if self.token and request.query_params.get("token"):
            response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
        return response


def same_secret(expected: str, given: str | None) -> bool:
    """A token compared in constant time; a missing one is never the same."""
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())
