//! `GET /findings`: the findings list with the API's filters, keyset paging and order
//! (`db::findings::list`: most recently seen first, the one order it pages with an index;
//! `sort` offers only that order), a capped count, the GPUs and drivers of each finding's
//! newest reports, and the known-divergence marks. Bad filter values give the page back with
//! the error shown, status 400.

use std::collections::BTreeMap;

use api::findings::{FindingSummary, Status};
use api::MismatchClass;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chrono::{DateTime, NaiveDate, Utc};
use maud::{html, Markup};
use serde::Deserialize;
use sqlx::PgPool;

use super::layout::{page, Nav};
use super::query::PageQuery;
use super::session::{encode, error_page, MaybeSession};
use crate::db::findings::list::{self, Cursor, Filter};
use crate::db::known;
use crate::state::AppState;

/// Findings per page.
const PAGE: i64 = 50;
/// The count stops here ("10000+ findings").
const COUNT_CAP: i64 = 10_000;
/// Reports per finding looked at for its GPUs and drivers (the newest).
const GPU_SCAN: i64 = 1000;

/// The orders the list can page in. Only one has a keyset index (`findings_last_seen` and the
/// per-filter indexes end in last_seen DESC, id DESC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    LastSeen,
}

impl Sort {
    const ALL: [Sort; 1] = [Sort::LastSeen];

    fn name(self) -> &'static str {
        match self {
            Sort::LastSeen => "last-seen",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Sort::LastSeen => "last seen, newest first",
        }
    }
}

/// The page's query string: every field text, so that an empty form field is "no filter"
/// and a bad value is a message rather than a rejection. An unknown parameter is refused, as
/// the API refuses it ([`query::parse`] names it with these fields).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    instruction: Option<String>,
    opcode: Option<String>,
    #[serde(rename = "type")]
    ty: Option<String>,
    modifier: Option<String>,
    class: Option<String>,
    status: Option<String>,
    sm: Option<String>,
    driver: Option<String>,
    since: Option<String>,
    until: Option<String>,
    cluster: Option<String>,
    sort: Option<String>,
    after: Option<String>,
}

fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// RFC 3339, or a date (midnight UTC).
fn parse_time(name: &str, v: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(d) = NaiveDate::parse_from_str(v, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc());
    }
    Err(format!("{name}: '{v}' is not a time; write 2025-01-31 or 2025-01-31T12:00:00Z"))
}

impl Params {
    /// The filter, the sort and where the page starts; or what is wrong.
    fn parse(&self) -> Result<(Filter, Sort, Option<Cursor>), String> {
        let text = |name: &str, v: &Option<String>| -> Result<Option<String>, String> {
            match given(v) {
                Some(s) if s.contains('\0') => Err(format!("{name}: contains a NUL character")),
                Some(s) if s.len() > 200 => Err(format!("{name}: longer than 200 characters")),
                s => Ok(s.map(String::from)),
            }
        };
        let class = match given(&self.class) {
            None => None,
            Some(c) => Some(MismatchClass::from_name(c).ok_or_else(|| {
                let names: Vec<_> = MismatchClass::ALL.iter().map(|c| c.name()).collect();
                format!("class: unknown class '{c}'; one of {}", names.join(", "))
            })?),
        };
        let status = given(&self.status).map(|s| s.parse::<Status>().map_err(|e| format!("status: {e}"))).transpose()?;
        let sm = given(&self.sm)
            .map(|s| s.parse::<i32>().ok().filter(|&n| n >= 0).ok_or_else(|| format!("sm: '{s}' is not a number such as 90")))
            .transpose()?;
        let sort = match given(&self.sort) {
            None => Sort::LastSeen,
            Some(s) => Sort::ALL.into_iter().find(|o| o.name() == s).ok_or_else(|| {
                format!("sort: unknown order '{s}'; the list pages in one order: last-seen (newest first)")
            })?,
        };
        let after = given(&self.after)
            .map(|s| Cursor::decode(s).ok_or_else(|| format!("after: '{s}' is not a page cursor; use the Next link")))
            .transpose()?;
        let filter = Filter {
            instruction: text("instruction", &self.instruction)?,
            opcode: text("opcode", &self.opcode)?,
            ty: text("type", &self.ty)?,
            modifier: text("modifier", &self.modifier)?,
            class,
            status,
            sm,
            driver: text("driver", &self.driver)?,
            since: given(&self.since).map(|v| parse_time("since", v)).transpose()?,
            until: given(&self.until).map(|v| parse_time("until", v)).transpose()?,
            cluster: given(&self.cluster)
                .map(|s| s.parse::<i64>().map_err(|_| format!("cluster: '{s}' is not a cluster id; pick one on the clusters page")))
                .transpose()?,
        };
        Ok((filter, sort, after))
    }

