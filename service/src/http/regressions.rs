//! `/api/v1/regressions` (file, list, read with the result matrix) and `/api/v1/leases`
//! (workers lease regression work and post one result per lease). Programs and results are
//! checked with the `ptx` interpreter (`crate::validate`) on a blocking thread, so a large
//! program does not stall the async workers.

use api::regressions::{
    LeaseRequest, Leased, Regression, RegressionNew, RegressionPage, RegressionRun, RegressionSource, RunResult,
};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::Json;
use crate::auth::{Caller, Reader, Role};
use crate::db;
use crate::db::leases::Recorded;
use crate::db::regressions::{NewRegression, Source};
use crate::problem::Problem;
use crate::state::AppState;
use crate::validate::{self, Invalid};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(file_regression, list_regressions))
        .routes(routes!(get_regression))
        .routes(routes!(lease))
        .routes(routes!(post_result))
}

/// Longest title, worker, target, GPU, driver or commit string accepted.
const MAX_NAME: usize = 500;
/// Largest page of the list.
const MAX_LIMIT: i64 = 500;

/// Run `f` (interpreter work) on a blocking thread; a panic in it is reported as a refusal of
/// the input rather than a dropped connection.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, Invalid> + Send + 'static) -> Result<T, Problem> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(|e| Problem::unprocessable(e.0)),
        Err(e) => {
            tracing::error!(error = %e, "interpreter task failed");
            Err(Problem::unprocessable(
                "the interpreter failed on this program (a bug in the ptx crate; please report it with the program)",
            ))
        }
    }
}

fn check_name(what: &str, v: &str, required: bool) -> Result<(), Problem> {
    if required && v.trim().is_empty() {
        return Err(Problem::unprocessable(format!("{what} is empty; give a name")));
    }
    if v.len() > MAX_NAME {
        return Err(Problem::unprocessable(format!("{what} is {} bytes long; at most {MAX_NAME}", v.len())));
    }
    Ok(())
}

/// File a regression from a finding's reproducer or from a raw program.
#[utoipa::path(post, path = "/regressions", tag = "regressions",
    request_body = RegressionNew,
    responses(
        (status = 201, description = "Filed; `expected` is the interpreter's", body = Regression),
        (status = 400, description = "Malformed body", content_type = "application/problem+json"),
        (status = 403, description = "Needs a triager token", content_type = "application/problem+json"),
        (status = 404, description = "No such finding or reproducer", content_type = "application/problem+json"),
        (status = 422, description = "Program, inputs or expected values refused (the message says why)", content_type = "application/problem+json"),
    ),
    security(("bearer" = [])))]
async fn file_regression(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<RegressionNew>,
) -> Result<(StatusCode, Json<Regression>), Problem> {
    caller.require(Role::Triager)?;
    check_name("title", &body.title, false)?;
    let (finding_id, default_title, checked) = match body.source {
        RegressionSource::Raw { program, inputs, expected, exec } => {
            let checked = blocking(move || validate::check_raw(&program, &inputs, expected.as_deref())).await?;
            let checked = validate::Checked { exec, ..checked };
            let first = checked.program.stmt_text(0);
            (None, format!("raw: {first}"), checked)
        }
        RegressionSource::FromFinding { finding_id, reproducer_id } => {
            match db::regressions::source(&state.pool, finding_id, reproducer_id).await? {
                Source::NoFinding => return Err(Problem::not_found(format!("there is no finding {finding_id}"))),
                Source::NoReproducer(r) => return Err(Problem::not_found(format!("there is no reproducer {r}"))),
                Source::OtherFinding { reproducer_id, finding_id: other } => {
                    return Err(Problem::unprocessable(format!(
                        "reproducer {reproducer_id} belongs to finding {other}, not {finding_id}; name one of finding {finding_id}'s reproducers or leave reproducer_id out"
                    )))
                }
                Source::Empty => {
                    return Err(Problem::unprocessable(format!(
                        "finding {finding_id} has no reproducers to file; file the program as raw instead"
                    )))
                }
                Source::Found { reproducer_id, signature, reproducer } => {
                    let checked = blocking(move || {
                        validate::check_reproducer(&reproducer)
                            .map_err(|e| Invalid(format!("reproducer {reproducer_id}: {}", e.0)))
                    })
                    .await?;
                    (Some(finding_id), format!("finding {finding_id}: {signature}"), checked)
                }
            }
        }
    };
    let title = if body.title.trim().is_empty() { default_title } else { body.title.trim().to_string() };
    let n = NewRegression { finding_id, title: &title, checked: &checked, created_by: &caller.name };
    let r = db::regressions::insert(&state.pool, &n).await?;
    Ok((StatusCode::CREATED, Json(r)))
}

/// Keyset paging of the regression list.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListParams {
    /// The `next` cursor of the previous page.
    after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    limit: Option<i64>,
}

/// Regressions, newest first, each with its result matrix.
#[utoipa::path(get, path = "/regressions", tag = "regressions", params(ListParams),
    responses(
        (status = 200, body = RegressionPage),
        (status = 400, description = "Bad cursor or limit", content_type = "application/problem+json"),
    ))]
async fn list_regressions(
    State(state): State<AppState>,
    _reader: Reader,
    q: Result<Query<ListParams>, QueryRejection>,
) -> Result<Json<RegressionPage>, Problem> {
    let Query(q) = q?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Problem::bad_request(format!("limit {limit} is out of range; give 1 to {MAX_LIMIT}")));
    }
    let before = match q.after.as_deref() {
        None => None,
        Some(c) => Some(c.parse::<i64>().map_err(|_| {
            Problem::bad_request(format!("after='{c}' is not a cursor; pass the `next` value of the previous page"))
        })?),
    };
    let items = db::regressions::list(&state.pool, before, limit).await?;
    let next = (items.len() as i64 == limit).then(|| items.last().map(|r| r.id.to_string())).flatten();
    Ok(Json(RegressionPage { items, next }))
}

