//! Operations endpoints: `/healthz` (the database answers), `/metrics` (Prometheus text:
//! request counters of this process, and finding/campaign/regression totals from the database),
//! `/api/openapi.json`; and the middleware every request passes: counting, and bodies for the
//! error answers axum makes itself ([`explain_bare_errors`]).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::{header, StatusCode};
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

/// Whether `path` is answered in problem+json (the API and the ops endpoints) rather than
/// with an HTML page (the dashboard).
fn is_api(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/") || path == "/healthz" || path == "/metrics"
}

/// The largest framework error text read back to put in a problem or page (they are one line).
const MAX_ERROR_TEXT: usize = 16 << 10;

/// Gives a body to the error answers axum makes itself, which have none (405 from a route that
/// lacks the method, with its Allow header) or plain text (a path that is not UTF-8): docs
/// promise problem+json for every API error, and the dashboard answers errors with a page.
/// Under `/api`, `/healthz` and `/metrics` such an answer becomes a [`Problem`]; elsewhere the
/// dashboard's error page. The status and the Allow header are kept; answers that already have
/// a body of another type (problems, pages) pass unchanged.
pub async fn explain_bare_errors(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    // Only the cookie is kept: the dashboard's page shows who is logged in.
    let cookie = req.headers().get(header::COOKIE).cloned();
    let r = next.run(req).await;
    let status = r.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return r;
    }
    let plain = match r.headers().get(header::CONTENT_TYPE) {
        None => true,
        Some(ct) => ct.to_str().is_ok_and(|ct| ct.starts_with("text/plain")),
    };
    if !plain {
        return r;
    }
    let allow = r.headers().get(header::ALLOW).cloned();
    let text = match axum::body::to_bytes(r.into_body(), MAX_ERROR_TEXT).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().to_string(),
        Err(_) => String::new(),
    };
    let allowed = allow.as_ref().and_then(|a| a.to_str().ok()).unwrap_or("").to_string();
    let mut out = if is_api(&path) {
        let p = if status == StatusCode::METHOD_NOT_ALLOWED {
            Problem::method_not_allowed(method.as_str(), &path, &allowed)
        } else {
            let kind = match status {
                StatusCode::BAD_REQUEST => "bad-request",
                StatusCode::NOT_FOUND => "not-found",
                _ if status.is_server_error() => "internal",
                _ => "client-error",
            };
            let detail = if text.is_empty() { status.canonical_reason().unwrap_or("error").to_string() } else { text };
            Problem::new(status, kind, format!("{detail} (the API is described at /api/openapi.json)"))
        };
        p.into_response()
    } else {
        let message = if status == StatusCode::METHOD_NOT_ALLOWED {
            format!("This page does not answer {method}; it answers {}.", allowed.replace(',', ", "))
        } else if text.is_empty() {
            format!("The server answered {status} to {method} {path}.")
        } else {
            text
        };
        let mut parts = Request::new(()).into_parts().0;
        if let Some(c) = cookie {
            parts.headers.insert(header::COOKIE, c);
        }
        let session = crate::web::session::MaybeSession::from_request_parts(&mut parts, &state).await.unwrap_or_else(|e| match e {});
        let title = status.canonical_reason().unwrap_or("Error");
        crate::web::session::error_page(status, title, &message, session.get())
    };
    if let Some(a) = allow {
        out.headers_mut().insert(header::ALLOW, a);
    }
    out
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

