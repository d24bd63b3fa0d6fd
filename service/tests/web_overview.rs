//! The overview (`GET /`) and the regressions matrix (`GET /regressions`) render what the
//! database holds: counts by status and family from the trigger-kept `finding_counts`, live
//! campaigns with their throughput, matrix cells pass/fail/fixed with their run history; and
//! they escape what workers and users wrote.

use crate::common::*;

use chrono::{Duration, Utc};
use serde_json::json;

async fn insert_finding(s: &TestServer, sig: &str, opcode: &str, days_ago: i64) -> i64 {
    sqlx::query_scalar(
        "INSERT INTO findings (signature, instruction, opcode, type, modifiers, class, operand_classes, first_seen)
         VALUES ($1, $2 || '.rn.f32', $2, 'f32', '{rn}', 'rounding', 'normal.normal', now() - make_interval(days => $3))
         RETURNING id",
    )
    .bind(sig)
    .bind(opcode)
    .bind(days_ago as i32)
    .fetch_one(&s.pool)
    .await
    .unwrap()
}

async fn html(s: &TestServer, path: &str) -> String {
    let r = s.get(path).send().await.unwrap();
    assert_eq!(r.status(), 200, "{path}");
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    r.text().await.unwrap()
}

/// The HTML of the element that starts with `start`, up to the first `end` after it.
fn fragment<'a>(page: &'a str, start: &str, end: &str) -> &'a str {
    let i = page.find(start).unwrap_or_else(|| panic!("no {start} in {page}"));
    let j = page[i..].find(end).unwrap_or_else(|| panic!("no {end} after {start}"));
    &page[i..i + j]
}

#[tokio::test]
async fn overview_counts_findings_by_status_family_and_day() {
    let s = TestServer::start().await;
    for i in 0..3 {
        insert_finding(&s, &format!("add-{i}"), "add", 0).await;
    }
    let rcp = insert_finding(&s, "rcp-0", "rcp", 2).await;
    insert_finding(&s, "old", "mul", 90).await;
    // A status change moves the count (the update trigger), as triage does.
    sqlx::query("UPDATE findings SET status = 'confirmed-hardware' WHERE id = $1").bind(rcp).execute(&s.pool).await.unwrap();

    let page = html(&s, "/").await;
    for id in ["by-status", "by-family", "over-time"] {
        let sec = fragment(&page, &format!("<section id=\"{id}\""), "</section>");
        assert!(sec.contains("<svg") && sec.contains("</svg>"), "{id}: {sec}");
    }
    let status = fragment(&page, "<section id=\"by-status\"", "</section>");
    assert!(status.contains("new</a>: 4"), "{status}");
    assert!(status.contains("confirmed-hardware</a>: 1"), "{status}");
    let family = fragment(&page, "<section id=\"by-family\"", "</section>");
    assert!(family.contains("add: 3") && family.contains("rcp: 1") && family.contains("mul: 1"), "{family}");
    // Only the last 30 days: the 90-day-old finding is not new in the window.
    let time = fragment(&page, "<section id=\"over-time\"", "</section>");
    assert!(time.contains("4 new in 30 days"), "{time}");
    assert!(page.contains("5 findings"), "{page}");
}

