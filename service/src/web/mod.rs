//! The triage dashboard: server-rendered HTML pages (maud, which escapes everything it
//! interpolates), readable without JavaScript; writing (triage, filing regressions) needs a
//! triager session (`session`: login form, HttpOnly cookie, CSRF token on every form).
//!
//! Pages: `/` overview (`overview`), `/clusters` and `/clusters/{id}` (`clusters`, the
//! triager's starting point), `/findings` (`findings`), `/findings/{id}` (`finding`),
//! `/regressions` (`regressions`), `/sweeps` (`sweeps`). Every page is bounded: lists are
//! keyset-paged like the API, plots aggregate in SQL.
//!
//! With `--private` every page and download needs a session or a bearer token ([`gate`]);
//! without one a browser is sent to the login form, which comes back to the page.

pub mod clusters;
pub mod finding;
pub mod findings;
pub mod layout;
pub mod overview;
pub mod ptx_html;
pub mod query;
pub mod regressions;
pub mod session;
pub mod sweeps;
pub mod svg;
pub mod values;

use axum::extract::Request;
use axum::http::header;
use axum::middleware::{from_fn_with_state, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;

use crate::auth::Reader;
use crate::problem::Problem;
use crate::state::AppState;
use session::MaybeSession;

/// The bundled style sheet (no external network: fonts, scripts and styles are all local).
const STYLE: &str = include_str!("../../static/style.css");

/// The dashboard: the login form and the style sheet open to all, every other page behind
/// [`gate`] when the server is `--private`.
pub fn routes(state: &AppState) -> Router<AppState> {
    let pages = Router::new()
        .merge(overview::routes())
        .merge(clusters::routes())
        .merge(findings::routes())
        .merge(finding::routes())
        .merge(regressions::routes())
        .merge(sweeps::routes());
    // Public reads need no gate (nor the session lookup it would add to every page).
    let pages = if state.private { pages.route_layer(from_fn_with_state(state.clone(), gate)) } else { pages };
    Router::new()
        .route("/static/style.css", get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE) }))
        .merge(session::routes())
        .merge(pages)
}

/// `--private` for the pages: the API's reads need a token there (`auth::Reader`), so the pages
/// and downloads (`repro.json`, `repro.ptx`), which show the same findings, need a session or a
/// valid bearer token (scripts). A browser without either goes to `/login?next=PAGE`. The
/// private cluster's one-click link (`/?login=SECRET`) passes, since it is how a session starts;
/// its handler checks the secret.
async fn gate(
    session: MaybeSession,
    reader: Result<Reader, Problem>,
    req: Request,
    next: Next,
) -> Response {
    if session.get().is_some() || is_login_link(&req) {
        return next.run(req).await;
    }
    match reader {
        Ok(_) => next.run(req).await,
        // A script's token that is unknown, revoked or malformed: say so, as the API does.
        Err(problem) if req.headers().contains_key(header::AUTHORIZATION) => problem.into_response(),
        Err(_) => {
            let back = req.uri().path_and_query().map_or("/", |p| p.as_str());
            Redirect::to(&format!("/login?next={}", session::encode(back))).into_response()
        }
    }
}

/// `GET /?login=...`: the private cluster's single-use login link.
fn is_login_link(req: &Request) -> bool {
    req.uri().path() == "/" && req.uri().query().is_some_and(|q| q.split('&').any(|kv| kv.starts_with("login=")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(uri: &str) -> Request {
        Request::builder().uri(uri).body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn only_the_root_with_a_login_parameter_is_the_login_link() {
        assert!(is_login_link(&get("/?login=abc")));
        assert!(is_login_link(&get("/?x=1&login=abc")));
        assert!(!is_login_link(&get("/")));
        assert!(!is_login_link(&get("/?notlogin=abc")));
        assert!(!is_login_link(&get("/findings?login=abc")));
        assert!(!is_login_link(&get("/findings/1/repro.json?login=abc")));
    }
}