    /// The query string of these filters (no cursor), for paging links.
    fn query(&self) -> String {
        let pairs = [
            ("instruction", &self.instruction),
            ("opcode", &self.opcode),
            ("type", &self.ty),
            ("modifier", &self.modifier),
            ("class", &self.class),
            ("status", &self.status),
            ("sm", &self.sm),
            ("driver", &self.driver),
            ("since", &self.since),
            ("until", &self.until),
            ("cluster", &self.cluster),
            ("sort", &self.sort),
        ];
        pairs
            .iter()
            .filter_map(|(k, v)| given(v).map(|v| format!("{k}={}", encode(v))))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// GPUs and drivers of each finding's newest reports: one query for the page.
async fn platforms(pool: &PgPool, ids: &[i64]) -> Result<BTreeMap<i64, (Vec<String>, Vec<String>)>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"SELECT DISTINCT f.id AS "id!", c.gpu_name, c.driver_version
           FROM unnest($1::int8[]) AS f(id)
           CROSS JOIN LATERAL (SELECT r.campaign_id FROM reproducers r WHERE r.finding_id = f.id
                               ORDER BY r.id DESC LIMIT $2) r
           JOIN campaigns c ON c.id = r.campaign_id
           ORDER BY 1, 2, 3"#,
        ids,
        GPU_SCAN
    )
    .fetch_all(pool)
    .await?;
    let mut out: BTreeMap<i64, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for r in rows {
        let e = out.entry(r.id).or_default();
        if let Some(g) = r.gpu_name.filter(|g| !e.0.contains(g)) {
            e.0.push(g);
        }
        if let Some(d) = r.driver_version.filter(|d| !e.1.contains(d)) {
            e.1.push(d);
        }
    }
    Ok(out)
}

fn filters_form(p: &Params) -> Markup {
    let val = |v: &Option<String>| v.clone().unwrap_or_default();
    let text = |name: &'static str, label: &'static str, v: &Option<String>, hint: &'static str| {
        html! { label { (label) " " input type="text" name=(name) value=(val(v)) placeholder=(hint); } " " }
    };
    let status = given(&p.status).unwrap_or("");
    let class = given(&p.class).unwrap_or("");
    html! {
        form id="filters" method="get" action="/findings" {
            (text("instruction", "Instruction", &p.instruction, "add.rz.f32"))
            (text("opcode", "Opcode", &p.opcode, "add"))
            (text("type", "Type", &p.ty, "f32"))
            (text("modifier", "Modifier", &p.modifier, "ftz"))
            label { "Class " select name="class" {
                option value="" selected[class.is_empty()] { "any" }
                @for c in MismatchClass::ALL { option value=(c.name()) selected[class == c.name()] { (c.name()) } }
            } } " "
            label { "Status " select name="status" {
                option value="" selected[status.is_empty()] { "any" }
                @for s in Status::ALL { option value=(s.name()) selected[status == s.name()] { (s.name()) } }
            } } " "
            (text("sm", "sm", &p.sm, "90"))
            (text("driver", "Driver", &p.driver, "550.54.14"))
            (text("since", "Seen since", &p.since, "2025-01-31"))
            (text("until", "until", &p.until, "2025-02-28T00:00:00Z"))
            label { "Sort " select name="sort" {
                @for s in Sort::ALL { option value=(s.name()) { (s.label()) } }
            } } " "
            button type="submit" { "Filter" }
            " " a href="/findings" { "clear" }
        }
        p class="hint" { "The list pages in one order, most recently seen first (the order its indexes serve at a million findings)." }
    }
}

fn row(f: &FindingSummary, gpus: Option<&(Vec<String>, Vec<String>)>) -> Markup {
    let (g, d) = gpus.map(|(g, d)| (g.join(", "), d.join(", "))).unwrap_or_default();
    html! {
        tr class="finding" {
            td { a class="finding-link" href=(format!("/findings/{}", f.id)) { code { (f.signature) } } }
            td { code { (f.instruction) } }
            td { (f.class) }
            td { (f.operand_classes) }
            td { (f.sm.map_or("-".to_string(), |s| s.to_string())) }
            td class=(format!("status status-{}", f.status)) { (f.status)
                @if let Some(d) = f.duplicate_of { " of " a href=(format!("/findings/{d}")) { "#" (d) } } }
            td class="num" { (f.occurrences) }
            td { (f.first_seen.format("%Y-%m-%d %H:%M")) }
            td { (f.last_seen.format("%Y-%m-%d %H:%M")) }
            td { (g) }
            td { (d) }
            td { @if let Some(k) = f.known { span class="known" title=(format!("matches known divergence {k}")) { "known #" (k) } } }
        }
    }
}

