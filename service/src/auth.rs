//! Bearer tokens and roles. A token is `ptxf_` + 32 random bytes in hex; the database keeps
//! only its SHA-256. Roles: `worker` (ingest, lease, heartbeat), `triager` (triage, file
//! regressions, known divergences), `admin` (everything). Reads are public unless the server
//! runs with `--private`.

use std::fmt;
use std::str::FromStr;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::header::AUTHORIZATION;
use chrono::{DateTime, Utc};
use rand::RngCore;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use crate::problem::Problem;
use crate::state::AppState;

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    Worker,
    Triager,
    Admin,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Worker => "worker",
            Role::Triager => "triager",
            Role::Admin => "admin",
        }
    }

    /// Whether this role may act as `needed` (admin may do everything).
    pub fn allows(self, needed: Role) -> bool {
        self == needed || self == Role::Admin
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Role, String> {
        [Role::Worker, Role::Triager, Role::Admin]
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown role '{s}'; one of worker, triager, admin"))
    }
}

/// The authenticated caller of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The token's name (recorded in triage history).
    pub name: String,
    pub role: Role,
}

impl Caller {
    /// 403 unless the caller's role allows `needed`.
    pub fn require(&self, needed: Role) -> Result<(), Problem> {
        if self.role.allows(needed) {
            Ok(())
        } else {
            Err(Problem::forbidden(format!(
                "this needs a {needed} token; '{}' is a {} token (create one with `ptxfuzz-server token create --role {needed}`)",
                self.name, self.role
            )))
        }
    }
}

/// SHA-256 of a token secret, as stored.
pub fn digest(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// Create a token; returns the secret (shown once, never stored).
pub async fn create_token(pool: &PgPool, name: &str, role: Role) -> Result<String, sqlx::Error> {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    let secret = format!("ptxf_{}", hex::encode(bytes));
    sqlx::query!(
        "INSERT INTO api_tokens (name, role, secret_sha256) VALUES ($1, $2, $3)",
        name,
        role.name(),
        digest(&secret)
    )
    .execute(pool)
    .await?;
    Ok(secret)
}

/// One token as `token list` shows it: never the secret (only its digest is stored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenInfo {
    pub id: i64,
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
    /// `None` while the token is live.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Every token, oldest first, revoked ones included (their names stay in triage history).
pub async fn list_tokens(pool: &PgPool) -> Result<Vec<TokenInfo>, sqlx::Error> {
    let rows = sqlx::query!("SELECT id, name, role, created_at, revoked_at FROM api_tokens ORDER BY id")
        .fetch_all(pool)
        .await?;
    rows.into_iter().map(|r| TokenInfo::from_row(r.id, r.name, &r.role, r.created_at, r.revoked_at)).collect()
}

impl TokenInfo {
    fn from_row(
        id: i64,
        name: String,
        role: &str,
        created_at: DateTime<Utc>,
        revoked_at: Option<DateTime<Utc>>,
    ) -> Result<TokenInfo, sqlx::Error> {
        // The table's CHECK allows only the three role names; anything else is a damaged row.
        let role = role.parse().map_err(|e: String| sqlx::Error::Decode(e.into()))?;
        Ok(TokenInfo { id, name, role, created_at, revoked_at })
    }
}

/// Which tokens `revoke` ends: one by id, every live token of a name (names need not be
/// unique: `token create` twice with one `--name` makes two), or the one a secret opens (a
/// secret that leaked into a log, or one `token create` could not print).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenSelector {
    Id(i64),
    Name(String),
    Secret(String),
}

