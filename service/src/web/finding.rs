//! `GET /findings/{id}`: one finding. Its newest reproducer (the program highlighted, every
//! operand and result in hex, decimal and per lane; the interpreter's allowed set with the
//! readings it names and the spec section and error bound of the instruction, against the
//! target's bits and their distance in ulps), the SASS, every occurrence (the 100 newest), the
//! triage history, the triage and "file as regression" forms (triager sessions), and the
//! reproducer files as downloads (`repro.ptx`, `repro.cu`, `repro.json`).
//!
//! The forms post to `POST /findings/{id}/triage` and `POST /findings/{id}/regression`, which
//! take the same path as the API (`db::findings::triage`; `db::regressions::source`,
//! `validate::check_reproducer`, `db::regressions::insert`) and answer 303.

use api::findings::{FindingDetail, Status, StoredReproducer, Triage};
use api::repro::{cuda, files};
use api::{Reproducer, Signature};
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::{html, Markup};
use ptx::interp::Expectation;
use ptx::program::{Program, Reg};
use serde::Deserialize;

use super::layout::{page, Nav};
use super::session::{error_page, require_triager, MaybeSession, Session};
use super::{ptx_html, values};
use crate::db;
use crate::db::findings::Triaged;
use crate::db::regressions::{NewRegression, Source};
use crate::state::AppState;
use crate::validate;

/// Longest regression title accepted (as the API).
const MAX_TITLE: usize = 500;
/// Longest triage note accepted.
const MAX_NOTE: usize = 64 << 10;

fn not_found(id: &str, session: Option<&Session>) -> Response {
    error_page(StatusCode::NOT_FOUND, "No such finding", &format!("There is no finding {id}; pick one from the findings list."), session)
}

fn unavailable(e: sqlx::Error, session: Option<&Session>) -> Response {
    tracing::error!(error = %e, "finding page");
    error_page(StatusCode::SERVICE_UNAVAILABLE, "Unavailable", "The database is unavailable; try again later.", session)
}

/// Regressions filed from one finding shown on its page (the newest).
const SHOWN_REGRESSIONS: i64 = 20;

/// The finding, and the regressions filed from it (id, title).
async fn load(state: &AppState, id: i64) -> Result<Option<(FindingDetail, Vec<(i64, String)>)>, sqlx::Error> {
    let Some(mut d) = db::findings::detail(&state.pool, id).await? else { return Ok(None) };
    db::known::matching(&state.pool, std::slice::from_mut(&mut d.finding)).await?;
    let filed = sqlx::query!(
        "SELECT id, title FROM regressions WHERE finding_id = $1 ORDER BY id DESC LIMIT $2",
        id,
        SHOWN_REGRESSIONS
    )
    .fetch_all(&state.pool)
    .await?
    .into_iter()
    .map(|r| (r.id, r.title))
    .collect();
    Ok(Some((d, filed)))
}

/// What the interpreter says about the newest reproducer.
struct Evaluated {
    program: Program,
    inputs: Vec<u64>,
    expected: Vec<Expectation>,
    /// Per body instruction, the primary bits of its result.
    intermediates: Vec<u64>,
}

fn evaluate(r: &Reproducer) -> Result<Evaluated, String> {
    let (program, inputs) = files::case(r).map_err(|e| e.to_string())?;
    let run = program.trace(&inputs).map_err(|e| format!("the interpreter cannot run this program: {e}"))?;
    let intermediates = run.intermediates.iter().map(|e| e.primary_bits()).collect();
    Ok(Evaluated { program, inputs, expected: run.outputs, intermediates })
}

impl Evaluated {
    fn value(&self, r: Reg) -> u64 {
        let k = self.inputs.len();
        if (r.0 as usize) < k {
            self.inputs[r.0 as usize]
        } else {
            self.intermediates.get(r.0 as usize - k).copied().unwrap_or(0)
        }
    }
}

