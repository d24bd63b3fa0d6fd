//! Dashboard sessions: `GET /login` (form), `POST /login` (a token, checked like a bearer
//! token; any role may log in and read, writing needs triager or admin), `POST /logout`.
//!
//! A session is a random 32-byte id in the HttpOnly, SameSite=Strict cookie `ptxfuzz_session`;
//! the database keeps its SHA-256 (`web_sessions`), the token it was opened with (revoking the
//! token ends the session) and a random CSRF token every form of the session carries. The login
//! form itself is protected by a double-submit token (cookie `ptxfuzz_login_csrf` = form field).
//! The token a user types is never echoed back. `serve` with its private cluster prints a
//! single-use link `/?login=SECRET` that opens an admin session in one click
//! ([`follow_login_link`]).

use axum::extract::rejection::{FormRejection, QueryRejection};
use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Form, Router};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use maud::{html, Markup};
use rand::RngCore;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use super::layout::{page, Nav};
use crate::auth::{digest, Role};
use crate::state::AppState;

/// The session cookie.
pub const COOKIE: &str = "ptxfuzz_session";
/// The login form's double-submit CSRF cookie.
pub const LOGIN_CSRF_COOKIE: &str = "ptxfuzz_login_csrf";
/// How long a session lasts.
const LIFETIME_HOURS: i32 = 12;

/// A logged-in user of the dashboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// The token's name.
    pub name: String,
    pub role: Role,
    /// The CSRF token every form of this session must carry (hidden field `csrf`).
    pub csrf: String,
}

/// The session of the request, if any (reading needs none).
#[derive(Clone, Debug)]
pub struct MaybeSession(pub Option<Session>);

impl MaybeSession {
    pub fn get(&self) -> Option<&Session> {
        self.0.as_ref()
    }
}

fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

fn session_digest(id: &str) -> Vec<u8> {
    Sha256::digest(id.as_bytes()).to_vec()
}

/// Equal strings, compared in time independent of where they differ.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The live session with this cookie value: not expired, its token not revoked.
async fn lookup(pool: &PgPool, id: &str) -> Result<Option<Session>, sqlx::Error> {
    let row = sqlx::query!(
        "SELECT t.name, t.role, s.csrf FROM web_sessions s JOIN api_tokens t ON t.id = s.token_id
         WHERE s.id_sha256 = $1 AND s.expires_at > now() AND t.revoked_at IS NULL",
        session_digest(id)
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.and_then(|r| Some(Session { name: r.name, role: r.role.parse().ok()?, csrf: r.csrf })))
}

impl FromRequestParts<AppState> for MaybeSession {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<MaybeSession, Self::Rejection> {
        let jar = CookieJar::from_headers(&parts.headers);
        let Some(c) = jar.get(COOKIE) else { return Ok(MaybeSession(None)) };
        // A database fault reads as "not logged in": pages still render, writes ask to log in.
        match lookup(&state.pool, c.value()).await {
            Ok(s) => Ok(MaybeSession(s)),
            Err(e) => {
                tracing::error!(error = %e, "session lookup failed");
                Ok(MaybeSession(None))
            }
        }
    }
}

/// An HTML page answering `status` with a message (refusals, bad input, absent things).
pub fn error_page(status: StatusCode, title: &str, message: &str, session: Option<&Session>) -> Response {
    (status, page(title, Nav::None, session, html! { p class="error" { (message) } })).into_response()
}

/// The session of a writing form: redirects to the login page (coming back to `back`) without
/// one, 403 when its role may not triage or when the form's CSRF token is not the session's.
#[allow(clippy::result_large_err)]
pub fn require_triager(session: &MaybeSession, csrf_field: &str, back: &str) -> Result<Session, Response> {
    let Some(s) = session.get() else {
        return Err(Redirect::to(&format!("/login?next={}", encode(back))).into_response());
    };
    if !constant_time_eq(&s.csrf, csrf_field) {
        return Err(error_page(
            StatusCode::FORBIDDEN,
            "Form expired",
            "The form's security token does not match your session (an old page, or another site posting it). Reload the page and submit again.",
            Some(s),
        ));
    }
    if !s.role.allows(Role::Triager) {
        return Err(error_page(
            StatusCode::FORBIDDEN,
            "Not allowed",
            &format!("This needs a triager token; '{}' is a {} token. Log in with a triager or admin token.", s.name, s.role),
            Some(s),
        ));
    }
    Ok(s.clone())
}

