//! TODO(helper W1): login form, HttpOnly session cookie, CSRF tokens.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::Router;

use crate::auth::Role;
use crate::state::AppState;

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

impl FromRequestParts<AppState> for MaybeSession {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(_parts: &mut Parts, _state: &AppState) -> Result<MaybeSession, Self::Rejection> {
        Ok(MaybeSession(None))
    }
}

pub fn routes() -> Router<AppState> {
    Router::new()
}