#[tokio::test]
async fn folding_the_count_deltas_keeps_every_count_and_never_waits_for_another_folder() {
    use service::db::overview::{compact_finding_counts, finding_counts, COMPACT_LOCK};
    let s = TestServer::start().await;
    for i in 0..3 {
        insert_finding(&s, &format!("add-{i}"), "add", 0).await;
    }
    let moved = insert_finding(&s, "rcp-0", "rcp", 0).await;
    let gone = insert_finding(&s, "mul-0", "mul", 2).await;
    sqlx::query("UPDATE findings SET status = 'wont-fix', first_seen = first_seen - interval '3 days' WHERE id = $1")
        .bind(moved)
        .execute(&s.pool)
        .await
        .unwrap();
    sqlx::query("DELETE FROM findings WHERE id = $1").bind(gone).execute(&s.pool).await.unwrap();
    let before = finding_counts(&s.pool).await.unwrap();
    assert_eq!(before.total, 4);
    assert_eq!(before.by_status, vec![("new".to_string(), 3), ("wont-fix".to_string(), 1)]);

    // Another folder holds the lock: this one returns at once and folds nothing.
    let mut other = s.pool.begin().await.unwrap();
    sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(COMPACT_LOCK).execute(&mut *other)
        .await
        .unwrap();
    assert_eq!(compact_finding_counts(&s.pool).await.unwrap(), 0);
    other.rollback().await.unwrap();

    // Five inserts (one delta each: one statement each), one update (a pair), one delete.
    assert_eq!(compact_finding_counts(&s.pool).await.unwrap(), 5 + 2 + 1);
    assert_eq!(finding_counts(&s.pool).await.unwrap(), before);
    let deltas: i64 = sqlx::query_scalar("SELECT count(*) FROM finding_count_deltas").fetch_one(&s.pool).await.unwrap();
    assert_eq!(deltas, 0);
    assert_eq!(compact_finding_counts(&s.pool).await.unwrap(), 0, "nothing left to fold");
}

#[tokio::test]
async fn live_campaigns_show_throughput_and_escaped_hosts() {
    let s = TestServer::start().await;
    let start = |host: &str, secs_ago: i64| {
        json!({"worker_host": host, "target": "cuda:0", "device": "H100", "gpu_name": "NVIDIA H100", "sm": 90,
               "driver_version": "570.1", "cuda_version": "12.8", "interpreter_commit": "ptxfuzz 0.1.0",
               "seed": 1, "started_at": Utc::now() - Duration::seconds(secs_ago)})
    };
    let live = uuid::Uuid::new_v4();
    let ended = uuid::Uuid::new_v4();
    for (id, host) in [(live, "<b>x</b>"), (ended, "ended-host")] {
        let r = s.put(&format!("/api/v1/campaigns/{id}"), &s.worker).json(&start(host, 100)).send().await.unwrap();
        assert_eq!(r.status(), 201);
    }
    let counters = json!({"cases": 200000, "programs": 300, "mismatches": 9, "findings": 7, "signatures": 2, "engine_faults": 0});
    let hb = |ended: bool| json!({"counters": counters, "ended": ended});
    assert_eq!(s.post(&format!("/api/v1/campaigns/{live}/heartbeat"), &s.worker).json(&hb(false)).send().await.unwrap().status(), 200);
    assert_eq!(s.post(&format!("/api/v1/campaigns/{ended}/heartbeat"), &s.worker).json(&hb(true)).send().await.unwrap().status(), 200);

    let page = html(&s, "/").await;
    let table = fragment(&page, "<table id=\"campaigns\"", "</table>");
    assert!(!page.contains("<b>x</b>"), "the host is escaped");
    assert!(table.contains("&lt;b&gt;x&lt;/b&gt;"), "{table}");
    assert!(!table.contains("ended-host"), "an ended campaign is not live: {table}");
    // 200000 cases in about 100 s: about 2 k cases per second.
    let rate = fragment(table, "class=\"num throughput\">", "</td>");
    assert!(rate.contains(" k/s cases"), "{rate}");
    let k: f64 = rate.trim_start_matches("class=\"num throughput\">").split(' ').next().unwrap().parse().unwrap();
    assert!((1.5..=2.1).contains(&k), "{rate}");
    assert!(table.contains("<td class=\"num\">300</td>") && table.contains("<td class=\"num\">7</td>"), "{table}");
}

async fn insert_regression(s: &TestServer, title: &str) -> i64 {
    sqlx::query_scalar(
        "INSERT INTO regressions (title, program, program_text, inputs, expected, sm, created_by)
         VALUES ($1, '{}', 'add.rn.f32 %f2, %f0, %f1;', '{}', '{}', 90, 'test') RETURNING id",
    )
    .bind(title)
    .fetch_one(&s.pool)
    .await
    .unwrap()
}