async fn findings_page(State(state): State<AppState>, session: MaybeSession, PageQuery(params): PageQuery<Params>) -> Response {
    let session = session.get();
    let (p, parsed) = match params {
        Ok(p) => {
            let parsed = p.parse();
            (p, parsed)
        }
        Err(e) => (Params::default(), Err(e)),
    };
    let (filter, _sort, after) = match parsed {
        Ok(x) => x,
        Err(e) => {
            let body = html! { p class="error" id="filter-error" { (e) } (filters_form(&p)) };
            return (StatusCode::BAD_REQUEST, page("Findings", Nav::Findings, session, body)).into_response();
        }
    };
    let result = async {
        let (mut items, next) = list::list(&state.pool, &filter, PAGE, after).await?;
        known::matching(&state.pool, &mut items).await?;
        let ids: Vec<i64> = items.iter().map(|f| f.id).collect();
        let gpus = platforms(&state.pool, &ids).await?;
        let count = list::count_capped(&state.pool, &filter, COUNT_CAP + 1).await?;
        Ok::<_, sqlx::Error>((items, next, gpus, count))
    }
    .await;
    let (items, next, gpus, count) = match result {
        Ok(x) => x,
        Err(e) => {
            tracing::error!(error = %e, "findings page");
            return error_page(StatusCode::SERVICE_UNAVAILABLE, "Findings", "The database is unavailable; try again later.", session);
        }
    };
    let q = p.query();
    let sep = if q.is_empty() { "" } else { "&" };
    let count_text = if count > COUNT_CAP { format!("{COUNT_CAP}+ findings") } else { format!("{count} findings") };
    let body = html! {
        (filters_form(&p))
        p { span id="count" { (count_text) } @if after.is_some() { " (a later page)" } }
        table id="findings" {
            thead { tr {
                th { "Signature" } th { "Instruction" } th { "Class" } th { "Operands" } th { "sm" } th { "Status" }
                th { "Occurrences" } th { "First seen" } th { "Last seen" } th { "GPUs" } th { "Drivers" } th { "Known" }
            } }
            tbody { @for f in &items { (row(f, gpus.get(&f.id))) } }
        }
        @if items.is_empty() { p { "No findings match." } }
        nav class="paging" {
            @if after.is_some() { a id="first-page" href=(format!("/findings?{q}")) { "First page" } " " }
            @if let Some(c) = next { a id="next-page" href=(format!("/findings?{q}{sep}after={}", encode(&c.encode()))) { "Next page" } }
        }
    };
    page("Findings", Nav::Findings, session, body).into_response()
}

pub fn routes() -> Router<AppState> {
    Router::new().route("/findings", get(findings_page))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::query;

    fn params(raw: &str) -> Params {
        query::parse(Some(raw)).unwrap()
    }

    #[test]
    fn empty_form_fields_are_no_filter() {
        let (f, sort, after) = params("instruction=&status=&sm=&since=&sort=last-seen").parse().unwrap();
        assert_eq!(f, Filter::default());
        assert_eq!(sort, Sort::LastSeen);
        assert!(after.is_none());
    }

    #[test]
    fn bad_values_say_what_is_wrong() {
        assert!(params("status=nope").parse().unwrap_err().starts_with("status: unknown status 'nope'"));
        assert!(params("class=zzz").parse().unwrap_err().starts_with("class:"));
        assert!(params("sm=ninety").parse().unwrap_err().starts_with("sm:"));
        assert!(params("since=yesterday").parse().unwrap_err().starts_with("since:"));
        assert!(params("sort=occurrences").parse().unwrap_err().starts_with("sort:"));
        assert!(params("after=x").parse().unwrap_err().starts_with("after:"));
    }

    #[test]
    fn an_unknown_parameter_is_named_with_the_known_ones() {
        let e = query::parse::<Params>(Some("status=new&foo=bar")).unwrap_err();
        assert!(e.starts_with("unknown parameter 'foo': this page takes instruction, opcode, type,"), "{e}");
        assert!(e.ends_with("sort, after"), "{e}");
        // Every parameter the form and the paging links send is known.
        assert!(query::parse::<Params>(Some("instruction=&opcode=&type=&modifier=&class=&status=&sm=&driver=&since=&until=&cluster=&sort=&after=")).is_ok());
    }

    #[test]
    fn filters_are_parsed_and_kept_in_links() {
        let p = params("opcode=add&status=new&sm=90&since=2025-01-31");
        let (f, _, _) = p.parse().unwrap();
        assert_eq!(f.opcode.as_deref(), Some("add"));
        assert_eq!(f.status, Some(Status::New));
        assert_eq!(f.sm, Some(90));
        assert_eq!(f.since.unwrap().to_rfc3339(), "2025-01-31T00:00:00+00:00");
        assert_eq!(p.query(), "opcode=add&status=new&sm=90&since=2025-01-31");
    }
}