/// One regression with its matrix: per GPU and driver the latest run, and whether it is fixed
/// there (passes now, failed before).
#[utoipa::path(get, path = "/regressions/{id}", tag = "regressions",
    params(("id" = i64, Path, description = "Regression id")),
    responses(
        (status = 200, body = Regression),
        (status = 404, description = "No such regression", content_type = "application/problem+json"),
    ))]
async fn get_regression(
    State(state): State<AppState>,
    _reader: Reader,
    id: Result<Path<i64>, PathRejection>,
) -> Result<Json<Regression>, Problem> {
    let Path(id) = id.map_err(|e| Problem::bad_request(e.body_text()))?;
    let r = db::regressions::get(&state.pool, id).await?;
    r.map(Json).ok_or_else(|| Problem::not_found(format!("there is no regression {id}")))
}

/// Lease regression work: up to `max` regressions no one holds, least recently run first.
#[utoipa::path(post, path = "/leases", tag = "regressions", request_body = LeaseRequest,
    responses(
        (status = 200, description = "The leased regressions (possibly none)", body = Vec<Leased>),
        (status = 403, description = "Needs a worker token", content_type = "application/problem+json"),
        (status = 422, description = "max or lease_seconds out of range", content_type = "application/problem+json"),
    ),
    security(("bearer" = [])))]
async fn lease(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<LeaseRequest>,
) -> Result<Json<Vec<Leased>>, Problem> {
    caller.require(Role::Worker)?;
    check_name("worker", &body.worker, true)?;
    if !(1..=1000).contains(&body.max) {
        return Err(Problem::unprocessable(format!("max {} is out of range; ask for 1 to 1000 regressions", body.max)));
    }
    if !(10..=3600).contains(&body.lease_seconds) {
        return Err(Problem::unprocessable(format!(
            "lease_seconds {} is out of range; hold a lease 10 to 3600 seconds",
            body.lease_seconds
        )));
    }
    let leased = db::leases::lease(&state.pool, &body.worker, body.max as i64, body.lease_seconds as f64).await?;
    Ok(Json(leased))
}

/// Post the result of a lease. Once per lease: a retried post returns the stored run (200).
#[utoipa::path(post, path = "/leases/{lease_id}/result", tag = "regressions", request_body = RunResult,
    params(("lease_id" = Uuid, Path, description = "The lease")),
    responses(
        (status = 201, description = "Recorded; `passed` is the server's verdict", body = RegressionRun),
        (status = 200, description = "Already recorded (a retried post): the stored run", body = RegressionRun),
        (status = 403, description = "Needs a worker token", content_type = "application/problem+json"),
        (status = 404, description = "No such lease", content_type = "application/problem+json"),
        (status = 409, description = "The lease expired and the regression was leased again, or another worker holds it", content_type = "application/problem+json"),
        (status = 422, description = "Malformed results", content_type = "application/problem+json"),
    ),
    security(("bearer" = [])))]
async fn post_result(
    State(state): State<AppState>,
    caller: Caller,
    lease_id: Result<Path<Uuid>, PathRejection>,
    Json(body): Json<RunResult>,
) -> Result<(StatusCode, Json<RegressionRun>), Problem> {
    caller.require(Role::Worker)?;
    let Path(lease_id) = lease_id.map_err(|e| Problem::bad_request(e.body_text()))?;
    for (what, v) in [
        ("worker", &body.worker),
        ("target", &body.target),
        ("gpu_name", &body.gpu_name),
        ("driver_version", &body.driver_version),
        ("interpreter_commit", &body.interpreter_commit),
    ] {
        check_name(what, v, true)?;
    }
    if body.message.len() > 64 << 10 {
        return Err(Problem::unprocessable("message is longer than 64 KiB; shorten it"));
    }
    let Some(info) = db::leases::find(&state.pool, lease_id).await? else {
        return Err(Problem::not_found(format!("there is no lease {lease_id}; lease work with POST /api/v1/leases")));
    };
    if let Some(run) = db::leases::run_of(&state.pool, lease_id).await? {
        return Ok((StatusCode::OK, Json(run)));
    }
    let superseded = || {
        Problem::conflict(format!(
            "lease {lease_id} of regression {} expired at {} and the regression was leased again; drop this result and lease again",
            info.regression_id, info.leased_until
        ))
    };
    if info.current_lease != Some(lease_id) {
        return Err(superseded());
    }
    // A result speaks for the worker that holds the lease: one posted under another name is
    // a lease id leaked or mixed up between workers, and would put its run on the other's
    // GPU and driver in the matrix.
    if body.worker != info.worker {
        return Err(Problem::conflict(format!(
            "lease {lease_id} is held by worker '{}', not '{}'; post the result as the worker that leased it, or lease work of your own with POST /api/v1/leases",
            info.worker, body.worker
        )));
    }
    let (program, inputs, actual, claimed) = (info.program.clone(), info.inputs.clone(), body.actual.clone(), body.passed);
    let verdict = blocking(move || validate::judge(&program, &inputs, &actual, claimed)).await?;
    match db::leases::record(&state.pool, lease_id, info.regression_id, &body, &verdict).await? {
        Recorded::Created(run) => Ok((StatusCode::CREATED, Json(run))),
        Recorded::Replayed(run) => Ok((StatusCode::OK, Json(run))),
        Recorded::Superseded => Err(superseded()),
    }
}