/// Percent-encoding for a query value.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Where to go after logging in: a path of this server, never another site.
fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n) if n.starts_with('/') && !n.starts_with("//") && !n.contains('\\') && !n.contains(['\r', '\n']) => {
            n.to_string()
        }
        _ => "/".to_string(),
    }
}

fn cookie(state: &AppState, name: &'static str, value: String) -> Cookie<'static> {
    Cookie::build((name, value)).http_only(true).same_site(SameSite::Strict).path("/").secure(state.secure_cookies).build()
}

fn removal(name: &'static str) -> Cookie<'static> {
    Cookie::build((name, "")).path("/").build()
}

#[derive(Debug, Deserialize)]
struct LoginQuery {
    next: Option<String>,
}

fn login_form(csrf: &str, next: &str, message: Option<&str>) -> Markup {
    html! {
        @if let Some(m) = message { p class="error" { (m) } }
        form id="login" method="post" action="/login" {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="next" value=(next);
            label { "Token " input type="password" name="token" autocomplete="off" required; }
            " "
            button type="submit" { "Log in" }
        }
        p { "Any token may log in to read; triage and filing regressions need a triager or admin token "
            "(" code { "ptxfuzz-server token create --role triager" } ")." }
    }
}

/// A login page with a fresh double-submit token.
fn login_page(state: &AppState, jar: CookieJar, status: StatusCode, next: &str, message: Option<&str>) -> Response {
    let csrf = random_hex();
    let jar = jar.add(cookie(state, LOGIN_CSRF_COOKIE, csrf.clone()));
    (status, jar, page("Log in", Nav::None, None, login_form(&csrf, next, message))).into_response()
}

async fn get_login(State(state): State<AppState>, jar: CookieJar, q: Result<Query<LoginQuery>, QueryRejection>) -> Response {
    let next = safe_next(q.as_ref().ok().and_then(|q| q.next.as_deref()));
    login_page(&state, jar, StatusCode::OK, &next, None)
}

#[derive(Debug, Deserialize)]
struct LoginForm {
    token: String,
    csrf: String,
    next: Option<String>,
}

async fn post_login(State(state): State<AppState>, jar: CookieJar, form: Result<Form<LoginForm>, FormRejection>) -> Response {
    let Ok(Form(f)) = form else {
        return login_page(&state, jar, StatusCode::BAD_REQUEST, "/", Some("The form was incomplete; enter your token and log in."));
    };
    let next = safe_next(f.next.as_deref());
    let expected = jar.get(LOGIN_CSRF_COOKIE).map(|c| c.value().to_string()).unwrap_or_default();
    if expected.is_empty() || !constant_time_eq(&expected, &f.csrf) {
        return login_page(
            &state,
            jar,
            StatusCode::FORBIDDEN,
            &next,
            Some("The login form expired (or cookies are off); log in again from this form."),
        );
    }
    match open(&state, f.token.trim()).await {
        Ok(Some(id)) => {
            let jar = jar.remove(removal(LOGIN_CSRF_COOKIE)).add(cookie(&state, COOKIE, id));
            (jar, Redirect::to(&next)).into_response()
        }
        Ok(None) => login_page(&state, jar, StatusCode::UNAUTHORIZED, &next, Some("Unknown or revoked token; check it and try again.")),
        Err(e) => {
            tracing::error!(error = %e, "login failed");
            login_page(&state, jar, StatusCode::SERVICE_UNAVAILABLE, &next, Some("The database is unavailable; try again later."))
        }
    }
}

/// Open a session for a valid token; returns the cookie value, `None` for a bad token.
async fn open(state: &AppState, token: &str) -> Result<Option<String>, sqlx::Error> {
    if token.is_empty() {
        return Ok(None);
    }
    let Some(token_id) =
        sqlx::query_scalar!("SELECT id FROM api_tokens WHERE secret_sha256 = $1 AND revoked_at IS NULL", digest(token))
            .fetch_optional(&state.pool)
            .await?
    else {
        return Ok(None);
    };
    open_for(state, token_id).await.map(Some)
}

/// Open a session for the token with this id; returns the cookie value.
async fn open_for(state: &AppState, token_id: i64) -> Result<String, sqlx::Error> {
    // Expired sessions go when someone logs in (indexed, so this stays cheap).
    sqlx::query!("DELETE FROM web_sessions WHERE expires_at < now()").execute(&state.pool).await?;
    let id = random_hex();
    sqlx::query!(
        "INSERT INTO web_sessions (id_sha256, token_id, csrf, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(hours => $4))",
        session_digest(&id),
        token_id,
        random_hex(),
        LIFETIME_HOURS
    )
    .execute(&state.pool)
    .await?;
    Ok(id)
}

/// `GET /?login=SECRET`, the private cluster's one-click login: the first use of the secret
/// opens an admin session and redirects to `/` (the secret leaves the address bar); any other
/// use is refused.
pub async fn follow_login_link(state: &AppState, jar: CookieJar, secret: &str) -> Response {
    let Some(link) = state.login_link.as_ref().filter(|l| l.take(secret)) else {
        return error_page(
            StatusCode::FORBIDDEN,
            "Login link refused",
            "This login link was used already, or is not this server's (a link works once, and a restart makes a new one). Log in with a token at /login, or restart ptxfuzz-server for a fresh link.",
            None,
        );
    };
    match open_for(state, link.token_id).await {
        Ok(id) => (jar.add(cookie(state, COOKIE, id)), Redirect::to("/")).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "login link failed");
            error_page(StatusCode::SERVICE_UNAVAILABLE, "Unavailable", "The database is unavailable; try again later.", None)
        }
    }
}

