//! `/api/v1/findings`: workers post batches of reports (idempotent by content); readers list
//! findings with filters and keyset pagination and read one with its reports and history;
//! triagers change a finding's status.
//!
//! A report that is well-formed JSON but wrong in content (an unknown instruction in its
//! signature, a class that disagrees with the signature, bad hex, an unknown campaign) is a 422;
//! JSON that does not match the body's shape (syntax, unknown fields, wrong types) is a 400.

use std::sync::atomic::Ordering::Relaxed;

use api::findings::{FindingDetail, FindingPage, IngestBatch, IngestResult, Status, Triage, MAX_BATCH};
use api::MismatchClass;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{Caller, Reader, Role};
use crate::db::findings::ingest::{self, Rejected};
use crate::db::findings::list::{self, Cursor, Filter};
use crate::db::findings::{self as db, Triaged};
use crate::db::known;
use crate::http::campaigns::{bad_path, no_nul, page_limit};
use crate::http::Json;
use crate::problem::Problem;
use crate::state::AppState;
use crate::validate::fields::{cap, MAX_NOTE};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(ingest_batch))
        .routes(routes!(list_findings))
        .routes(routes!(get_finding))
        .routes(routes!(triage))
}

/// Store a batch of reports. Every report is validated before anything is written; a report
/// the server already has (same content) is counted as a duplicate and changes nothing.
#[utoipa::path(post, path = "/findings/batch", tag = "findings",
    request_body = IngestBatch,
    responses(
        (status = 200, description = "Stored", body = IngestResult),
        (status = 400, description = "Malformed JSON, unknown field, or an empty batch"),
        (status = 413, description = "More reports than api::findings::MAX_BATCH, or a body over the size limit"),
        (status = 422, description = "A report is invalid (the message names it), or the campaign is unknown"),
    ),
    security(("bearer" = [])))]
async fn ingest_batch(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<serde_json::Value>,
) -> Result<Json<IngestResult>, Problem> {
    caller.require(Role::Worker)?;
    let batch = batch_of(body)?;
    match ingest::ingest(&state.pool, batch).await? {
        Ok(result) => {
            state.counters.reports_ingested.fetch_add(result.inserted, Relaxed);
            state.counters.reports_duplicate.fetch_add(result.duplicates, Relaxed);
            Ok(Json(result))
        }
        Err(Rejected::Empty) => Err(Problem::bad_request("findings: the batch is empty; send at least one report")),
        Err(Rejected::TooLarge(n)) => Err(Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too-large",
            format!("findings: {n} reports; a batch holds at most {MAX_BATCH}, split it"),
        )),
        Err(Rejected::Invalid(why)) => Err(Problem::unprocessable(why)),
        Err(Rejected::UnknownCampaign(id)) => Err(Problem::unprocessable(format!(
            "campaign_id: unknown campaign {id}; register it first with PUT /api/v1/campaigns/{id}"
        ))),
    }
}

/// The batch in an ingest body. `api::Reproducer` takes unknown fields (its `FIELDS` says
/// why), so they are looked for in the JSON first and refused like an unknown field of any
/// other body type: a 400 naming it (`findings[0].reproducer.foo`).
fn batch_of(body: serde_json::Value) -> Result<IngestBatch, Problem> {
    let bad_json = |detail: String| Problem::new(StatusCode::BAD_REQUEST, "bad-json", detail);
    crate::validate::report::unknown_fields(&body).map_err(bad_json)?;
    // The same words as axum's Json rejection, with the path of the field at fault.
    serde_path_to_error::deserialize(body)
        .map_err(|e| bad_json(format!("Failed to deserialize the JSON body into the target type: {e}")))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    /// The whole instruction (`add.rz.ftz.f32`, or `input`).
    instruction: Option<String>,
    /// The opcode (`add`).
    opcode: Option<String>,
    /// The type (`f32`).
    #[serde(rename = "type")]
    #[param(rename = "type")]
    ty: Option<String>,
    /// A modifier the instruction has (`rz`, `ftz`).
    modifier: Option<String>,
    /// The mismatch class (`rounding`, `ftz`, `nan-vs-number`, ...).
    class: Option<String>,
    /// The triage status (`new`, `confirmed-hardware`, ...).
    status: Option<String>,
    /// The target's sm (`90`).
    sm: Option<u32>,
    /// A driver version some report of the finding came from.
    driver: Option<String>,
    /// Last seen at or after this time (RFC 3339).
    #[param(value_type = Option<DateTime<Utc>>)]
    since: Option<String>,
    /// Last seen before this time (RFC 3339).
    #[param(value_type = Option<DateTime<Utc>>)]
    until: Option<String>,
    /// In this cluster (`GET /api/v1/clusters`).
    cluster: Option<i64>,
    /// Items per page (default 50, at most 500).
    limit: Option<i64>,
    /// The `next` cursor of the previous page.
    after: Option<String>,
}

