//! Dashboard sessions: login through the form (HttpOnly, SameSite=Strict cookie), bad tokens,
//! logout, and the writing forms' guards (session, role, CSRF) on triage and filing.

use crate::common::*;
use crate::support::reports::*;
use reqwest::header::COOKIE;
use crate::support::web::*;

const A: &str = "add.rz.f32~rounding~normal.normal~sm90";

/// One finding, seeded through the API; its id.
async fn seed(s: &TestServer) -> i64 {
    let r = s.post("/api/v1/findings/batch", &s.worker).json(&batch(None, vec![report(A, 1, 1)])).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let res: api::findings::IngestResult = r.json().await.unwrap();
    res.finding_ids[0]
}

async fn status_of(s: &TestServer, id: i64) -> String {
    sqlx::query_scalar::<_, String>("SELECT status FROM findings WHERE id = $1").bind(id).fetch_one(&s.pool).await.unwrap()
}

async fn history_len(s: &TestServer, id: i64) -> i64 {
    sqlx::query_scalar::<_, i64>("SELECT count(*) FROM triage_events WHERE finding_id = $1").bind(id).fetch_one(&s.pool).await.unwrap()
}

/// POST a form with a cookie (or none).
async fn post_form(s: &TestServer, path: &str, cookie: Option<&str>, form: &[(&str, &str)]) -> reqwest::Response {
    let mut rq = browser().post(format!("{}{path}", s.url)).form(form);
    if let Some(k) = cookie {
        rq = rq.header(COOKIE, k);
    }
    rq.send().await.unwrap()
}

#[tokio::test]
async fn login_sets_an_http_only_strict_cookie_and_shows_the_name() {
    let s = TestServer::start().await;
    let c = browser();
    let r = login_response(&s, &c, &s.triager).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/findings");
    let set = set_cookies(&r).into_iter().find(|c| c.starts_with("ptxfuzz_session=")).expect("session cookie");
    assert!(set.contains("HttpOnly"), "{set}");
    assert!(set.contains("SameSite=Strict"), "{set}");
    assert!(set.contains("Path=/"), "{set}");
    assert!(!set.contains("Secure"), "loopback default is not Secure: {set}");
    let cookie = login(&s, &c, &s.triager).await;
    let (status, html) = page(&s, &c, "/findings", Some(&cookie)).await;
    assert_eq!(status, 200);
    assert!(html.contains("test-triager (triager)"), "{html}");
    assert!(html.contains("action=\"/logout\""));
    assert!(!html.contains(&s.triager), "the token is never echoed");
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM web_sessions").fetch_one(&s.pool).await.unwrap();
    assert_eq!(stored, 2);
}

#[tokio::test]
async fn bad_token_is_401_sets_no_session_and_is_not_echoed() {
    let s = TestServer::start().await;
    let c = browser();
    let r = login_response(&s, &c, "ptxf_not_a_token_<b>").await;
    assert_eq!(r.status(), 401);
    assert!(cookie_value(&r, "ptxfuzz_session").is_none());
    let html = r.text().await.unwrap();
    assert!(html.contains("id=\"login\""), "the form again");
    assert!(html.contains("Unknown or revoked token"));
    assert!(!html.contains("ptxf_not_a_token"), "the token is never echoed");
}

#[tokio::test]
async fn login_without_the_double_submit_cookie_is_refused() {
    let s = TestServer::start().await;
    let r = post_form(&s, "/login", None, &[("token", &s.triager), ("csrf", "abc"), ("next", "/")]).await;
    assert_eq!(r.status(), 403);
    assert!(cookie_value(&r, "ptxfuzz_session").is_none());
}

#[tokio::test]
async fn logout_deletes_the_session_and_clears_the_cookie() {
    let s = TestServer::start().await;
    let c = browser();
    let cookie = login(&s, &c, &s.admin).await;
    let (_, html) = page(&s, &c, "/findings", Some(&cookie)).await;
    let csrf = csrf_of(&html);
    let r = post_form(&s, "/logout", Some(&cookie), &[("csrf", &csrf)]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(cookie_value(&r, "ptxfuzz_session").as_deref(), Some(""));
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM web_sessions").fetch_one(&s.pool).await.unwrap();
    assert_eq!(left, 0);
    let (_, html) = page(&s, &c, "/findings", Some(&cookie)).await;
    assert!(!html.contains("test-admin"), "the old cookie no longer logs in");
}

#[tokio::test]
async fn revoked_token_ends_its_session() {
    let s = TestServer::start().await;
    let c = browser();
    let cookie = login(&s, &c, &s.triager).await;
    sqlx::query("UPDATE api_tokens SET revoked_at = now() WHERE name = 'test-triager'").execute(&s.pool).await.unwrap();
    let (_, html) = page(&s, &c, "/findings", Some(&cookie)).await;
    assert!(!html.contains("test-triager"));
}

#[tokio::test]
async fn triage_form_with_session_and_csrf_changes_the_finding_and_records_history() {
    let s = TestServer::start().await;
    let id = seed(&s).await;
    let c = browser();
    let cookie = login(&s, &c, &s.triager).await;
    let (_, html) = page(&s, &c, &format!("/findings/{id}"), Some(&cookie)).await;
    assert!(html.contains("id=\"triage\""), "triager sees the form");
    let csrf = csrf_of(&html);
    let r = post_form(&s, &format!("/findings/{id}/triage"), Some(&cookie), &[
        ("csrf", &csrf), ("status", "confirmed-hardware"), ("note", "seen on H100"), ("duplicate_of", ""),
    ])
    .await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], format!("/findings/{id}"));
    assert_eq!(status_of(&s, id).await, "confirmed-hardware");
    let actor: String = sqlx::query_scalar("SELECT actor FROM triage_events WHERE finding_id = $1").bind(id).fetch_one(&s.pool).await.unwrap();
    assert_eq!(actor, "test-triager");
    let (_, html) = page(&s, &c, &format!("/findings/{id}"), Some(&cookie)).await;
    assert!(html.contains("seen on H100"));
}

