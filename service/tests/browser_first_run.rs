//! The first run in a real headless Chromium (issue #18): on a machine with PostgreSQL's
//! binaries and no database running, `ptxfuzz-server serve --import DIR` (the README's third
//! command; DIR the H100 campaign's finding folders) with a fresh --data-dir prints its
//! `dashboard:` line within 30 s; the browser opens the line's link and is logged in (a finding
//! shows the triage controls, and a triage saved through them is recorded); the findings list,
//! paged through, shows every folder's signature once; the same link in a fresh browser logs
//! nobody in; the clusters page (issue #13) lists the campaign's root causes, open and largest
//! first, and one click on a cluster's page triages all its findings; SIGTERM stops the server
//! and its cluster cleanly. Every step is screenshotted
//! into `$CARGO_TARGET_TMPDIR/screenshots/login-NN-name.png` (docs/dashboard.md).
//!
//! As browser.rs: missing `chromium`/`chromedriver` fail the test (run
//! `scripts/install-browser`); `PTXFUZZ_SKIP_BROWSER=1` skips it on purpose.

use std::collections::BTreeSet;

use crate::support::private_server::{campaign, folder_signatures, Server, Tmp, DASHBOARD_LINE_WITHIN};
use crate::support::webdriver::{Browser, Shots};

/// The triage note saved through the link's session.
const NOTE: &str = "seen in the H100 campaign";