/// The spec section of the finding's instruction and, for approximate forms, the rows of the
/// bound table (the one that applies to lane 0 of the first instruction of that form marked).
fn spec(sig: Option<&Signature>, ev: &Evaluated) -> Markup {
    let Some(instr) = sig.and_then(|s| s.instr) else {
        return html! { p { "The output is an input register: no instruction, no spec section." } };
    };
    let section = ptx::isa::rules::section_of(instr.op, instr.ty);
    let form = ptx::approx::Form::of(&instr);
    let rows = form.map(|f| ptx::approx::bounds::rows_for(f.func, f.scalar)).unwrap_or(&[]);
    let applied = form.and_then(|f| {
        let j = ev.program.body().iter().position(|s| s.instr == instr)?;
        let b = ptx::approx::bounds::select(rows, 0.0).map(|b| b.operand).unwrap_or(0);
        let src = *ev.program.body()[j].srcs().get(b)?;
        let lane0 = ev.value(src) & f.scalar.mask();
        ptx::approx::bounds::select(rows, f.scalar.to_f64(lane0))
    });
    html! {
        p id="spec" { "Instruction " code { (instr.to_string()) } ": PTX ISA section " strong { (section) } "." }
        @if !rows.is_empty() {
            table id="bounds" {
                thead { tr { th { "Applies" } th { "Form" } th { "Bound" } th { "Inputs" } th { "Section" } th { "Spec" } } }
                tbody { @for b in rows {
                    tr class=[applied.is_some_and(|a| std::ptr::eq(a, b)).then_some("applied")] {
                        td { @if applied.is_some_and(|a| std::ptr::eq(a, b)) { "→" } }
                        td { code { (b.form) } }
                        td { (b.kind.name()) " " (match b.kind {
                            ptx::approx::BoundKind::Ulps(n) => n.to_string(),
                            ptx::approx::BoundKind::Abs { log2, .. } | ptx::approx::BoundKind::Rel { log2, .. } => format!("2^{log2}"),
                            ptx::approx::BoundKind::Undocumented => "-".to_string(),
                        }) }
                        td { (b.inputs_text) }
                        td { (b.section) }
                        td { (b.spec) }
                    }
                } }
            }
        }
    }
}

fn readings(e: &Expectation) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = e.lanes.iter().flat_map(|l| l.alternatives.iter().map(|(_, r)| r.name())).collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn case_tables(r: &Reproducer, ev: &Evaluated) -> Markup {
    let p = &ev.program;
    let actual = files::actual_bits(r).unwrap_or_default();
    html! {
        h2 { "Operands" }
        table id="operands" {
            thead { tr { th { "Register" } th { "Type" } th { "Value" } } }
            tbody { @for (j, (&ty, &bits)) in p.inputs().iter().zip(&ev.inputs).enumerate() {
                tr { td { code { (p.name(Reg(j as u16)).to_string()) } } td { (ty.name()) } td { (values::cell(ty, bits)) } }
            } }
        }
        h2 { "Results" }
        table id="results" {
            thead { tr { th { "Output" } th { "Type" } th { "Expected (allowed)" } th { "Reference" } th { "Actual" } th { "Verdict" } th { "ulps" } } }
            tbody { @for (k, e) in ev.expected.iter().enumerate() {
                @let reg = p.outputs()[k];
                @let ty = p.reg_type(reg);
                tr class="result" {
                    td { code { (p.name(reg).to_string()) } }
                    td { (ty.name()) }
                    td class="expected" { (values::expected(e))
                        @let rs = readings(e);
                        @if !rs.is_empty() { br; small { "readings: " (rs.join(", ")) } } }
                    td { (values::cell(ty, e.primary_bits())) }
                    @match actual.get(k) {
                        Some(&a) => {
                            td class="actual" { (values::cell(ty, a)) }
                            td { @if e.accepts(a) { span class="ok" { "allowed" } } @else { span class="bad" { "NOT allowed" } } }
                            td class="ulps" { (values::register_ulps(ty, e.primary_bits(), a)) }
                        }
                        None => { td { "-" } td { "-" } td { "n/a" } }
                    }
                }
            } }
        }
    }
}