#[tokio::test]
async fn wrong_or_missing_csrf_is_403_and_changes_nothing() {
    let s = TestServer::start().await;
    let id = seed(&s).await;
    let c = browser();
    let cookie = login(&s, &c, &s.triager).await;
    for form in [vec![("csrf", "0000"), ("status", "fixed")], vec![("status", "fixed")]] {
        let r = post_form(&s, &format!("/findings/{id}/triage"), Some(&cookie), &form).await;
        assert_eq!(r.status(), 403);
    }
    let r = post_form(&s, &format!("/findings/{id}/regression"), Some(&cookie), &[("csrf", "x"), ("title", "t")]).await;
    assert_eq!(r.status(), 403);
    assert_eq!(status_of(&s, id).await, "new");
    assert_eq!(history_len(&s, id).await, 0);
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM regressions").fetch_one(&s.pool).await.unwrap();
    assert_eq!(n, 0);
}

#[tokio::test]
async fn no_session_redirects_to_login() {
    let s = TestServer::start().await;
    let id = seed(&s).await;
    let r = post_form(&s, &format!("/findings/{id}/triage"), None, &[("csrf", ""), ("status", "fixed")]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], format!("/login?next=/findings/{id}"));
    assert_eq!(status_of(&s, id).await, "new");
    let (_, html) = page(&s, &browser(), &format!("/findings/{id}"), None).await;
    assert!(!html.contains("id=\"triage\""), "no form without a session");
    assert!(html.contains(&format!("/login?next=/findings/{id}")));
}

#[tokio::test]
async fn worker_session_can_read_but_not_triage() {
    let s = TestServer::start().await;
    let id = seed(&s).await;
    let c = browser();
    let cookie = login(&s, &c, &s.worker).await;
    let (status, html) = page(&s, &c, &format!("/findings/{id}"), Some(&cookie)).await;
    assert_eq!(status, 200);
    assert!(!html.contains("id=\"triage\""));
    let csrf = csrf_of(&html);
    let r = post_form(&s, &format!("/findings/{id}/triage"), Some(&cookie), &[("csrf", &csrf), ("status", "fixed")]).await;
    assert_eq!(r.status(), 403);
    assert_eq!(status_of(&s, id).await, "new");
}

#[tokio::test]
async fn file_as_regression_form_files_it_and_redirects_to_the_matrix() {
    let s = TestServer::start().await;
    let id = seed(&s).await;
    let c = browser();
    let cookie = login(&s, &c, &s.triager).await;
    let (_, html) = page(&s, &c, &format!("/findings/{id}"), Some(&cookie)).await;
    let csrf = csrf_of(&html);
    let title = "<script>alert(1)</script>";
    let r = post_form(&s, &format!("/findings/{id}/regression"), Some(&cookie), &[("csrf", &csrf), ("title", title)]).await;
    assert_eq!(r.status(), 303);
    let (rid, stored, by): (i64, String, String) =
        sqlx::query_as("SELECT id, title, created_by FROM regressions WHERE finding_id = $1").bind(id).fetch_one(&s.pool).await.unwrap();
    assert_eq!(r.headers()["location"], format!("/regressions#r{rid}"));
    assert_eq!((stored.as_str(), by.as_str()), (title, "test-triager"));
}

#[tokio::test]
async fn note_and_title_with_markup_render_escaped() {
    let s = TestServer::start().await;
    let id = seed(&s).await;
    let c = browser();
    let cookie = login(&s, &c, &s.triager).await;
    let (_, html) = page(&s, &c, &format!("/findings/{id}"), Some(&cookie)).await;
    let csrf = csrf_of(&html);
    let evil = "<script>alert(1)</script>";
    let r = post_form(&s, &format!("/findings/{id}/triage"), Some(&cookie), &[("csrf", &csrf), ("status", "wont-fix"), ("note", evil)]).await;
    assert_eq!(r.status(), 303);
    let r = post_form(&s, &format!("/findings/{id}/regression"), Some(&cookie), &[("csrf", &csrf), ("title", evil)]).await;
    assert_eq!(r.status(), 303);
    let (_, html) = page(&s, &c, &format!("/findings/{id}"), Some(&cookie)).await;
    assert!(!html.contains(evil), "raw markup on the page");
    assert_eq!(html.matches("&lt;script&gt;alert(1)&lt;/script&gt;").count(), 2, "note and title, escaped");
}

