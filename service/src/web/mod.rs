//! The triage dashboard: server-rendered HTML pages (maud, which escapes everything it
//! interpolates), readable without JavaScript; writing (triage, filing regressions) needs a
//! triager session (`session`: login form, HttpOnly cookie, CSRF token on every form).
//!
//! Pages: `/` overview (`overview`), `/clusters` and `/clusters/{id}` (`clusters`, the
//! triager's starting point), `/findings` (`findings`), `/findings/{id}` (`finding`),
//! `/regressions` (`regressions`), `/sweeps` (`sweeps`). Every page is bounded: lists are
//! keyset-paged like the API, plots aggregate in SQL.

pub mod clusters;
pub mod finding;
pub mod findings;
pub mod layout;
pub mod overview;
pub mod ptx_html;
pub mod regressions;
pub mod session;
pub mod sweeps;
pub mod svg;
pub mod values;

use axum::http::header;
use axum::routing::get;
use axum::Router;

use crate::state::AppState;

/// The bundled style sheet (no external network: fonts, scripts and styles are all local).
const STYLE: &str = include_str!("../../static/style.css");

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/static/style.css", get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE) }))
        .merge(session::routes())
        .merge(overview::routes())
        .merge(clusters::routes())
        .merge(findings::routes())
        .merge(finding::routes())
        .merge(regressions::routes())
        .merge(sweeps::routes())
}