fn occurrences(reps: &[StoredReproducer]) -> Markup {
    html! {
        table id="occurrences" {
            thead { tr { th { "Received" } th { "Target" } th { "Device" } th { "Driver" } th { "Campaign" } th { "Hits" } } }
            tbody { @for o in reps {
                tr {
                    td { (o.received_at.format("%Y-%m-%d %H:%M:%S")) }
                    td { code { (o.reproducer.target) } }
                    td { (o.reproducer.device) }
                    td { (o.driver_version.as_deref().unwrap_or("-")) }
                    td { @match o.campaign_id { Some(c) => a href=(format!("/api/v1/campaigns/{c}")) { (c.to_string()) }, None => "-" } }
                    td class="num" { (o.hits) }
                }
            } }
        }
    }
}

fn forms(id: i64, current: Status, session: Option<&Session>) -> Markup {
    match session {
        Some(s) if s.role.allows(crate::auth::Role::Triager) => html! {
            h2 { "Triage" }
            form id="triage" method="post" action=(format!("/findings/{id}/triage")) {
                input type="hidden" name="csrf" value=(s.csrf);
                label { "Status " select name="status" {
                    @for st in Status::ALL { option value=(st.name()) selected[st == current] { (st.name()) } }
                } } " "
                label { "Duplicate of " input type="number" name="duplicate_of" min="1" placeholder="finding id"; } br;
                label { "Note" br; textarea name="note" rows="3" cols="60" {} } br;
                button type="submit" { "Save triage" }
            }
            h2 { "File as regression" }
            form id="file-regression" method="post" action=(format!("/findings/{id}/regression")) {
                input type="hidden" name="csrf" value=(s.csrf);
                label { "Title " input type="text" name="title" size="60" placeholder="default: finding id and signature"; } " "
                button type="submit" { "File regression" }
            }
        },
        Some(s) => html! { p { "Triage needs a triager token; '" (s.name) "' is a " (s.role) " token." } },
        None => html! { p { a href=(format!("/login?next=/findings/{id}")) { "Log in" } " with a triager token to triage this finding or file it as a regression." } },
    }
}

async fn finding_page(State(state): State<AppState>, session: MaybeSession, Path(raw): Path<String>) -> Response {
    let session = session.get();
    let Ok(id) = raw.parse::<i64>() else { return not_found(&raw, session) };
    let (d, filed) = match load(&state, id).await {
        Ok(Some(x)) => x,
        Ok(None) => return not_found(&raw, session),
        Err(e) => return unavailable(e, session),
    };
    let f = &d.finding;
    let sig: Option<Signature> = f.signature.parse().ok();
    let newest = d.reproducers.first();
    let ev = match newest {
        Some(r) => {
            let r = r.reproducer.clone();
            Some(tokio::task::spawn_blocking(move || evaluate(&r)).await.unwrap_or_else(|_| Err("the interpreter failed on this program".into())))
        }
        None => None,
    };
    let sass = d.reproducers.iter().find_map(|r| r.sass.as_deref());
    let body = html! {
        p { code { (f.signature) } " · " (f.class) " · status " strong class=(format!("status-{}", f.status)) { (f.status) }
            @if let Some(dup) = f.duplicate_of { " of " a href=(format!("/findings/{dup}")) { "#" (dup) } }
            @if let Some(k) = f.known { " · " span class="known" { "known divergence #" (k) } }
            @if let Some(c) = f.cluster_id { " · " a #cluster-link href=(format!("/clusters/{c}")) { "cluster " (c) } }
            " · " (f.occurrences) " occurrences in " (f.reproducers) " reports, first seen " (f.first_seen.format("%Y-%m-%d %H:%M"))
            ", last seen " (f.last_seen.format("%Y-%m-%d %H:%M")) }
        @match (newest, &ev) {
            (Some(r), Some(ev)) => {
                h2 { "Program" }
                pre id="program" class="ptx" { (ptx_html::highlight(&r.reproducer.program_text)) }
                @match ev {
                    Ok(ev) => { (case_tables(&r.reproducer, ev)) (spec(sig.as_ref(), ev)) }
                    Err(e) => p class="error" { "This reproducer cannot be evaluated: " (e) }
                }
                h2 { "Reproduce" }
                p { "Download " a id="download-ptx" href=(format!("/findings/{id}/repro.ptx")) { "repro.ptx" } ", "
                    a id="download-cu" href=(format!("/findings/{id}/repro.cu")) { "repro.cu" } ", "
                    a id="download-json" href=(format!("/findings/{id}/repro.json")) { "repro.json" } ", then run" }
                pre { code id="repro-command" { "ptxfuzz repro repro.json --target cuda" } }
                p { "or " code { "nvcc " (r.reproducer.nvcc_arch()) " -o repro repro.cu && ./repro" } "." }
            }
            _ => p { "This finding has no reports." }
        }
        @if let Some(s) = sass { h2 { "SASS" } pre id="sass" { (s) } }
        h2 { "Occurrences" }
        p { "The " (d.reproducers.len()) " newest reports (of " (f.reproducers) ")." }
        (occurrences(&d.reproducers))
        h2 { "Triage history" }
        table id="history" {
            thead { tr { th { "When" } th { "Who" } th { "From" } th { "To" } th { "Note" } } }
            tbody { @for e in &d.history {
                tr { td { (e.at.format("%Y-%m-%d %H:%M:%S")) } td { (e.actor) } td { (e.from) } td { (e.to)
                    @if let Some(x) = e.duplicate_of { " of #" (x) } } td class="note" { (e.note) } }
            } }
        }
        @if !filed.is_empty() {
            h2 { "Regressions filed from it" }
            ul id="filed" { @for (rid, title) in &filed { li { a href=(format!("/regressions#r{rid}")) { "#" (rid) } " " (title) } } }
        }
        (forms(id, f.status, session))
    };
    page(&format!("Finding {id}"), Nav::Findings, session, body).into_response()
}

/// Which file of the reproducer to download.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Download {
    Ptx,
    Cu,
    Json,
}