async fn insert_run(s: &TestServer, regression: i64, gpu: &str, driver: &str, commit: &str, passed: bool, minutes_ago: i64) {
    sqlx::query(
        "INSERT INTO regression_runs (regression_id, lease_id, at, worker, target, gpu_name, driver_version,
                                      interpreter_commit, passed, actual)
         VALUES ($1, $2, now() - make_interval(mins => $3), 'w1', 'cuda:0', $4, $5, $6, $7, '{}')",
    )
    .bind(regression)
    .bind(uuid::Uuid::new_v4())
    .bind(minutes_ago as i32)
    .bind(gpu)
    .bind(driver)
    .bind(commit)
    .bind(passed)
    .execute(&s.pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn regression_matrix_cells_show_pass_fail_fixed_and_history() {
    let s = TestServer::start().await;
    let failing = insert_regression(&s, "<script>alert(1)</script>").await;
    let fixed = insert_regression(&s, "fixed one").await;
    insert_run(&s, failing, "H100", "570.1", "commit-a", false, 10).await;
    insert_run(&s, failing, "A100", "550.2", "commit-a", true, 10).await;
    insert_run(&s, fixed, "H100", "570.1", "commit-old", false, 20).await;
    insert_run(&s, fixed, "H100", "570.1", "commit-new", true, 5).await;

    let page = html(&s, "/regressions").await;
    assert!(!page.contains("<script>alert(1)"), "titles are escaped");
    let matrix = fragment(&page, "<table id=\"matrix\"", "</table>");
    let head = fragment(matrix, "<thead>", "</thead>");
    assert_eq!(head.matches("<th class=\"col\">").count(), 2, "one column per GPU/driver: {head}");
    // Columns sort by GPU name: A100 then H100.
    let row = fragment(matrix, &format!("<tr class=\"regression\" id=\"r{failing}\""), "</tr>");
    let cells: Vec<&str> = row.split("<td").skip(1).collect();
    assert_eq!(cells.len(), 2, "{row}");
    assert!(cells[0].starts_with(" class=\"pass\""), "{row}");
    assert!(cells[1].starts_with(" class=\"fail\"") && cells[1].contains("commit-a"), "{row}");
    let row = fragment(matrix, &format!("<tr class=\"regression\" id=\"r{fixed}\""), "</tr>");
    let cells: Vec<&str> = row.split("<td").skip(1).collect();
    assert!(cells[0].starts_with(" class=\"none\""), "no run on A100: {row}");
    assert!(cells[1].starts_with(" class=\"pass fixed\""), "{row}");
    // The title lists both runs, newest first, with their commits.
    let title = fragment(cells[1], "title=\"", "\">");
    let (new, old) = (title.find("commit-new").unwrap(), title.find("commit-old").unwrap());
    assert!(new < old, "{title}");
    assert!(!page.contains("id=\"next-page\""), "one page only");
}

#[tokio::test]
async fn regression_matrix_pages_by_id_and_refuses_bad_cursors() {
    let s = TestServer::start().await;
    let mut ids = Vec::new();
    for i in 0..51 {
        ids.push(insert_regression(&s, &format!("reg {i}")).await);
    }
    let page = html(&s, "/regressions").await;
    assert_eq!(page.matches("<tr class=\"regression\"").count(), 50);
    assert!(!page.contains(&format!("id=\"r{}\"", ids[0])), "the oldest is on the next page");
    let next = fragment(&page, "<a id=\"next-page\" href=\"", "\">").trim_start_matches("<a id=\"next-page\" href=\"").to_string();
    let second = html(&s, &next).await;
    assert_eq!(second.matches("<tr class=\"regression\"").count(), 1);
    assert!(second.contains(&format!("id=\"r{}\"", ids[0])));
    // A bad cursor is an HTML error page, as on the other dashboard pages.
    let r = s.get("/regressions?after=abc").send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("is not a regression id"));
}
