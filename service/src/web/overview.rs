//! `GET /`: the overview: findings by status and by instruction family, new findings per day,
//! live campaigns with their throughput, and the regressions at a glance. Every number comes
//! from a bounded query (db::overview), so the page is as fast at 1 M findings as at ten.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use axum_extra::extract::cookie::CookieJar;
use maud::{html, Markup};
use serde::Deserialize;

use super::layout::{page, Nav};
use super::session::{follow_login_link, MaybeSession};
use super::svg;
use crate::db::overview::{self as db, Live, DAYS, LIVE_WITHIN_MINUTES};
use crate::problem::Problem;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/", get(overview))
}

/// A rate with a unit prefix: 1.2 k/s, 3.4 M/s.
pub fn rate(per_second: f64) -> String {
    match per_second {
        r if r >= 1e9 => format!("{:.2} G/s", r / 1e9),
        r if r >= 1e6 => format!("{:.2} M/s", r / 1e6),
        r if r >= 1e3 => format!("{:.1} k/s", r / 1e3),
        r => format!("{r:.1}/s"),
    }
}

fn to_u64(entries: &[(String, i64)]) -> Vec<(String, u64)> {
    entries.iter().map(|(k, v)| (k.clone(), (*v).max(0) as u64)).collect()
}

#[derive(Debug, Deserialize)]
struct RootQuery {
    /// The private cluster's single-use login secret (session::follow_login_link).
    login: Option<String>,
}

async fn overview(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    jar: CookieJar,
    q: Result<Query<RootQuery>, QueryRejection>,
) -> Result<Response, Problem> {
    if let Some(secret) = q.ok().and_then(|Query(q)| q.login) {
        return Ok(follow_login_link(&state, jar, &secret).await);
    }
    let counts = db::finding_counts(&state.pool).await?;
    let live = db::live_campaigns(&state.pool).await?;
    let regressions = db::regression_summary(&state.pool).await?;
    let per_day: Vec<_> = counts.per_day.iter().map(|(d, n)| (*d, (*n).max(0) as u64)).collect();
    let new_in_window: i64 = counts.per_day.iter().map(|d| d.1).sum();
    let content = html! {
        p.summary { (counts.total) " findings · " (live.len()) " live campaigns · " (regressions.regressions) " regressions" }
        div.charts {
            section #by-status {
                h2 { "Findings by status" }
                (svg::hbars("Findings by status", &to_u64(&counts.by_status)))
                ul.legend {
                    @for (status, n) in &counts.by_status {
                        li { a href=(format!("/findings?status={status}")) { (status) } ": " (n) }
                    }
                }
            }
            section #by-family {
                h2 { "Findings by instruction family" }
                (svg::hbars("Findings by instruction family", &svg::top(to_u64(&counts.by_opcode), svg::MAX_BARS, "other")))
            }
            section #over-time {
                h2 { "New findings per day (last " (DAYS) " days)" }
                (svg::per_day("New findings per day", counts.first_day, counts.today, &per_day))
                p { (new_in_window) " new in " (DAYS) " days" }
            }
        }
        section #live {
            h2 { "Live campaigns" }
            p.note { "Not ended, and a heartbeat within the last " (LIVE_WITHIN_MINUTES) " minutes." }
            (campaigns_table(&live))
        }
        section #regressions-summary {
            h2 { a href="/regressions" { "Regressions" } }
            p {
                (regressions.regressions) " filed; last 7 days: "
                span.pass { (regressions.runs_passed) " runs passed" } ", "
                span.fail { (regressions.runs_failed) " failed" }
                @if let Some(t) = regressions.last_run { " (last run " (t.format("%Y-%m-%d %H:%M UTC")) ")" }
            }
        }
    };
    Ok(page("Overview", Nav::Overview, session.as_ref(), content).into_response())
}

fn campaigns_table(live: &[Live]) -> Markup {
    html! {
        table #campaigns {
            thead { tr {
                th { "Host" } th { "Target" } th { "GPU / driver" } th { "Started" } th { "Cases" }
                th { "Throughput" } th { "Programs" } th { "Findings" } th { "Last heartbeat" }
            } }
            tbody {
                @if live.is_empty() {
                    tr { td colspan="9" { "No live campaigns." } }
                }
                @for l in live {
                    @let c = &l.campaign;
                    tr.campaign {
                        td { (c.start.worker_host) }
                        td { (c.start.target) }
                        td { (c.start.gpu_name.as_deref().unwrap_or("—")) " " (c.start.driver_version.as_deref().unwrap_or("")) }
                        td { (c.start.started_at.format("%Y-%m-%d %H:%M")) }
                        td.num { (c.counters.cases) }
                        td.num.throughput {
                            (rate(l.cases_per_second())) " cases"
                            // A GPU campaign runs both modes; say what each delivers.
                            @if c.counters.cases_isa > 0 && c.counters.cases_compiled > 0 {
                                @let (isa, compiled) = l.cases_per_second_by_exec();
                                br; small.by-exec { "isa " (rate(isa)) ", compiled " (rate(compiled)) }
                            }
                        }
                        td.num { (c.counters.programs) }
                        td.num { (c.counters.findings) }
                        td { (c.last_heartbeat_at.format("%H:%M:%S")) }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_carry_a_unit_prefix() {
        assert_eq!(rate(0.0), "0.0/s");
        assert_eq!(rate(12.34), "12.3/s");
        assert_eq!(rate(1234.0), "1.2 k/s");
        assert_eq!(rate(2.5e6), "2.50 M/s");
        assert_eq!(rate(3e9), "3.00 G/s");
    }

    fn live(cases_isa: u64, cases_compiled: u64) -> Live {
        let now = chrono::Utc::now();
        let start = api::campaigns::CampaignStart {
            worker_host: "gpu1".into(),
            target: "cuda:0".into(),
            device: "NVIDIA H100".into(),
            gpu_name: Some("NVIDIA H100".into()),
            sm: Some(90),
            driver_version: None,
            cuda_version: None,
            interpreter_commit: "ptxfuzz 0.1.0".into(),
            seed: Some(1),
            started_at: now,
        };
        let counters = api::campaigns::Counters {
            cases: cases_isa + cases_compiled,
            cases_isa,
            cases_compiled,
            ..Default::default()
        };
        let campaign = api::campaigns::Campaign { id: uuid::Uuid::nil(), start, counters, last_heartbeat_at: now, ended_at: None };
        Live { campaign, seconds: 10.0 }
    }

    #[test]
    fn a_campaign_in_both_modes_shows_each_modes_throughput() {
        let both = campaigns_table(&[live(1_000_000_000, 100_000_000)]).into_string();
        assert!(both.contains("110.00 M/s cases"), "{both}");
        assert!(both.contains("isa 100.00 M/s, compiled 10.00 M/s"), "{both}");
        let one = campaigns_table(&[live(5_000_000, 0)]).into_string();
        assert!(one.contains("500.0 k/s cases") && !one.contains("compiled"), "{one}");
    }
}