async fn download(state: &AppState, session: MaybeSession, raw: &str, what: Download) -> Response {
    let session = session.get();
    let Ok(id) = raw.parse::<i64>() else { return not_found(raw, session) };
    let r = match db::regressions::source(&state.pool, id, None).await {
        Ok(Source::Found { reproducer, .. }) => reproducer,
        Ok(Source::NoFinding) => return not_found(raw, session),
        Ok(_) => return error_page(StatusCode::NOT_FOUND, "No reports", &format!("Finding {id} has no reports to download."), session),
        Err(e) => return unavailable(e, session),
    };
    let r: Reproducer = match serde_json::from_value(r) {
        Ok(r) => r,
        Err(e) => return error_page(StatusCode::UNPROCESSABLE_ENTITY, "Bad reproducer", &format!("The stored reproducer cannot be read: {e}"), session),
    };
    let made = match what {
        Download::Json => Ok(serde_json::to_string_pretty(&r).expect("a reproducer serialises") + "\n"),
        Download::Ptx => files::ptx_file(&r),
        Download::Cu => tokio::task::spawn_blocking(move || cuda::source(&r)).await.unwrap_or_else(|_| Ok(String::new())),
    };
    let text = match made {
        Ok(t) => t,
        Err(e) => return error_page(StatusCode::UNPROCESSABLE_ENTITY, "Cannot write the file", &e.to_string(), session),
    };
    let (ct, name) = match what {
        Download::Ptx => ("text/plain; charset=utf-8", "repro.ptx"),
        Download::Cu => ("text/x-cuda; charset=utf-8", "repro.cu"),
        Download::Json => ("application/json", "repro.json"),
    };
    ([(header::CONTENT_TYPE, ct.to_string()), (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\""))], text)
        .into_response()
}

#[derive(Debug, Deserialize)]
struct TriageForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    note: String,
    #[serde(default)]
    duplicate_of: String,
}

