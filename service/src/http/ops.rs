//! Operations endpoints: `/healthz` (the database answers), `/metrics` (Prometheus text:
//! request counters of this process, and finding/campaign/regression totals from the database),
//! `/api/openapi.json`.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::problem::Problem;
use crate::state::AppState;

pub fn routes(doc: Arc<utoipa::openapi::OpenApi>) -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/api/openapi.json", get(move || async move { axum::Json(doc.as_ref().clone()) }))
}

/// Counts every request and its outcome class.
pub async fn count(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let r = next.run(req).await;
    let c = &state.counters;
    c.requests.fetch_add(1, Relaxed);
    if r.status().is_client_error() {
        c.client_errors.fetch_add(1, Relaxed);
    } else if r.status().is_server_error() {
        c.server_errors.fetch_add(1, Relaxed);
    }
    r
}

async fn healthz(State(state): State<AppState>) -> Result<&'static str, Problem> {
    sqlx::query("SELECT 1").execute(&state.pool).await?;
    Ok("ok\n")
}

async fn metrics(State(state): State<AppState>) -> Result<Response, Problem> {
    let c = &state.counters;
    let mut out = String::new();
    let mut counter = |name: &str, help: &str, v: u64| {
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}\n"));
    };
    counter("ptxfuzz_http_requests_total", "HTTP requests served by this process.", c.requests.load(Relaxed));
    counter("ptxfuzz_http_client_errors_total", "Requests answered 4xx.", c.client_errors.load(Relaxed));
    counter("ptxfuzz_http_server_errors_total", "Requests answered 5xx.", c.server_errors.load(Relaxed));
    counter("ptxfuzz_reports_ingested_total", "Finding reports stored by this process.", c.reports_ingested.load(Relaxed));
    counter("ptxfuzz_reports_duplicate_total", "Finding reports already stored (retries).", c.reports_duplicate.load(Relaxed));
    out.push_str("# HELP ptxfuzz_findings Findings (signatures) by triage status.\n# TYPE ptxfuzz_findings gauge\n");
    let rows = sqlx::query!(r#"SELECT status, count(*) AS "n!" FROM findings GROUP BY status ORDER BY status"#)
        .fetch_all(&state.pool)
        .await?;
    for r in rows {
        out.push_str(&format!("ptxfuzz_findings{{status=\"{}\"}} {}\n", r.status, r.n));
    }
    let t = sqlx::query!(
        r#"SELECT (SELECT count(*) FROM reproducers) AS "reproducers!",
                  (SELECT count(*) FROM campaigns WHERE ended_at IS NULL) AS "running!",
                  (SELECT count(*) FROM regressions) AS "regressions!""#
    )
    .fetch_one(&state.pool)
    .await?;
    for (name, help, v) in [
        ("ptxfuzz_reproducers", "Stored finding reports.", t.reproducers),
        ("ptxfuzz_campaigns_running", "Campaigns without an end.", t.running),
        ("ptxfuzz_regressions", "Filed regressions.", t.regressions),
    ] {
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}\n"));
    }
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], out).into_response())
}