/// Revoke the live tokens `which` selects; returns them as revoked (empty when none was live).
/// A revoked token answers 401 from then on, and the dashboard sessions opened with it end
/// (`web::session` looks `revoked_at` up on every request).
pub async fn revoke(pool: &PgPool, which: &TokenSelector) -> Result<Vec<TokenInfo>, sqlx::Error> {
    let (id, name, sha) = match which {
        TokenSelector::Id(id) => (Some(*id), None, None),
        TokenSelector::Name(n) => (None, Some(n.as_str()), None),
        TokenSelector::Secret(s) => (None, None, Some(digest(s))),
    };
    let rows = sqlx::query!(
        "UPDATE api_tokens SET revoked_at = now()
         WHERE revoked_at IS NULL AND (id = $1 OR name = $2 OR secret_sha256 = $3)
         RETURNING id, name, role, created_at, revoked_at",
        id,
        name,
        sha
    )
    .fetch_all(pool)
    .await?;
    let mut revoked: Vec<TokenInfo> =
        rows.into_iter().map(|r| TokenInfo::from_row(r.id, r.name, &r.role, r.created_at, r.revoked_at)).collect::<Result<_, _>>()?;
    revoked.sort_by_key(|t| t.id);
    Ok(revoked)
}

/// The name of the admin token the private cluster's login link opens sessions for.
pub const LOGIN_LINK_TOKEN: &str = "dashboard login link";

/// The id of the admin token login-link sessions belong to, created on first use. Its secret
/// is never shown (nothing but the link uses it); revoking it ends those sessions.
pub async fn login_link_token(pool: &PgPool) -> Result<i64, sqlx::Error> {
    let find = || {
        sqlx::query_scalar::<_, i64>(
            "SELECT id FROM api_tokens WHERE name = $1 AND role = 'admin' AND revoked_at IS NULL ORDER BY id LIMIT 1",
        )
        .bind(LOGIN_LINK_TOKEN)
        .fetch_optional(pool)
    };
    if let Some(id) = find().await? {
        return Ok(id);
    }
    create_token(pool, LOGIN_LINK_TOKEN, Role::Admin).await?;
    find().await?.ok_or(sqlx::Error::RowNotFound)
}

/// A fresh random secret for a login link (32 bytes, hex).
pub fn link_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Look a secret up: the caller, or `None` for an unknown or revoked token.
pub async fn lookup(pool: &PgPool, secret: &str) -> Result<Option<Caller>, sqlx::Error> {
    let row = sqlx::query!(
        "SELECT name, role FROM api_tokens WHERE secret_sha256 = $1 AND revoked_at IS NULL",
        digest(secret)
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.and_then(|r| Some(Caller { name: r.name, role: r.role.parse().ok()? })))
}

/// The token of an `Authorization: Bearer TOKEN` header (`None` without the header). The scheme
/// is matched in any case (`bearer`, `BEARER`): RFC 9110 11.1 makes auth schemes
/// case-insensitive, and some clients send it in lower case. One or more spaces may follow it.
fn bearer(parts: &Parts) -> Result<Option<&str>, Problem> {
    let Some(h) = parts.headers.get(AUTHORIZATION) else { return Ok(None) };
    let h = h.to_str().map_err(|_| Problem::unauthorized("the Authorization header is not ASCII"))?;
    match h.split_once(' ') {
        Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") && !t.trim().is_empty() => Ok(Some(t.trim())),
        _ => Err(Problem::unauthorized("the Authorization header must be `Bearer TOKEN`")),
    }
}

/// A request with a valid token (401 without one).
impl FromRequestParts<AppState> for Caller {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Caller, Problem> {
        let Some(secret) = bearer(parts)? else {
            return Err(Problem::unauthorized("this needs a bearer token (`Authorization: Bearer TOKEN`)"));
        };
        lookup(&state.pool, secret).await?.ok_or_else(|| Problem::unauthorized("unknown or revoked token"))
    }
}

/// A reader: anyone, unless the server is `--private` (then any valid token).
#[derive(Clone, Debug)]
pub struct Reader(pub Option<Caller>);

impl FromRequestParts<AppState> for Reader {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Reader, Problem> {
        if !state.private && bearer(parts)?.is_none() {
            return Ok(Reader(None));
        }
        Caller::from_request_parts(parts, state).await.map(|c| Reader(Some(c)))
    }
}