#[derive(Debug, Deserialize)]
struct LogoutForm {
    csrf: String,
}

async fn post_logout(
    State(state): State<AppState>,
    session: MaybeSession,
    jar: CookieJar,
    form: Result<Form<LogoutForm>, FormRejection>,
) -> Response {
    let Some(s) = session.get() else { return (jar.remove(removal(COOKIE)), Redirect::to("/")).into_response() };
    let csrf = form.map(|Form(f)| f.csrf).unwrap_or_default();
    if !constant_time_eq(&s.csrf, &csrf) {
        return error_page(StatusCode::FORBIDDEN, "Form expired", "The logout form does not match your session; reload the page and log out again.", Some(s));
    }
    if let Some(c) = jar.get(COOKIE) {
        if let Err(e) = sqlx::query!("DELETE FROM web_sessions WHERE id_sha256 = $1", session_digest(c.value())).execute(&state.pool).await {
            tracing::error!(error = %e, "logout failed");
            return error_page(StatusCode::SERVICE_UNAVAILABLE, "Unavailable", "The database is unavailable; try again later.", Some(s));
        }
    }
    (jar.remove(removal(COOKIE)), Redirect::to("/")).into_response()
}

pub fn routes() -> Router<AppState> {
    Router::new().route("/login", get(get_login).post(post_login)).route("/logout", axum::routing::post(post_logout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_time_eq_needs_equal_length_and_bytes() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "ab"));
        assert!(!constant_time_eq("", "a"));
    }

    #[test]
    fn next_stays_on_this_server() {
        assert_eq!(safe_next(Some("/findings/3")), "/findings/3");
        assert_eq!(safe_next(Some("//evil.example/")), "/");
        assert_eq!(safe_next(Some("https://evil.example/")), "/");
        assert_eq!(safe_next(Some("/\\evil.example")), "/");
        assert_eq!(safe_next(None), "/");
    }

    #[test]
    fn encode_escapes_query_characters() {
        assert_eq!(encode("/findings?status=new&x=1"), "/findings%3Fstatus%3Dnew%26x%3D1");
    }
}
