//! `GET /clusters`, the triager's starting point (issue #13): one row per root-cause cluster,
//! open (`new`) clusters first and the largest of those first, with the explanation in words,
//! counts and GPUs. `GET /clusters/{id}`: the worked example in hex and decimal, the forms,
//! GPUs and drivers, the cluster's findings, and one-click triage of all of them
//! (`POST /clusters/{id}/triage`, a triager session and its CSRF token, as a finding's form).

use api::findings::Status;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::{html, Markup};
use serde::Deserialize;

use super::layout::{page, Nav};
use super::query::PageQuery;
use super::session::{error_page, require_triager, MaybeSession, Session};
use crate::db::clusters::{self as db, Cluster, ClusterTriage, ClusterTriaged};
use crate::db::findings::list::{self, Filter};
use crate::state::AppState;

/// Clusters read for the list. Clusters are few (a root cause each: the H100 campaign's 281
/// findings make 6); past this many the page says so and points to the API's paging.
const MAX_LISTED: i64 = 1000;
/// A cluster's findings shown on its page (most recently seen first); the rest are one link
/// away in the findings list (`/findings?cluster=ID`).
const SHOWN_FINDINGS: i64 = 50;
/// The longest triage note accepted (as on a finding's page).
const MAX_NOTE: usize = 64 << 10;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/clusters", get(clusters_page))
        .route("/clusters/{id}", get(cluster_page))
        .route("/clusters/{id}/triage", post(post_triage))
        .route("/clusters/{id}/known", post(post_known))
}

fn unavailable(e: sqlx::Error, session: Option<&Session>) -> Response {
    tracing::error!(error = %e, "clusters page");
    error_page(StatusCode::SERVICE_UNAVAILABLE, "Unavailable", "The database is unavailable; try again later.", session)
}

fn not_found(id: &str, session: Option<&Session>) -> Response {
    error_page(StatusCode::NOT_FOUND, "No such cluster", &format!("There is no cluster {id}; pick one from the clusters list."), session)
}

/// The list's order: open clusters first, then by findings (signatures), then oldest id.
fn triage_order(clusters: &mut [Cluster]) {
    clusters.sort_by_key(|c| (c.status != Status::New, std::cmp::Reverse(c.signatures), c.id));
}

fn model_name(c: &Cluster) -> &str {
    c.explanation.model.as_deref().unwrap_or("unexplained")
}

/// `GET /clusters?status=...`: only clusters of that status. The page is not paged (it shows
/// up to [`MAX_LISTED`]); any other parameter is refused, `after` included.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    status: Option<String>,
}

async fn clusters_page(
    State(state): State<AppState>,
    session: MaybeSession,
    PageQuery(q): PageQuery<ListQuery>,
) -> Response {
    let session = session.get();
    // A bad status is reported, as on the findings page, rather than silently listing all.
    let status = match q.map(|q| q.status.filter(|s| !s.is_empty())) {
        Ok(None) => None,
        Ok(Some(s)) => match s.parse::<Status>() {
            Ok(st) => Some(st),
            Err(e) => return error_page(StatusCode::BAD_REQUEST, "Clusters", &format!("status: {e}"), session),
        },
        Err(e) => return error_page(StatusCode::BAD_REQUEST, "Clusters", &e, session),
    };
    let (mut items, more) = match db::list(&state.pool, None, status, MAX_LISTED, None).await {
        Ok(page) => page,
        Err(e) => return unavailable(e, session),
    };
    items.retain(|c| c.signatures > 0);
    triage_order(&mut items);
    let open = items.iter().filter(|c| c.status == Status::New).count();
    let content = html! {
        p.summary { (items.len()) " clusters · " (open) " open · "
            (items.iter().map(|c| c.signatures).sum::<i64>()) " findings" }
        p.note { "A cluster is one root cause: the findings that one explanation from the catalogue "
            "(docs/triage.md) reproduces, over an instruction family and format; findings no entry "
            "explains cluster by form and mismatch class. Open clusters come first, largest first." }
        @if items.is_empty() {
            p { "No findings yet. Run a campaign with --server, or deliver one with ptxfuzz deliver --findings DIR." }
        } @else {
            table #clusters {
                thead { tr { th { "Cluster" } th { "Explanation" } th.num { "Findings" } th.num { "Reports" }
                    th { "Status" } th { "GPUs" } th { "Last seen" } } }
                tbody {
                    @for c in &items {
                        tr.cluster id=(format!("c{}", c.id)) {
                            td { a.cluster-link href=(format!("/clusters/{}", c.id)) { (c.title) } br; small { code { (model_name(c)) } } }
                            td.sentence { (c.explanation.sentence) }
                            td.num { (c.signatures) }
                            td.num { (c.findings) }
                            td { (c.status.name()) }
                            td { (c.devices.join(", ")) }
                            td { @if let Some(t) = c.last_seen { (t.format("%Y-%m-%d %H:%M")) } }
                        }
                    }
                }
            }
        }
        @if let Some(after) = more {
            p.note { "More than " (MAX_LISTED) " clusters: the rest are in the API, "
                a href=(format!("/api/v1/clusters?after={after}")) { "/api/v1/clusters?after=" (after) } "." }
        }
    };
    page("Clusters", Nav::Clusters, session, content).into_response()
}

