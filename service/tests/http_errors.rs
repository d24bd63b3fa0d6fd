//! Errors every client meets in the same form (a probe found exceptions): 405s and other
//! answers axum makes itself get a problem+json (API) or an HTML page (dashboard); a body over
//! `--max-body` names the limit; a compressed body is a 415; the bearer scheme in any case;
//! unknown query parameters refused by every list, API and dashboard; the expected set of a
//! finding's results in decimal too.

use api::findings::IngestResult;
use crate::common::*;
use crate::support::reports::*;

/// The problem's `type`, checking the rest as `expect_problem` does; and its `detail`.
async fn problem(r: reqwest::Response, status: u16) -> (String, String) {
    assert_eq!(r.status().as_u16(), status, "expected {status}");
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["status"], status);
    (body["type"].as_str().unwrap().to_string(), body["detail"].as_str().unwrap().to_string())
}

/// An HTML page with `status`; its text.
async fn html_page(r: reqwest::Response, status: u16) -> String {
    assert_eq!(r.status().as_u16(), status, "expected {status}");
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/html"), "{:?}", r.headers());
    let body = r.text().await.unwrap();
    assert!(body.contains("<html") || body.contains("<!DOCTYPE"), "{body}");
    body.replace("&#39;", "'")
}

#[tokio::test]
async fn a_405_is_a_problem_naming_the_allowed_methods_and_keeps_allow() {
    let s = TestServer::start().await;
    for (method, path, allowed) in [
        (reqwest::Method::GET, "/api/v1/leases", "POST"),
        (reqwest::Method::DELETE, "/api/v1/findings/1", "GET"),
        (reqwest::Method::PUT, "/healthz", "GET"),
    ] {
        let r = s.http.request(method.clone(), format!("{}{path}", s.url)).send().await.unwrap();
        let allow = r.headers().get("allow").map(|a| a.to_str().unwrap().to_string()).unwrap_or_default();
        assert!(allow.contains(allowed), "{method} {path}: Allow {allow}");
        let (kind, detail) = problem(r, 405).await;
        assert_eq!(kind, "/problems/method-not-allowed");
        assert!(detail.contains(&format!("{method} is not allowed on {path}")) && detail.contains(allowed), "{detail}");
    }
    // An unknown API path is still the 404 problem.
    let (kind, _) = problem(s.get("/api/v1/nope/1").send().await.unwrap(), 404).await;
    assert_eq!(kind, "/problems/not-found");
}

#[tokio::test]
async fn a_405_on_the_dashboard_is_an_html_page_and_keeps_allow() {
    let s = TestServer::start().await;
    let r = s.http.delete(format!("{}/findings", s.url)).send().await.unwrap();
    assert!(r.headers()["allow"].to_str().unwrap().contains("GET"), "{:?}", r.headers());
    let body = html_page(r, 405).await;
    assert!(body.contains("does not answer DELETE; it answers GET"), "{body}");
    // A path that is not UTF-8 (axum's plain-text rejection) is a page too.
    let body = html_page(s.get("/findings/%FF").send().await.unwrap(), 400).await;
    assert!(body.contains("class=\"error\""), "{body}");
}

#[tokio::test]
async fn a_body_over_max_body_names_the_limit_and_what_to_do() {
    let pool = service::db::connect(&fresh_database().await, 4).await.unwrap();
    let worker = service::auth::create_token(&pool, "w", service::auth::Role::Worker).await.unwrap();
    let app = service::http::app(service::AppState::new(pool, false), 65536);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let big = batch(None, (0..200).map(|i| report("add.rz.f32~rounding~normal.normal~sm90", i, 1)).collect());
    let r = reqwest::Client::new().post(format!("{url}/api/v1/findings/batch")).bearer_auth(&worker).json(&big).send().await.unwrap();
    let (kind, detail) = problem(r, 413).await;
    assert_eq!(kind, "/problems/too-large");
    for needle in ["65536 bytes", "split", "--max-body", "PTXFUZZ_MAX_BODY"] {
        assert!(detail.contains(needle), "{needle}: {detail}");
    }
}

