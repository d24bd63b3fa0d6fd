//! `GET /regressions`: the matrix of regressions (rows, 50 per page, newest first, keyset by
//! id: `?after=ID`) by GPU and driver (columns). A cell shows the latest run, pass or fail
//! (`fixed` when it passes after failing), and its title lists the last runs with the
//! interpreter commit of each. Rows carry `id="r{id}"` so that `/regressions#r{id}` lands on one.

use std::collections::{BTreeSet, HashMap};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use maud::{html, Markup};
use serde::Deserialize;

use super::layout::{page, Nav};
use super::query::PageQuery;
use super::session::{error_page, MaybeSession, Session};
use crate::db::matrix::{self as db, Cell, Verdict};
use crate::problem::Problem;
use crate::state::AppState;

/// Regressions per page.
pub const PAGE: i64 = 50;
/// Most GPU/driver columns shown (the rest are named under the table).
pub const MAX_COLUMNS: usize = 40;

pub fn routes() -> Router<AppState> {
    Router::new().route("/regressions", get(matrix))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    /// Rows with an id below this (the last id of the previous page).
    after: Option<String>,
}

/// The cell's title: one line per run, newest first.
pub fn history(cell: &Cell) -> String {
    cell.runs
        .iter()
        .map(|r| {
            format!(
                "{} {} · {} · {}",
                r.at.format("%Y-%m-%d %H:%M"),
                if r.passed { "pass" } else { "FAIL" },
                r.interpreter_commit,
                r.worker
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The page; a bad query or a database fault is an HTML error page like the other dashboard
/// pages' (a browser showed the raw problem+json before).
async fn matrix(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    PageQuery(q): PageQuery<Params>,
) -> Response {
    // An unknown parameter (`limit`: the page size is fixed) is refused like a bad cursor.
    let q = match q {
        Ok(q) => q,
        Err(e) => return error_page(StatusCode::BAD_REQUEST, "Regressions", &e, session.as_ref()),
    };
    match matrix_page(&state, &session, q).await {
        Ok(markup) => markup.into_response(),
        Err(p) => error_page(p.status, "Regressions", &p.detail, session.as_ref()),
    }
}

async fn matrix_page(
    state: &AppState,
    session: &Option<Session>,
    q: Params,
) -> Result<Markup, Problem> {
    let before = match q.after.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Some(s.parse::<i64>().map_err(|_| {
            Problem::bad_request(format!("after='{s}' is not a regression id; follow the page's next link"))
        })?),
    };
    let heads = db::page(&state.pool, before, PAGE).await?;
    let ids: Vec<i64> = heads.iter().map(|h| h.id).collect();
    let cells = db::cells(&state.pool, &ids).await?;
    let all_columns: BTreeSet<(&str, &str)> = cells.iter().map(|c| (c.gpu_name.as_str(), c.driver_version.as_str())).collect();
    let columns: Vec<(&str, &str)> = all_columns.iter().take(MAX_COLUMNS).copied().collect();
    let hidden = all_columns.len() - columns.len();
    let by_key: HashMap<(i64, &str, &str), &Cell> =
        cells.iter().map(|c| ((c.regression_id, c.gpu_name.as_str(), c.driver_version.as_str()), c)).collect();
    let next = (heads.len() as i64 == PAGE).then(|| heads.last().map(|h| h.id)).flatten();
    let content = html! {
        p.note { "Each cell: the latest run of the regression on that GPU and driver; hover for the last "
            (db::HISTORY) " runs and the interpreter commit of each. "
            span.fixed { "fixed" } ": passes now, failed in that history." }
        @if heads.is_empty() {
            p { "No regressions filed yet. File one from a finding's page." }
        }
        table #matrix {
            thead { tr {
                th { "Regression" }
                @for (gpu, driver) in &columns { th.col { (gpu) br; small { "driver " (driver) } } }
            } }
            tbody {
                @for h in &heads {
                    tr.regression id=(format!("r{}", h.id)) {
                        th.title {
                            span.id { "#" (h.id) } " " (h.title)
                            @if let Some(f) = h.finding_id { " " a href=(format!("/findings/{f}")) { "finding " (f) } }
                            br; small { "sm_" (h.sm) " · filed " (h.created_at.format("%Y-%m-%d")) }
                        }
                        @for (gpu, driver) in &columns {
                            @match by_key.get(&(h.id, *gpu, *driver)) {
                                None => td.none title="no run yet" { "·" },
                                Some(c) => @match c.verdict() {
                                    Verdict::Pass => td.pass title=(history(c)) { "pass" },
                                    Verdict::Fixed => td.pass.fixed title=(history(c)) { "pass " span.fixed { "fixed" } },
                                    Verdict::Fail => td.fail title=(history(c)) { "FAIL" },
                                },
                            }
                        }
                    }
                }
            }
        }
        @if hidden > 0 {
            p.note { (hidden) " more GPU/driver columns are not shown (at most " (MAX_COLUMNS) " per page)." }
        }
        @if let Some(n) = next {
            p { a #next-page href=(format!("/regressions?after={n}")) { "Older regressions →" } }
        }
    };
    Ok(page("Regressions", Nav::Regressions, session.as_ref(), content))
}