impl ListQuery {
    fn filter(self) -> Result<(Filter, i64, Option<Cursor>), Problem> {
        for (name, v) in [
            ("instruction", &self.instruction),
            ("opcode", &self.opcode),
            ("type", &self.ty),
            ("modifier", &self.modifier),
            ("driver", &self.driver),
        ] {
            if v.as_deref().is_some_and(|v| v.contains('\0')) {
                return Err(Problem::bad_request(format!("{name}: contains a NUL character")));
            }
        }
        let class = match self.class.as_deref() {
            None => None,
            Some(c) => Some(MismatchClass::from_name(c).ok_or_else(|| {
                let names: Vec<_> = MismatchClass::ALL.iter().map(|c| c.name()).collect();
                Problem::bad_request(format!("class: unknown class '{c}'; one of {}", names.join(", ")))
            })?),
        };
        let status = match self.status.as_deref() {
            None => None,
            Some(s) => Some(s.parse::<Status>().map_err(|e| Problem::bad_request(format!("status: {e}")))?),
        };
        let sm = match self.sm {
            None => None,
            Some(sm) => Some(i32::try_from(sm).map_err(|_| Problem::bad_request(format!("sm={sm} is out of range")))?),
        };
        let since = self.since.as_deref().map(|t| rfc3339("since", t)).transpose()?;
        let until = self.until.as_deref().map(|t| rfc3339("until", t)).transpose()?;
        let after = match self.after.as_deref() {
            None => None,
            Some(s) => Some(Cursor::decode(s).ok_or_else(|| {
                Problem::bad_request(format!("after='{s}' is not a cursor; pass the `next` value of the previous page"))
            })?),
        };
        let filter = Filter {
            instruction: self.instruction,
            opcode: self.opcode,
            ty: self.ty,
            modifier: self.modifier,
            class,
            status,
            sm,
            driver: self.driver,
            since,
            until,
            cluster: self.cluster,
        };
        Ok((filter, page_limit(self.limit)?, after))
    }
}

/// A time parameter: RFC 3339. Parsed here, not by serde, so that a bad one is named with
/// the expected format (serde's message was only "input contains invalid characters").
fn rfc3339(name: &str, text: &str) -> Result<DateTime<Utc>, Problem> {
    DateTime::parse_from_rfc3339(text).map(|t| t.with_timezone(&Utc)).map_err(|e| {
        Problem::new(
            StatusCode::BAD_REQUEST,
            "bad-query",
            format!("{name}='{text}' is not an RFC 3339 time ({e}); give one such as 2025-01-31T00:00:00Z"),
        )
    })
}

/// Findings, most recently seen first, with filters; page on with `after=<next>`.
#[utoipa::path(get, path = "/findings", tag = "findings", params(ListQuery),
    responses(
        (status = 200, body = FindingPage),
        (status = 400, description = "An unknown status or class, a bad limit or cursor"),
    ))]
async fn list_findings(
    State(state): State<AppState>,
    _reader: Reader,
    q: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<FindingPage>, Problem> {
    let Query(q) = q?;
    let (filter, limit, after) = q.filter()?;
    let (mut items, next) = list::list(&state.pool, &filter, limit, after).await?;
    known::matching(&state.pool, &mut items).await?;
    Ok(Json(FindingPage { items, next: next.map(|c| c.encode()) }))
}

fn no_finding(id: i64) -> Problem {
    Problem::not_found(format!("no finding {id}; list them with GET /api/v1/findings"))
}

/// One finding with its newest reports (at most 100) and its triage history.
#[utoipa::path(get, path = "/findings/{id}", tag = "findings",
    params(("id" = i64, Path, description = "Finding id")),
    responses((status = 200, body = FindingDetail), (status = 404, description = "No such finding")))]
async fn get_finding(
    State(state): State<AppState>,
    _reader: Reader,
    id: Result<Path<i64>, PathRejection>,
) -> Result<Json<FindingDetail>, Problem> {
    let Path(id) = id.map_err(bad_path)?;
    detail_with_known(&state, id).await
}

/// One finding's detail, with the known divergence it matches (if any) filled in.
async fn detail_with_known(state: &AppState, id: i64) -> Result<Json<FindingDetail>, Problem> {
    let mut d = db::detail(&state.pool, id).await?.ok_or_else(|| no_finding(id))?;
    known::matching(&state.pool, std::slice::from_mut(&mut d.finding)).await?;
    Ok(Json(d))
}

/// Triage a finding: set its status (with `duplicate_of` for `duplicate`) and a note; the
/// change is recorded in its history with the token's name.
#[utoipa::path(post, path = "/findings/{id}/triage", tag = "findings",
    params(("id" = i64, Path, description = "Finding id")),
    request_body = Triage,
    responses(
        (status = 200, description = "The finding after the change", body = FindingDetail),
        (status = 404, description = "No such finding"),
        (status = 422, description = "A bad duplicate_of, or a note over 10,000 bytes"),
    ),
    security(("bearer" = [])))]
async fn triage(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<i64>, PathRejection>,
    Json(t): Json<Triage>,
) -> Result<Json<FindingDetail>, Problem> {
    caller.require(Role::Triager)?;
    let Path(id) = id.map_err(bad_path)?;
    no_nul("note", &t.note)?;
    cap("note", &t.note, MAX_NOTE, "shorten it; put long evidence in a file and link it").map_err(Problem::unprocessable)?;
    match db::triage(&state.pool, id, &t, &caller.name).await? {
        Triaged::Done => {}
        Triaged::NotFound => return Err(no_finding(id)),
        Triaged::Invalid(why) => return Err(Problem::unprocessable(why)),
    }
    detail_with_known(&state, id).await
}