#[tokio::test]
async fn a_compressed_body_is_a_415_asking_for_identity() {
    let s = TestServer::start().await;
    let gz = [0x1fu8, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let r = s
        .post("/api/v1/findings/batch", &s.worker)
        .header("content-type", "application/json")
        .header("content-encoding", "gzip")
        .body(gz.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["accept-encoding"], "identity");
    let (kind, detail) = problem(r, 415).await;
    assert_eq!(kind, "/problems/unsupported-encoding");
    assert!(detail.contains("Content-Encoding: gzip is not supported") && detail.contains("identity"), "{detail}");
    // identity is no encoding: the body is read as JSON.
    let r = s
        .post("/api/v1/findings/batch", &s.worker)
        .header("content-type", "application/json")
        .header("content-encoding", "identity")
        .json(&batch(None, vec![report("add.rz.f32~rounding~normal.normal~sm90", 1, 1)]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn the_bearer_scheme_is_accepted_in_any_case() {
    let s = TestServer::start_with(true).await;
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let r = s.get("/api/v1/known-divergences").header("authorization", format!("{scheme} {}", s.triager)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{scheme}");
        let r = s
            .http
            .post(format!("{}/api/v1/findings/batch", s.url))
            .header("authorization", format!("{scheme} {}", s.worker))
            .json(&batch(None, vec![report("add.rz.f32~rounding~normal.normal~sm90", 2, 1)]))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{scheme}");
        r.json::<IngestResult>().await.unwrap();
    }
    for bad in ["Basic dTpw".to_string(), "bearer".to_string(), "bearer   ".to_string(), format!("Bearerx {}", s.triager)] {
        let r = s.get("/api/v1/known-divergences").header("authorization", &bad).send().await.unwrap();
        expect_problem(r, 401).await;
    }
}

#[tokio::test]
async fn unknown_or_empty_parameters_are_refused_by_every_api_list() {
    let s = TestServer::start().await;
    for q in ["foo=1", "limit=5"] {
        let (kind, detail) = problem(s.get(&format!("/api/v1/known-divergences?{q}")).send().await.unwrap(), 400).await;
        assert_eq!(kind, "/problems/bad-query");
        assert!(detail.contains("unknown field") && detail.contains("takes no parameters"), "{detail}");
    }
    assert_eq!(s.get("/api/v1/known-divergences").send().await.unwrap().status(), 200);
    let detail = expect_problem(s.get("/api/v1/sweeps?kind=").send().await.unwrap(), 400).await;
    assert!(detail.contains("kind is empty") && detail.contains("math-check"), "{detail}");
    assert_eq!(s.get("/api/v1/sweeps?kind=sweep").send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn unknown_parameters_are_a_400_page_on_every_dashboard_list() {
    let s = TestServer::start().await;
    for (path, unknown, known) in [
        ("/findings?foo=bar", "foo", "instruction, opcode, type"),
        ("/clusters?after=1", "after", "status"),
        ("/regressions?limit=0", "limit", "after"),
        ("/sweeps?foo=1", "foo", "kind"),
    ] {
        let body = html_page(s.get(path).send().await.unwrap(), 400).await;
        assert!(body.contains(&format!("unknown parameter '{unknown}': this page takes {known}")), "{path}: {body}");
    }
    let body = html_page(s.get("/sweeps?kind=bogus").send().await.unwrap(), 400).await;
    assert!(body.contains("kind: 'bogus' is not a kind; one of sweep, math-check"), "{body}");
    for ok in ["/findings?status=new", "/clusters?status=new", "/regressions?after=", "/sweeps?kind=sweep", "/sweeps?kind="] {
        assert_eq!(s.get(ok).send().await.unwrap().status(), 200, "{ok}");
    }
}

#[tokio::test]
async fn the_expected_set_of_a_result_shows_its_decimal() {
    let s = TestServer::start().await;
    let r = s.post("/api/v1/findings/batch", &s.worker).json(&batch(None, vec![report("add.rz.f32~rounding~normal.normal~sm90", 3, 1)])).send().await.unwrap();
    let id = r.json::<IngestResult>().await.unwrap().finding_ids[0];
    let html = s.get(&format!("/findings/{id}")).send().await.unwrap().text().await.unwrap();
    // 0.5 + 3.07e-8 rounded toward zero is 0.5.
    let cell = "<td class=\"expected\"><code class=\"hex\">0x3f000000</code> <span class=\"dec\">0.5</span>";
    assert!(html.contains(cell), "{html}");
}
