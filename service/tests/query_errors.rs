//! Bad query parameters are reported, never ignored, in the form of the page asked for: the
//! API answers problem+json naming what is allowed, the dashboard an HTML page with the error.

use crate::common::*;

#[tokio::test]
async fn an_unknown_cluster_status_on_the_dashboard_is_a_400_page_naming_the_statuses() {
    let s = TestServer::start().await;
    let r = s.get("/clusters?status=x").send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let body = r.text().await.unwrap();
    assert!(body.contains("status: unknown status") && body.contains("confirmed-hardware"), "{body}");
    // A known status filters (nothing here), and no status lists all.
    assert_eq!(s.get("/clusters?status=new").send().await.unwrap().status(), 200);
    assert_eq!(s.get("/clusters").send().await.unwrap().status(), 200);
    // The API already reported it; it still does.
    expect_problem(s.get("/api/v1/clusters?status=x").send().await.unwrap(), 400).await;
}

#[tokio::test]
async fn a_bad_cursor_on_the_regressions_page_is_an_html_error_page() {
    let s = TestServer::start().await;
    let r = s.get("/regressions?after=zz").send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let body = r.text().await.unwrap();
    assert!(body.contains("after=&#39;zz&#39;") || body.contains("after='zz'"), "{body}");
    assert!(body.contains("<html") || body.contains("<!DOCTYPE"), "{body}");
}

#[tokio::test]
async fn a_time_that_does_not_parse_names_rfc_3339_with_an_example() {
    let s = TestServer::start().await;
    for q in ["since=yesterday", "until=2025-13-01"] {
        let detail = expect_problem(s.get(&format!("/api/v1/findings?{q}")).send().await.unwrap(), 400).await;
        assert!(detail.contains("RFC 3339") && detail.contains("2025-01-31T00:00:00Z"), "{q}: {detail}");
    }
    let r = s.get("/api/v1/findings?since=2025-01-31T00:00:00Z&until=2025-02-01T00:00:00%2B01:00").send().await.unwrap();
    assert_eq!(r.status(), 200);
}
