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
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

SESSION_COOKIE = "nanodream_session"
TOKEN_COOKIE = "nanodream_token"
LOCAL_HOSTS = ("127.0.0.1", "localhost")


@dataclass
class Guard:
    host: str
    port: int
    token: str | None = None  # required on every request when the server listens beyond localhost
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    @property
    def allowed_hosts(self) -> set[str]:
        names = {*LOCAL_HOSTS, self.host}
        return {f"{name}:{self.port}" for name in names}

    @property
    def origins(self) -> set[str]:
        return {f"http://{host}" for host in self.allowed_hosts}

    def csrf_token(self, session: str) -> str:
        return hmac.new(self.secret, session.encode(), "sha256").hexdigest()

    def refusal(self, request: Request, form_token: str | None = None) -> Response | None:
        """Why this request is refused (as the response to send), or None when it may proceed."""
        if request.headers.get("host", "") not in self.allowed_hosts:
            return PlainTextResponse("unknown Host: this server answers only to its own address", 400)
        if self.token and not _same(self.token, request.query_params.get("token")
                                    or request.cookies.get(TOKEN_COOKIE)):
            return PlainTextResponse("an access token is needed (printed when the server started)", 401)
        if request.method == "POST":
            session = request.cookies.get(SESSION_COOKIE, "")
            if request.headers.get("origin") not in self.origins:
                return PlainTextResponse("cross-site request refused", 403)
            if not session or not _same(self.csrf_token(session), form_token):
                return PlainTextResponse("missing or wrong CSRF token; reload the page", 403)
        return None

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


def _same(expected: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())