/// One-click triage: a button per status (all but `duplicate`, which names one original
/// finding) and an optional note, for every finding of the cluster; a known divergence for
/// the whole cluster; filing its `representative` finding as a regression.
fn triage_form(c: &Cluster, session: Option<&Session>, representative: Option<i64>) -> Markup {
    match session {
        Some(s) if s.role.allows(crate::auth::Role::Triager) => html! {
            h2 { "Triage every finding of this cluster" }
            form #cluster-triage method="post" action=(format!("/clusters/{}/triage", c.id)) {
                input type="hidden" name="csrf" value=(s.csrf);
                label { "Note" br; textarea name="note" rows="2" cols="60" {} } br;
                @for st in Status::ALL.into_iter().filter(|&s| s != Status::Duplicate) {
                    button type="submit" name="status" value=(st.name()) class=[(st == c.status).then_some("current")] { (st.name()) } " "
                }
            }
            p.note { "Each finding's history records the change with your name and the note." }
            h2 { "Mark the cluster as a known divergence" }
            form #cluster-known method="post" action=(format!("/clusters/{}/known", c.id)) {
                input type="hidden" name="csrf" value=(s.csrf);
                label { "Reason (the evidence, the hardware and driver it was seen on)" br;
                    textarea name="reason" rows="2" cols="60" required {} } br;
                button type="submit" { "Mark known" }
            }
            p.note { "A known divergence covering this cluster: its findings, present and future, are "
                "still counted and shown as known (GET /api/v1/known-divergences lists it with "
                "\"cluster\": " (c.id) ")." }
            @if let Some(rep) = representative {
                h2 { "File as regression" }
                form #cluster-regression method="post" action=(format!("/findings/{rep}/regression")) {
                    input type="hidden" name="csrf" value=(s.csrf);
                    label { "Title" br; input type="text" name="title" size="60"
                        value=(format!("cluster {}: {}", c.id, c.title)); } br;
                    button type="submit" { "File finding " (rep) " as a regression" }
                }
                p.note { "The cluster's most recently seen finding stands for it: its minimized "
                    "reproducer is re-run on every GPU and driver that leases regressions." }
            }
        },
        Some(s) => html! { p { "Triage needs a triager token; '" (s.name) "' is a " (s.role) " token." } },
        None => html! { p { a href=(format!("/login?next=/clusters/{}", c.id)) { "Log in" } " with a triager token to triage this cluster." } },
    }
}

async fn cluster_page(State(state): State<AppState>, session: MaybeSession, Path(raw): Path<String>) -> Response {
    let session = session.get();
    let Ok(id) = raw.parse::<i64>() else { return not_found(&raw, session) };
    let c = match db::get(&state.pool, id).await {
        Ok(Some(c)) => c,
        Ok(None) => return not_found(&raw, session),
        Err(e) => return unavailable(e, session),
    };
    let filter = Filter { cluster: Some(id), ..Filter::default() };
    let (findings, more) = match list::list(&state.pool, &filter, SHOWN_FINDINGS, None).await {
        Ok(p) => p,
        Err(e) => return unavailable(e, session),
    };
    let known: Vec<_> = match crate::db::known::list(&state.pool).await {
        Ok(all) => all.into_iter().filter(|k| k.rule.cluster == Some(id)).collect(),
        Err(e) => return unavailable(e, session),
    };
    let content = html! {
        p.sentence { (c.explanation.sentence) }
        table.facts {
            tr { th { "Explanation" } td { code { (model_name(&c)) } } }
            tr { th { "Status" } td #cluster-status { (c.status.name()) } }
            tr { th { "Findings" } td { (c.signatures) " (" (c.findings) " reports, " (c.occurrences) " hits)" } }
            tr { th { "Forms" } td { @for f in &c.forms { code { (f) } " " } } }
            tr { th { "GPUs" } td { (c.devices.join(", ")) } }
            tr { th { "Drivers" } td { (c.drivers.join(", ")) } }
            tr { th { "First seen" } td { @if let Some(t) = c.first_seen { (t.format("%Y-%m-%d %H:%M:%S UTC")) } } }
            tr { th { "Last seen" } td { @if let Some(t) = c.last_seen { (t.format("%Y-%m-%d %H:%M:%S UTC")) } } }
        }
        h2 { "Worked example" }
        pre #example-hex { (c.explanation.example.hex) }
        pre #example-decimal { (c.explanation.example.decimal) }
        @if !known.is_empty() {
            p #cluster-known-rules { "Known divergence: " @for k in &known { "#" (k.id) " " (k.rule.reason) " " } }
        }
        (triage_form(&c, session, findings.first().map(|f| f.id)))
        h2 { "Findings" }
        table #cluster-findings {
            thead { tr { th { "Finding" } th { "Signature" } th { "Status" } th.num { "Reports" } th { "Last seen" } } }
            tbody {
                @for f in &findings {
                    tr.finding {
                        td { a href=(format!("/findings/{}", f.id)) { (f.id) } }
                        td { code { (f.signature) } }
                        td { (f.status.name()) }
                        td.num { (f.reproducers) }
                        td { (f.last_seen.format("%Y-%m-%d %H:%M")) }
                    }
                }
            }
        }
        @if more.is_some() {
            p { a #all-findings href=(format!("/findings?cluster={id}")) { "All " (c.signatures) " findings of this cluster →" } }
        }
    };
    page(&c.title, Nav::Clusters, session, content).into_response()
}

#[derive(Debug, Default, Deserialize)]
struct TriageForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    note: String,
}

