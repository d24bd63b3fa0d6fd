//! Dashboard findings pages: the list's filters, count and paging links; the finding page's
//! values (hex, decimal, lanes), expected against actual with ulps, spec section, occurrences;
//! the reproducer downloads.

use api::findings::{FindingReport, IngestResult};
use crate::common::*;
use crate::support::reports::*;
use crate::support::web::*;

async fn ingest(s: &TestServer, reports: Vec<FindingReport>) -> Vec<i64> {
    let r = s.post("/api/v1/findings/batch", &s.worker).json(&batch(None, reports)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.json::<IngestResult>().await.unwrap().finding_ids
}

/// Rows of the findings table and the ids they link to.
fn rows(html: &str) -> Vec<i64> {
    html.split("class=\"finding-link\" href=\"/findings/")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().parse().unwrap())
        .collect()
}

fn next_link(html: &str) -> Option<String> {
    let at = html.find("id=\"next-page\" href=\"")? + "id=\"next-page\" href=\"".len();
    Some(html[at..].split('"').next().unwrap().replace("&amp;", "&"))
}

#[tokio::test]
async fn filters_narrow_the_list_and_paging_links_walk_every_finding() {
    let s = TestServer::start().await;
    // 55 signatures over sm 1..=55; every fifth a mul.
    let reports: Vec<_> = (1..=55u64)
        .map(|i| {
            let op = if i % 5 == 0 { "mul.rz.f32" } else { "add.rz.f32" };
            report(&format!("{op}~rounding~normal.normal~sm{i}"), i, 1)
        })
        .collect();
    ingest(&s, reports).await;
    let c = browser();
    let (status, html) = page(&s, &c, "/findings", None).await;
    assert_eq!(status, 200);
    assert!(html.contains("id=\"filters\""));
    assert!(html.contains("<span id=\"count\">55 findings</span>"), "{html}");
    let first = rows(&html);
    assert_eq!(first.len(), 50);
    let next = next_link(&html).expect("a next page");
    let (_, html2) = page(&s, &c, &next, None).await;
    let second = rows(&html2);
    assert_eq!(second.len(), 5);
    assert!(next_link(&html2).is_none());
    let mut all: Vec<i64> = first.into_iter().chain(second).collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 55, "pages neither skip nor repeat");

    let (_, html) = page(&s, &c, "/findings?opcode=mul&status=new&sm=&since=&sort=last-seen", None).await;
    assert_eq!(rows(&html).len(), 11);
    assert!(html.contains("11 findings"));
    assert!(!html.contains("add.rz.f32~"), "only mul rows");
    let (_, html) = page(&s, &c, "/findings?opcode=add&sm=7", None).await;
    assert_eq!(rows(&html).len(), 1);
    // Filters survive paging: a small page of mul via the cursor keeps opcode in the link.
    let (_, html) = page(&s, &c, "/findings?status=fixed", None).await;
    assert!(rows(&html).is_empty() && html.contains("No findings match"));
}

#[tokio::test]
async fn bad_filter_values_are_400_with_the_error_on_the_page() {
    let s = TestServer::start().await;
    let c = browser();
    for q in ["status=nope", "class=zzz", "sm=ninety", "since=yesterday", "sort=occurrences", "after=bogus"] {
        let (status, html) = page(&s, &c, &format!("/findings?{q}"), None).await;
        assert_eq!(status, 400, "{q}");
        assert!(html.contains("id=\"filter-error\""), "{q}: {html}");
        assert!(html.contains("id=\"filters\""), "the form again");
    }
}

#[tokio::test]
async fn list_shows_gpus_drivers_and_known_marks() {
    let s = TestServer::start().await;
    let cid = uuid::Uuid::new_v4();
    let r = s.put(&format!("/api/v1/campaigns/{cid}"), &s.worker).json(&campaign("550.54.14")).send().await.unwrap();
    assert!(r.status().is_success());
    let r = s.post("/api/v1/findings/batch", &s.worker)
        .json(&batch(Some(cid), vec![report("add.rz.f32~rounding~normal.normal~sm90", 1, 1)]))
        .send().await.unwrap();
    assert_eq!(r.status(), 200);
    let rule = serde_json::json!({"pattern": "add.rz.*", "target_pattern": "*", "reason": "known rz issue"});
    let r = s.post("/api/v1/known-divergences", &s.triager).json(&rule).send().await.unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let (_, html) = page(&s, &browser(), "/findings?driver=550.54.14", None).await;
    assert_eq!(rows(&html).len(), 1);
    assert!(html.contains("NVIDIA H100 80GB HBM3"));
    assert!(html.contains("550.54.14"));
    assert!(html.contains("class=\"known\""));
}