/// The signatures the findings list shows on every page (following `a#next-page` from the
/// page the browser is on), in order; the first and the last page are screenshotted.
async fn listed_signatures(b: &Browser, shots: &mut Shots) -> Vec<String> {
    let mut all = Vec::new();
    let mut page = 1;
    loop {
        b.wait_for("table#findings").await;
        for code in b.find_all("table#findings tr.finding a.finding-link code").await {
            all.push(b.text(&code).await);
        }
        if page == 1 {
            shots.take(b, "findings-page-1").await;
        }
        let Some(next) = b.find_all("a#next-page").await.into_iter().next() else { break };
        let before = b.current_url().await;
        b.click(&next).await;
        b.wait_for_url("the next page of findings", |u| u != before).await;
        page += 1;
    }
    if page > 1 {
        shots.take(b, &format!("findings-page-{page}-last")).await;
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_with_an_import_logs_one_browser_in_through_its_link_and_lists_every_finding_folder() {
    let _alone = crate::alone().await;
    let Some((chromium, chromedriver)) = crate::support::webdriver::binaries_or_skip() else { return };
    let tmp = Tmp::new("first-run");
    let out = campaign(&tmp);
    let signatures = folder_signatures(&out);
    let n = signatures.len();
    assert!(n > 50, "the campaign has more folders than one page of the list (50): {n}");
    let data = tmp.0.join("data");
    assert!(!data.exists(), "a fresh --data-dir");

    // Server::start panics when no `dashboard:` line comes within 30 s (initdb and import included).
    let mut server = tokio::task::block_in_place(|| Server::start(&data, &[&out]));
    println!("dashboard line after {:.1} s", server.ready_after.as_secs_f64());
    assert!(server.ready_after < DASHBOARD_LINE_WITHIN);
    let imported = server.lines.iter().find(|l| l.starts_with("imported ")).expect("an `imported` line");
    assert!(imported.ends_with(&format!("{n} finding folder(s), {n} new, 0 already present")), "{imported}");
    assert!(server.link.starts_with("http://127.0.0.1:") && server.link.contains("/?login="), "{}", server.link);

    // What the terminal showed, as a text file in the browser.
    let mut shots = Shots::fresh(Some("login"));
    std::fs::create_dir_all(&shots.dir).unwrap();
    let transcript = shots.dir.join("login-serve-stdout.txt");
    let command = format!("$ ptxfuzz-server serve --data-dir {} --import {}", data.display(), out.display());
    let took = format!("(the dashboard line {:.1} s after the start)", server.ready_after.as_secs_f64());
    std::fs::write(&transcript, format!("{command}\n{}\n{took}\n", server.lines.join("\n"))).unwrap();
    let b = Browser::start(&chromium, &chromedriver).await;
    b.goto(&format!("file://{}", transcript.display())).await;
    assert!(b.page_text().await.contains(&format!("dashboard: {}", server.link)));
    shots.take(&b, "dashboard-line").await;

    // The link: an admin session (HttpOnly cookie), and the secret leaves the address bar.
    b.goto(&server.link).await;
    let home = format!("{}/", server.base);
    b.wait_for_url("the overview without the secret", |u| u == home).await;
    let who = b.text(&b.wait_for(".who span").await).await;
    assert_eq!(who, "dashboard login link (admin)", "the header names the link's session");
    let cookies = b.cookies().await;
    assert!(cookies.iter().any(|c| c["name"] == "ptxfuzz_session" && c["httpOnly"] == true), "{cookies:?}");
    let summary = b.text(&b.find("p.summary").await).await;
    assert!(summary.starts_with(&format!("{n} findings ·")), "the overview counts every folder: {summary}");
    shots.take(&b, "overview-logged-in").await;

    // The list, page by page: every folder's signature, none twice.
    b.click(&b.find("nav a[href=\"/findings\"]").await).await;
    b.wait_for_url("the findings list", |u| u.ends_with("/findings")).await;
    let count = b.text(&b.wait_for("#count").await).await;
    assert_eq!(count, format!("{n} findings"));
    let listed = listed_signatures(&b, &mut shots).await;
    assert_eq!(listed.len(), n, "one row per finding folder across the pages");
    assert_eq!(listed.into_iter().collect::<BTreeSet<_>>(), signatures, "the rows are the folders' signatures");

    // A finding: the triage controls, and a triage through them is recorded.
    let link = b.find("table#findings tr.finding a.finding-link").await;
    let href = b.attr(&link, "href").await.expect("finding link has an href");
    b.click(&link).await;
    b.wait_for("form#triage").await;
    for control in ["form#triage input[name=csrf]", "form#triage textarea[name=note]", "form#file-regression input[name=title]"] {
        b.find(control).await;
    }
    b.select("form#triage select[name=status]", "confirmed-hardware").await;
    b.fill("form#triage textarea[name=note]", NOTE).await;
    shots.take(&b, "finding-triage-controls").await;
    b.click(&b.find("form#triage button[type=submit]").await).await;
    let note = b.text(&b.wait_for("table#history td.note").await).await;
    assert_eq!(note, NOTE);
    assert_eq!(b.value(&b.find("form#triage select[name=status]").await).await, "confirmed-hardware");
    let api: serde_json::Value = reqwest::get(format!("{}/api/v1{href}", server.base)).await.unwrap().json().await.unwrap();
    assert_eq!(api["finding"]["status"], "confirmed-hardware", "the triage is stored: {api}");
    shots.take(&b, "finding-triaged").await;

    // The clusters page (issue #13): the campaign in a few root causes, open ones first and
    // largest first; the bf16-as-f16 cluster's page, and one click triages all its findings.
    b.click(&b.find("nav a[href=\"/clusters\"]").await).await;
    b.wait_for("table#clusters").await;
    let rows = b.find_all("table#clusters tr.cluster").await;
    assert!((1..=12).contains(&rows.len()), "the 281 findings in at most 12 clusters: {}", rows.len());
    let mut sizes = Vec::new();
    for r in &rows {
        let cells = b.find_in(r, "td").await;
        sizes.push((b.text(&cells[4]).await == "new", b.text(&cells[2]).await.parse::<i64>().unwrap()));
    }
    let mut ordered = sizes.clone();
    ordered.sort_by_key(|&(open, n)| (!open, std::cmp::Reverse(n)));
    assert_eq!(sizes, ordered, "open clusters first, largest first");
    assert_eq!(sizes.iter().map(|s| s.1).sum::<i64>(), n as i64, "every finding in one cluster");
    shots.take(&b, "clusters").await;
    let mut bf16 = None;
    for r in &rows {
        let model = b.find_in(r, "td small code").await;
        if b.text(&model[0]).await == "bf16-as-f16" {
            bf16 = b.find_in(r, "a.cluster-link").await.into_iter().next();
        }
    }
    let bf16 = bf16.expect("a cluster explained by bf16-as-f16 (bf16 computed as f16)");
    b.click(&bf16).await;
    b.wait_for("form#cluster-triage").await;
    let hex = b.text(&b.find("pre#example-hex").await).await;
    assert!(hex.contains("0x"), "the worked example in hex: {hex}");
    let cluster = b.current_url().await.rsplit('/').next().unwrap().to_string();
    shots.take(&b, "cluster").await;
    b.click(&b.find("form#cluster-triage button[value=confirmed-hardware]").await).await;
    b.wait_for_url("the cluster page again", |u| u.ends_with(&format!("/clusters/{cluster}"))).await;
    // The page posts and comes back to the same URL: wait for the new status, not the old
    // page's element (reading that one as it is replaced was a stale-element failure).
    assert_eq!(b.wait_for_text("#cluster-status", "confirmed-hardware").await, "confirmed-hardware");
    let page: serde_json::Value = reqwest::get(format!("{}/api/v1/findings?cluster={cluster}&limit=500", server.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let items = page["items"].as_array().unwrap();
    assert!(items.len() > 100, "the bf16 cluster holds most of the campaign: {}", items.len());
    assert!(items.iter().all(|f| f["status"] == "confirmed-hardware"), "one click triaged every finding of the cluster");
    // The cluster marked as a known divergence from its page: one rule naming the cluster.
    b.fill("form#cluster-known textarea[name=reason]", "bf16 fma compiled as f16 (SASS: HADD2.F32, FFMA.RZ, F2FP)").await;
    b.click(&b.find("form#cluster-known button").await).await;
    let rules = b.text(&b.wait_for("#cluster-known-rules").await).await;
    assert!(rules.contains("compiled as f16"), "{rules}");
    let known: serde_json::Value =
        reqwest::get(format!("{}/api/v1/known-divergences", server.base)).await.unwrap().json().await.unwrap();
    let cluster_id: i64 = cluster.parse().unwrap();
    assert!(known.as_array().unwrap().iter().any(|k| k["cluster"] == cluster_id), "{known}");
    assert!(b.find_all("form#cluster-regression").await.len() == 1, "the file-as-regression form");
    shots.take(&b, "cluster-triaged").await;
    b.quit().await;
    drop(b);

    // The same link in a fresh browser (no cookies): refused, nobody logged in.
    let b = Browser::start(&chromium, &chromedriver).await;
    b.goto(&server.link).await;
    let title = b.text(&b.wait_for("main h1").await).await;
    assert_eq!(title, "Login link refused");
    assert!(b.page_text().await.contains("used already"));
    assert!(b.exists(".who a[href=\"/login\"]").await, "the header offers to log in");
    assert!(b.cookies().await.iter().all(|c| c["name"] != "ptxfuzz_session"), "no session cookie");
    shots.take(&b, "link-used-again").await;
    b.goto(&format!("{}{href}", server.base)).await;
    b.wait_for("pre#program").await;
    assert!(!b.exists("form#triage").await && !b.exists("form#file-regression").await, "no triage controls");
    b.find("main a[href^=\"/login\"]").await;
    assert_eq!(b.text(&b.find("table#history td.note").await).await, NOTE, "the first session's triage is visible to readers");
    shots.take(&b, "finding-second-browser").await;
    b.quit().await;
    drop(b);

    // SIGTERM: the server exits 0 and stops its cluster (pg_ctl's stop removes postmaster.pid).
    let status = tokio::task::block_in_place(|| server.stop()).expect("ptxfuzz-server exits within 30 s of SIGTERM");
    assert!(status.success(), "ptxfuzz-server after SIGTERM: {status}");
    assert!(!data.join("pgdata/postmaster.pid").exists(), "the private cluster stopped with the server");
}