async fn post_triage(
    State(state): State<AppState>,
    session: MaybeSession,
    Path(raw): Path<String>,
    form: Result<Form<TriageForm>, FormRejection>,
) -> Response {
    let back = format!("/clusters/{raw}");
    let f = form.map(|Form(f)| f).unwrap_or_default();
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
    if f.note.contains('\0') || f.note.len() > MAX_NOTE {
        return bad(format!("note: at most {MAX_NOTE} bytes and no NUL characters"));
    }
    match db::triage(&state.pool, id, &ClusterTriage { status, note: f.note }, &s.name).await {
        Ok(ClusterTriaged::Done(_)) => Redirect::to(&back).into_response(),
        Ok(ClusterTriaged::NotFound) => not_found(&raw, Some(&s)),
        Ok(ClusterTriaged::Invalid(why)) => error_page(StatusCode::UNPROCESSABLE_ENTITY, "Triage refused", &why, Some(&s)),
        Err(e) => unavailable(e, Some(&s)),
    }
}

#[derive(Debug, Default, Deserialize)]
struct KnownForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    reason: String,
}

/// A known divergence covering the whole cluster (pattern `*`, any target and driver), the
/// same rule `POST /api/v1/known-divergences` with `"cluster"` makes.
async fn post_known(
    State(state): State<AppState>,
    session: MaybeSession,
    Path(raw): Path<String>,
    form: Result<Form<KnownForm>, FormRejection>,
) -> Response {
    let back = format!("/clusters/{raw}");
    let f = form.map(|Form(f)| f).unwrap_or_default();
    let s = match require_triager(&session, &f.csrf, &back) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let Ok(id) = raw.parse::<i64>() else { return not_found(&raw, Some(&s)) };
    let reason = f.reason.trim();
    if reason.is_empty() || reason.contains('\0') || reason.len() > MAX_NOTE {
        let msg = format!("reason: say why this divergence is accepted (at most {MAX_NOTE} bytes, no NUL characters)");
        return error_page(StatusCode::BAD_REQUEST, "Known divergence refused", &msg, Some(&s));
    }
    match db::get(&state.pool, id).await {
        Ok(Some(_)) => {}
        Ok(None) => return not_found(&raw, Some(&s)),
        Err(e) => return unavailable(e, Some(&s)),
    }
    let rule = api::findings::KnownDivergenceNew {
        pattern: "*".into(),
        target_pattern: "*".into(),
        driver_min: None,
        driver_max: None,
        reason: reason.to_string(),
        expires_at: None,
        cluster: Some(id),
    };
    match crate::db::known::insert(&state.pool, &rule, &s.name).await {
        Ok(_) => Redirect::to(&back).into_response(),
        Err(e) => unavailable(e, Some(&s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(id: i64, signatures: i64, status: Status) -> Cluster {
        Cluster {
            id,
            key: format!("k{id}"),
            title: format!("t{id}"),
            explanation: db::ClusterExplanation {
                model: None,
                sentence: String::new(),
                example: db::WorkedExample { hex: String::new(), decimal: String::new() },
            },
            signatures,
            findings: signatures,
            occurrences: signatures,
            first_seen: None,
            last_seen: None,
            status,
            forms: vec![],
            devices: vec![],
            drivers: vec![],
        }
    }

    #[test]
    fn open_clusters_come_first_largest_first() {
        let mut v = vec![
            cluster(1, 3, Status::New),
            cluster(2, 500, Status::ConfirmedHardware),
            cluster(3, 40, Status::New),
            cluster(4, 40, Status::New),
        ];
        triage_order(&mut v);
        assert_eq!(v.iter().map(|c| c.id).collect::<Vec<_>>(), [3, 4, 1, 2]);
    }
}
