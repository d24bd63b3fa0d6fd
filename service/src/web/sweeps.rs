//! `GET /sweeps`: the latest sweep of each approximate instruction and math check of each
//! function, per target: the error histogram in ulps (SVG) with a marker at the documented
//! bound, the largest error against the bound, and pass or fail. `?kind=sweep` or
//! `?kind=math-check` shows one kind.

use api::sweeps::{StoredSweep, SweepKind, SweepReport, MAX_LIST};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use maud::{html, Markup};
use serde::Deserialize;

use super::layout::{page, Nav};
use super::query::PageQuery;
use super::session::{error_page, MaybeSession};
use super::svg::{self, Marker};
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/sweeps", get(sweeps))
}

/// Where the bound falls: after the last bucket whose smallest error is within it.
pub fn marker(r: &SweepReport) -> Option<Marker> {
    let bound = r.bound_ulps?;
    let after = r.histogram.iter().rposition(|b| b.lo <= bound)?;
    Some(Marker { after, label: format!("bound {bound} ulp") })
}

/// `GET /sweeps?kind=...`: only reports of that kind (`sweep` or `math-check`; empty or absent:
/// both), as `GET /api/v1/sweeps` filters. Any other parameter, or another kind, is a 400 page.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    kind: Option<String>,
}

async fn sweeps(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    PageQuery(q): PageQuery<Params>,
) -> Response {
    let session = session.as_ref();
    let bad = |e: &str| error_page(StatusCode::BAD_REQUEST, "Sweeps & math checks", e, session);
    let only = match q {
        Err(e) => return bad(&e),
        Ok(p) => match p.kind.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
            None => None,
            Some(k) => match SweepKind::parse(k) {
                Some(kind) => Some(kind),
                None => return bad(&format!("kind: '{k}' is not a kind; one of sweep, math-check (or leave it out for both)")),
            },
        },
    };
    let items = match crate::db::sweeps::latest(&state.pool, only, MAX_LIST as i64).await {
        Ok(items) => items,
        Err(e) => {
            tracing::error!(error = %e, "sweeps page");
            return error_page(StatusCode::SERVICE_UNAVAILABLE, "Sweeps & math checks", "The database is unavailable; try again later.", session);
        }
    };
    let content = html! {
        p.note { "The latest report of each " code { "ptxfuzz sweep INSTR --server" } " and "
            code { "ptxfuzz math-check FUNC --server" } " per target. Error: ulps from the correctly rounded result." }
        @if items.is_empty() {
            p { "No sweeps or math checks reported yet." }
        }
        @for kind in [SweepKind::Sweep, SweepKind::MathCheck] {
            @let of_kind: Vec<&StoredSweep> = items.iter().filter(|s| s.report.kind == kind).collect();
            @if !of_kind.is_empty() {
                h2 { @match kind { SweepKind::Sweep => "Instruction sweeps", SweepKind::MathCheck => "Math-library checks" } }
                @for s in of_kind { (section(s)) }
            }
        }
    };
    page("Sweeps & math checks", Nav::Sweeps, session, content).into_response()
}

fn section(s: &StoredSweep) -> Markup {
    let r = &s.report;
    let buckets: Vec<(String, u64)> = r.histogram.iter().map(|b| (b.label.clone(), b.count)).collect();
    let passed = r.passed();
    html! {
        section.sweep id=(format!("sweep-{}", s.id)) {
            h3 {
                code { (r.name) } " on " (r.target)
                " " span class=(if passed { "verdict pass" } else { "verdict fail" }) { @if passed { "pass" } @else { "FAIL" } }
            }
            (svg::histogram(&format!("{} error histogram", r.name), &buckets, marker(r).as_ref()))
            table.facts {
                tr { th { "Max error" } td { (r.max_ulps) " ulp" @if let Some(b) = r.bound_ulps { " (bound " (b) " ulp)" } } }
                tr { th { "Documented bound" } td { @for b in &r.bound_text { div.bound-text { (b) } } @if r.bound_text.is_empty() { "—" } } }
                tr { th { "Mismatches" } td { (r.mismatches) " of " (r.inputs) " inputs" @if r.exhaustive { " (all inputs)" } } }
                tr { th { "Device" } td { (r.device) @if let Some(g) = &r.gpu_name { " · " (g) } @if let Some(d) = &r.driver_version { " · driver " (d) } } }
                @if !r.flags.is_empty() { tr { th { "Flags" } td { code { (r.flags) } } } }
                tr { th { "Interpreter" } td { (r.interpreter_commit) } }
                tr { th { "Reported" } td { (r.at.format("%Y-%m-%d %H:%M UTC")) " by " (s.reported_by) } }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::sweeps::Bucket;

    #[test]
    fn the_marker_follows_the_last_bucket_within_the_bound() {
        let b = |label: &str, lo, count| Bucket { label: label.into(), lo, count };
        let mut r = SweepReport {
            kind: SweepKind::Sweep,
            name: "rcp.approx.f32".into(),
            target: "interp".into(),
            device: String::new(),
            gpu_name: None,
            driver_version: None,
            interpreter_commit: "c".into(),
            flags: String::new(),
            inputs: 10,
            exhaustive: false,
            mismatches: 0,
            max_ulps: 5,
            histogram: vec![b("0", 0, 5), b("1", 1, 3), b("2", 2, 1), b("4-7", 4, 1)],
            bound_text: vec![],
            bound_ulps: Some(1),
            at: chrono::Utc::now(),
        };
        assert_eq!(marker(&r).unwrap().after, 1);
        r.bound_ulps = Some(5);
        assert_eq!(marker(&r).unwrap().after, 3);
        r.bound_ulps = None;
        assert_eq!(marker(&r), None);
    }
}