#[tokio::test]
async fn the_cluster_known_form_needs_a_triager_its_csrf_token_and_a_reason() {
    let s = TestServer::start().await;
    let id = seed(&s).await;
    let cluster: i64 = sqlx::query_scalar("SELECT cluster_id FROM findings WHERE id = $1").bind(id).fetch_one(&s.pool).await.unwrap();
    let path = format!("/clusters/{cluster}/known");
    let rules = || async { sqlx::query_scalar::<_, i64>("SELECT count(*) FROM known_divergences WHERE cluster_id IS NOT NULL").fetch_one(&s.pool).await.unwrap() };
    // No session: to the login page; a worker: refused; a forged token: refused.
    let r = post_form(&s, &path, None, &[("csrf", ""), ("reason", "r")]).await;
    assert_eq!((r.status().as_u16(), r.headers()["location"].to_str().unwrap()), (303, format!("/login?next=/clusters/{cluster}").as_str()));
    let c = browser();
    let worker = login(&s, &c, &s.worker).await;
    let (_, html) = page(&s, &c, &format!("/clusters/{cluster}"), Some(&worker)).await;
    assert!(!html.contains("id=\"cluster-known\""), "no form for a worker");
    let r = post_form(&s, &path, Some(&worker), &[("csrf", &csrf_of(&html)), ("reason", "r")]).await;
    assert_eq!(r.status(), 403);
    let c = browser();
    let cookie = login(&s, &c, &s.triager).await;
    let (_, html) = page(&s, &c, &format!("/clusters/{cluster}"), Some(&cookie)).await;
    assert!(html.contains("id=\"cluster-known\"") && html.contains("id=\"cluster-regression\""), "{html}");
    let csrf = csrf_of(&html);
    let r = post_form(&s, &path, Some(&cookie), &[("csrf", "forged"), ("reason", "r")]).await;
    assert_eq!(r.status(), 403);
    // An empty reason is refused saying why; an unknown cluster is 404; then one rule.
    let r = post_form(&s, &path, Some(&cookie), &[("csrf", &csrf), ("reason", "  ")]).await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("say why"));
    let r = post_form(&s, "/clusters/999999/known", Some(&cookie), &[("csrf", &csrf), ("reason", "r")]).await;
    assert_eq!(r.status(), 404);
    assert_eq!(rules().await, 0);
    let r = post_form(&s, &path, Some(&cookie), &[("csrf", &csrf), ("reason", "seen on sm_90")]).await;
    assert_eq!((r.status().as_u16(), r.headers()["location"].to_str().unwrap()), (303, format!("/clusters/{cluster}").as_str()));
    assert_eq!(rules().await, 1);
    let (_, html) = page(&s, &c, &format!("/clusters/{cluster}"), Some(&cookie)).await;
    assert!(html.contains("id=\"cluster-known-rules\"") && html.contains("seen on sm_90"));
}

#[tokio::test]
async fn private_pages_need_a_session_or_a_token_and_send_a_browser_to_log_in() {
    let s = TestServer::start_with(true).await;
    let id = seed(&s).await;
    let c = browser();
    // Every page and download of a finding: to the login form, which comes back to it.
    for path in ["/".to_string(), "/findings?status=new".into(), format!("/findings/{id}"), format!("/findings/{id}/repro.json"), format!("/findings/{id}/repro.ptx"), "/clusters".into(), "/regressions".into(), "/sweeps".into()] {
        let r = c.get(format!("{}{path}", s.url)).send().await.unwrap();
        assert_eq!(r.status(), 303, "{path}");
        let to = r.headers()["location"].to_str().unwrap().to_string();
        assert_eq!(to, format!("/login?next={}", service::web::session::encode(&path)), "{path}");
        let body = r.text().await.unwrap();
        assert!(!body.contains(A), "{path} leaks the finding: {body}");
    }
    // The login form and its style sheet stay open, or nobody could log in.
    assert_eq!(page(&s, &c, "/login", None).await.0, 200);
    assert_eq!(page(&s, &c, "/static/style.css", None).await.0, 200);
    // A session of any role reads every page.
    let cookie = login(&s, &c, &s.worker).await;
    let (status, html) = page(&s, &c, &format!("/findings/{id}"), Some(&cookie)).await;
    assert_eq!(status, 200);
    assert!(html.contains(A), "{html}");
    // A script's token reads the downloads; a bad one is told why (401), not sent to a form.
    let r = c.get(format!("{}/findings/{id}/repro.json", s.url)).bearer_auth(&s.worker).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = c.get(format!("{}/findings/{id}/repro.json", s.url)).bearer_auth("ptxf_nope").send().await.unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn public_pages_need_no_session() {
    let s = TestServer::start().await;
    let id = seed(&s).await;
    let (status, html) = page(&s, &browser(), &format!("/findings/{id}"), None).await;
    assert_eq!(status, 200);
    assert!(html.contains(A));
}