async fn post_triage(
    State(state): State<AppState>,
    session: MaybeSession,
    Path(raw): Path<String>,
    form: Result<Form<TriageForm>, FormRejection>,
) -> Response {
    let back = format!("/findings/{raw}");
    let f = form.map(|Form(f)| f).unwrap_or(TriageForm { csrf: String::new(), status: String::new(), note: String::new(), duplicate_of: String::new() });
    let s = match require_triager(&session, &f.csrf, &back) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let Ok(id) = raw.parse::<i64>() else { return not_found(&raw, Some(&s)) };
    let bad = |msg: String| error_page(StatusCode::BAD_REQUEST, "Triage refused", &msg, Some(&s));
    let status = match f.status.parse::<Status>() {
        Ok(st) => st,
        Err(e) => return bad(format!("status: {e}")),
    };
    let duplicate_of = match f.duplicate_of.trim() {
        "" => None,
        t => match t.parse::<i64>() {
            Ok(n) => Some(n),
            Err(_) => return bad(format!("duplicate of: '{t}' is not a finding id")),
        },
    };
    if f.note.contains('\0') || f.note.len() > MAX_NOTE {
        return bad(format!("note: at most {MAX_NOTE} bytes and no NUL characters"));
    }
    let t = Triage { status, note: f.note, duplicate_of };
    match db::findings::triage(&state.pool, id, &t, &s.name).await {
        Ok(Triaged::Done) => Redirect::to(&back).into_response(),
        Ok(Triaged::NotFound) => not_found(&raw, Some(&s)),
        Ok(Triaged::Invalid(why)) => error_page(StatusCode::UNPROCESSABLE_ENTITY, "Triage refused", &why, Some(&s)),
        Err(e) => unavailable(e, Some(&s)),
    }
}

#[derive(Debug, Deserialize)]
struct RegressionForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    title: String,
}

async fn post_regression(
    State(state): State<AppState>,
    session: MaybeSession,
    Path(raw): Path<String>,
    form: Result<Form<RegressionForm>, FormRejection>,
) -> Response {
    let back = format!("/findings/{raw}");
    let f = form.map(|Form(f)| f).unwrap_or(RegressionForm { csrf: String::new(), title: String::new() });
    let s = match require_triager(&session, &f.csrf, &back) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let Ok(id) = raw.parse::<i64>() else { return not_found(&raw, Some(&s)) };
    let refuse = |status: StatusCode, msg: String| error_page(status, "Regression refused", &msg, Some(&s));
    if f.title.len() > MAX_TITLE || f.title.contains('\0') {
        return refuse(StatusCode::BAD_REQUEST, format!("title: at most {MAX_TITLE} bytes and no NUL characters"));
    }
    let (signature, reproducer) = match db::regressions::source(&state.pool, id, None).await {
        Ok(Source::Found { signature, reproducer, .. }) => (signature, reproducer),
        Ok(Source::NoFinding) => return not_found(&raw, Some(&s)),
        Ok(_) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, format!("Finding {id} has no reports to file.")),
        Err(e) => return unavailable(e, Some(&s)),
    };
    let checked = match tokio::task::spawn_blocking(move || validate::check_reproducer(&reproducer)).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, e.0),
        Err(_) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, "the interpreter failed on this program".into()),
    };
    let title = if f.title.trim().is_empty() { format!("finding {id}: {signature}") } else { f.title.trim().to_string() };
    let n = NewRegression { finding_id: Some(id), title: &title, checked: &checked, created_by: &s.name };
    match db::regressions::insert(&state.pool, &n).await {
        Ok(r) => Redirect::to(&format!("/regressions#r{}", r.id)).into_response(),
        Err(e) => unavailable(e, Some(&s)),
    }
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/findings/{id}", get(finding_page))
        .route("/findings/{id}/repro.ptx", get(|State(s): State<AppState>, m: MaybeSession, Path(id): Path<String>| async move { download(&s, m, &id, Download::Ptx).await }))
        .route("/findings/{id}/repro.cu", get(|State(s): State<AppState>, m: MaybeSession, Path(id): Path<String>| async move { download(&s, m, &id, Download::Cu).await }))
        .route("/findings/{id}/repro.json", get(|State(s): State<AppState>, m: MaybeSession, Path(id): Path<String>| async move { download(&s, m, &id, Download::Json).await }))
        .route("/findings/{id}/triage", post(post_triage))
        .route("/findings/{id}/regression", post(post_regression))
}