/// A packed f16x2 add whose lane 0 is one ulp off.
fn packed_report() -> FindingReport {
    let program = ptx::program::Program::parse("// inputs: %r0:f16x2, %r1:f16x2\nadd.rn.f16x2 %r2, %r0, %r1;\n// outputs: %r2\n").unwrap();
    let mut r = report("add.rn.f16x2~rounding~normal.normal~sm90", 7, 1);
    r.reproducer.program = serde_json::from_str(&program.to_json()).unwrap();
    r.reproducer.program_text = program.to_string();
    r.reproducer.inputs = vec!["0x3c003c00".into(), "0x40003c00".into()];
    r.reproducer.inputs_decimal = vec!["1,1".into(), "1,2".into()];
    r.reproducer.expected = vec!["lane0: 0x4000 ; lane1: 0x4200".into()];
    r.reproducer.actual = vec!["0x42004001".into()];
    r.sass = Some("HADD2 R0, R2, R3 ;".into());
    r
}

#[tokio::test]
async fn finding_page_shows_values_lanes_expected_actual_and_ulps() {
    let s = TestServer::start().await;
    let id = ingest(&s, vec![packed_report()]).await[0];
    let (status, html) = page(&s, &browser(), &format!("/findings/{id}"), None).await;
    assert_eq!(status, 200, "{html}");
    for needle in [
        "<pre id=\"program\"",
        "<span class=\"op\">add.rn.f16x2</span>",
        "<span class=\"reg\">%r2</span>",
        "<table id=\"operands\"",
        "0x40003c00",
        "<table id=\"results\"",
        "lane0: 0x4000 ; lane1: 0x4200",
        "0x42004001",
        "NOT allowed",
        "<td class=\"ulps\">1 ; 0</td>",
        "<pre id=\"sass\">HADD2 R0, R2, R3 ;</pre>",
        "<table id=\"occurrences\"",
        "<code id=\"repro-command\">ptxfuzz repro repro.json --target cuda</code>",
        "id=\"download-ptx\" href=\"/findings/",
        "PTX ISA section",
    ] {
        assert!(html.contains(needle), "missing {needle}\n{html}");
    }
    // Lanes of the packed operand 0x40003c00: 1 and 2.
    assert!(html.contains("lane1: <code>0x4000</code> <span class=\"dec\">2</span>"), "{html}");
    assert!(html.contains("exec:planted"), "occurrence target");
}

#[tokio::test]
async fn approximate_instruction_shows_its_bound_row() {
    let s = TestServer::start().await;
    let program = ptx::program::Program::parse("// inputs: %f0:f32\nrcp.approx.f32 %f1, %f0;\n// outputs: %f1\n").unwrap();
    let mut r = report("rcp.approx.f32~bound-exceeded~normal~sm90", 1, 1);
    r.reproducer.program = serde_json::from_str(&program.to_json()).unwrap();
    r.reproducer.program_text = program.to_string();
    r.reproducer.inputs = vec!["0x40000000".into()];
    r.reproducer.inputs_decimal = vec!["2".into()];
    r.reproducer.expected = vec!["0x3effffff..0x3f000001".into()];
    r.reproducer.actual = vec!["0x3f800000".into()];
    let id = ingest(&s, vec![r]).await[0];
    let (_, html) = page(&s, &browser(), &format!("/findings/{id}"), None).await;
    assert!(html.contains("id=\"bounds\""), "{html}");
    assert!(html.contains("9.7.3.13"));
    assert!(html.contains("class=\"applied\""));
}

#[tokio::test]
async fn downloads_have_their_types_and_parse() {
    let s = TestServer::start().await;
    let id = ingest(&s, vec![packed_report()]).await[0];
    let c = browser();
    let get = |p: String| c.get(format!("{}{p}", s.url)).send();
    let r = get(format!("/findings/{id}/repro.json")).await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    assert_eq!(r.headers()["content-disposition"], "attachment; filename=\"repro.json\"");
    let back: api::Reproducer = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(back, packed_report().reproducer);
    let r = get(format!("/findings/{id}/repro.ptx")).await.unwrap();
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    assert_eq!(r.headers()["content-disposition"], "attachment; filename=\"repro.ptx\"");
    let ptx = r.text().await.unwrap();
    assert!(ptx.contains(".visible .entry p0(") && ptx.contains("add.rn.f16x2"), "{ptx}");
    let r = get(format!("/findings/{id}/repro.cu")).await.unwrap();
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/x-cuda"));
    let cu = r.text().await.unwrap();
    assert!(cu.contains("asm volatile(\"add.rn.f16x2") && cu.contains("cudaLibraryLoadData"), "{cu}");
    let r = get("/findings/999999/repro.json".into()).await.unwrap();
    assert_eq!(r.status(), 404);
    let (status, _) = page(&s, &c, "/findings/abc", None).await;
    assert_eq!(status, 404);
}
