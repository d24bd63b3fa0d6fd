//! Filing regressions: raw programs and findings' reproducers are validated and re-evaluated
//! with the interpreter; every malformed or illegal input is a 4xx problem that says why.

use crate::common::*;

use api::regressions::{Regression, RegressionPage};
use ptx::program::Program;
use serde_json::json;

const ADD: &str = "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n";

fn raw(program: &str, inputs: &[&str], expected: Option<&[&str]>) -> serde_json::Value {
    json!({"title": "", "source": {"raw": {"program": program, "inputs": inputs, "expected": expected}}})
}

/// The interpreter's expectation for `program` on `inputs`, as the server should store it.
fn interpreter_expected(program: &str, inputs: &[u64]) -> Vec<String> {
    Program::parse(program).unwrap().run(inputs).unwrap().iter().map(|e| e.to_string()).collect()
}

/// A finding with one reproducer per `(target, driver)`, inserted directly; returns the
/// finding id and the reproducer ids in insertion order.
pub async fn insert_finding(
    s: &TestServer,
    signature: &str,
    repros: &[(&str, Option<&str>, &str, &[&str])],
) -> (i64, Vec<i64>) {
    let fid: i64 = sqlx::query_scalar(
        "INSERT INTO findings (signature, instruction, opcode, type, modifiers, class, operand_classes)
         VALUES ($1, 'add.rn.f32', 'add', 'f32', '{rn}', 'rounding', 'normal.normal') RETURNING id",
    )
    .bind(signature)
    .fetch_one(&s.pool)
    .await
    .unwrap();
    let mut ids = Vec::new();
    for (target, driver, program, inputs) in repros {
        let p = Program::parse(program).unwrap();
        let r = api::Reproducer {
            ptxfuzz_repro: api::repro::FORMAT,
            signature: signature.into(),
            class: "rounding".into(),
            target: target.to_string(),
            device: "test".into(),
            sm: 90,
            variant: Default::default(),
            program: serde_json::from_str(&p.to_json()).unwrap(),
            program_text: p.to_string(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            inputs_decimal: vec![],
            expected: vec![],
            actual: vec![],
            failing_outputs: vec![],
            found_after_cases: 0,
            original: None,
            probes: 0,
            steps: 0,
            judge: "spec".into(),
            exec: api::Exec::Compiled,
            found_at: None,
        };
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO reproducers (finding_id, content_sha256, target, device, driver_version, hits, program_text, reproducer)
             VALUES ($1, $2, $3, 'test', $4, 1, $5, $6) RETURNING id",
        )
        .bind(fid)
        .bind(uuid::Uuid::new_v4().as_bytes().to_vec())
        .bind(target)
        .bind(driver)
        .bind(p.to_string())
        .bind(serde_json::to_value(&r).unwrap())
        .fetch_one(&s.pool)
        .await
        .unwrap();
        ids.push(id);
    }
    (fid, ids)
}

#[tokio::test]
async fn raw_program_is_filed_with_the_interpreters_expectation() {
    let s = TestServer::start().await;
    let r = s.post("/api/v1/regressions", &s.triager).json(&raw(ADD, &["0x3f800000", "0x40000000"], Some(&["0x40400000"]))).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let reg: Regression = r.json().await.unwrap();
    assert_eq!(reg.expected, interpreter_expected(ADD, &[0x3f80_0000, 0x4000_0000]));
    assert_eq!(reg.inputs, ["0x3f800000", "0x40000000"]);
    assert_eq!(reg.program_text, Program::parse(ADD).unwrap().to_string());
    assert_eq!(reg.created_by, "test-triager");
    assert_eq!(reg.finding_id, None);
    assert!(reg.title.contains("add.rn.f32"), "{}", reg.title);
    assert!(reg.matrix.is_empty());
    let stored: Vec<String> = sqlx::query_scalar("SELECT unnest(expected) FROM regressions WHERE id = $1")
        .bind(reg.id)
        .fetch_all(&s.pool)
        .await
        .unwrap();
    assert_eq!(stored, reg.expected);
    let got: Regression = s.get(&format!("/api/v1/regressions/{}", reg.id)).send().await.unwrap().json().await.unwrap();
    assert_eq!(got, reg);
}

#[tokio::test]
async fn program_json_and_packed_types_are_filed_too() {
    let s = TestServer::start().await;
    let text = "// inputs: %r0:f16x2\nneg.f16x2 %r1, %r0;\ntestp.finite.f32 %p3, %f2;\n// outputs: %r1\n";
    // %f2 is never defined: the message names it.
    let r = s.post("/api/v1/regressions", &s.triager).json(&raw(text, &["0x3c00bc00"], None)).send().await.unwrap();
    let d = expect_problem(r, 422).await;
    assert!(d.contains("%f2"), "{d}");
    let good = "// inputs: %r0:f16x2\nneg.f16x2 %r1, %r0;\n// outputs: %r1\n";
    let json = Program::parse(good).unwrap().to_json();
    let r = s.post("/api/v1/regressions", &s.triager).json(&raw(&json, &["0x3c00bc00"], Some(&["0xbc003c00"]))).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let reg: Regression = r.json().await.unwrap();
    assert_eq!(reg.expected, interpreter_expected(good, &[0x3c00_bc00]));
    assert_eq!(reg.inputs, ["0x3c00bc00"]);
}

#[tokio::test]
async fn bad_raw_input_is_a_problem_saying_what_is_wrong() {
    let s = TestServer::start().await;
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        ("empty program", raw("", &[], None), "empty"),
        ("malformed program", raw("// inputs: %f0\nadd.rn.f32 %f1, %f0, %f0;\n", &["0x0"], None), "has no type"),
        ("unknown instruction", raw("// inputs: %f0:f32\nfrobnicate.f32 %f1, %f0;\n// outputs: %f1\n", &["0x0"], None), "frobnicate"),
        ("illegal modifier", raw("// inputs: %fd0:f64\nadd.sat.f64 %fd1, %fd0, %fd0;\n// outputs: %fd1\n", &["0x0"], None), "sat"),
        ("bad JSON program", raw("{\"types\": 3}", &[], None), "program JSON"),
        ("too few inputs", raw(ADD, &["0x0"], None), "takes 2 input(s)"),
        ("too many inputs", raw(ADD, &["0x0", "0x0", "0x0"], None), "takes 2 input(s)"),
        ("non-hex input", raw(ADD, &["0x0", "1.5"], None), "input 1"),
        ("empty hex", raw(ADD, &["0x", "0x0"], None), "not hex"),
        ("value too wide", raw(ADD, &["0x0", "0x100000000"], None), "more than 32 bits"),
        ("huge input", raw(ADD, &["0x0", &format!("0x{}", "9".repeat(100_000))], None), "more than 32 bits"),
        ("hex without 0x", raw(ADD, &["1", "2"], None), "input 0: '1' is not 0x-prefixed hex bits"),
        ("expected refused", raw(ADD, &["0x3f800000", "0x3f800000"], Some(&["0x3f800000"])), "allows 0x40000000"),
        ("expected count", raw(ADD, &["0x0", "0x0"], Some(&["0x0", "0x0"])), "1 output(s)"),
        ("expected not hex", raw(ADD, &["0x0", "0x0"], Some(&["zero"])), "not 0x-prefixed hex"),
    ];
    for (what, body, needle) in cases {
        let r = s.post("/api/v1/regressions", &s.triager).json(&body).send().await.unwrap();
        let d = expect_problem(r, 422).await;
        assert!(d.contains(needle), "{what}: '{d}' lacks '{needle}'");
    }
    // The ptx crate's legality message names the rule's section.
    let r = s.post("/api/v1/regressions", &s.triager)
        .json(&raw("// inputs: %fd0:f64\nadd.sat.f64 %fd1, %fd0, %fd0;\n// outputs: %fd1\n", &["0x0"], None))
        .send().await.unwrap();
    let d = expect_problem(r, 422).await;
    assert!(d.contains("9.7."), "{d}");
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM regressions").fetch_one(&s.pool).await.unwrap();
    assert_eq!(n, 0, "nothing refused is stored");
}

#[tokio::test]
async fn malformed_bodies_are_400_problems() {
    let s = TestServer::start().await;
    for body in [
        json!({"source": {"raw": {"program": ADD, "inputs": []}}, "extra": 1}),
        json!({"source": {"copy": {}}}),
        json!({"source": {"raw": {"program": 5, "inputs": []}}}),
        json!({"title": "x"}),
    ] {
        let r = s.post("/api/v1/regressions", &s.triager).json(&body).send().await.unwrap();
        expect_problem(r, 400).await;
    }
    let r = s.post("/api/v1/regressions", &s.triager).header("content-type", "application/json").body("{").send().await.unwrap();
    expect_problem(r, 400).await;
}

#[tokio::test]
async fn filing_from_a_finding_takes_its_newest_or_named_reproducer() {
    let s = TestServer::start().await;
    let mul = "// inputs: %f0:f32\nmul.rn.f32 %f1, %f0, %f0;\n// outputs: %f1\n";
    let (fid, rids) = insert_finding(
        &s,
        "add.rn.f32~rounding~normal.normal~sm90",
        &[("cuda:0", Some("550.54"), ADD, &["0x3f800000", "0x3f800000"]), ("cuda:0", Some("550.54"), mul, &["0x40000000"])],
    )
    .await;
    let r = s.post("/api/v1/regressions", &s.triager).json(&json!({"source": {"from_finding": {"finding_id": fid}}})).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let newest: Regression = r.json().await.unwrap();
    assert_eq!(newest.finding_id, Some(fid));
    assert_eq!(newest.expected, interpreter_expected(mul, &[0x4000_0000]));
    assert!(newest.title.contains("add.rn.f32~rounding"), "{}", newest.title);

    let body = json!({"title": "the first", "source": {"from_finding": {"finding_id": fid, "reproducer_id": rids[0]}}});
    let named: Regression = s.post("/api/v1/regressions", &s.triager).json(&body).send().await.unwrap().json().await.unwrap();
    assert_eq!(named.expected, interpreter_expected(ADD, &[0x3f80_0000, 0x3f80_0000]));
    assert_eq!(named.title, "the first");

    let r = s.post("/api/v1/regressions", &s.triager).json(&json!({"source": {"from_finding": {"finding_id": fid + 100}}})).send().await.unwrap();
    expect_problem(r, 404).await;
    let r = s.post("/api/v1/regressions", &s.triager)
        .json(&json!({"source": {"from_finding": {"finding_id": fid, "reproducer_id": rids[1] + 100}}}))
        .send().await.unwrap();
    expect_problem(r, 404).await;
    let (other, _) = insert_finding(&s, "other~sig", &[]).await;
    let r = s.post("/api/v1/regressions", &s.triager)
        .json(&json!({"source": {"from_finding": {"finding_id": other, "reproducer_id": rids[0]}}}))
        .send().await.unwrap();
    let d = expect_problem(r, 422).await;
    assert!(d.contains("belongs to finding"), "{d}");
    let r = s.post("/api/v1/regressions", &s.triager).json(&json!({"source": {"from_finding": {"finding_id": other}}})).send().await.unwrap();
    let d = expect_problem(r, 422).await;
    assert!(d.contains("no reproducers"), "{d}");
}

#[tokio::test]
async fn a_corrupt_stored_reproducer_is_refused_not_a_500() {
    let s = TestServer::start().await;
    let (fid, rids) = insert_finding(&s, "sig", &[("host", None, ADD, &["0x0", "0x0"])]).await;
    sqlx::query("UPDATE reproducers SET reproducer = '{\"program\": 1}' WHERE id = $1").bind(rids[0]).execute(&s.pool).await.unwrap();
    let r = s.post("/api/v1/regressions", &s.triager).json(&json!({"source": {"from_finding": {"finding_id": fid}}})).send().await.unwrap();
    let d = expect_problem(r, 422).await;
    assert!(d.contains(&format!("reproducer {}", rids[0])), "{d}");
}

#[tokio::test]
async fn only_triagers_and_admins_file_regressions() {
    let s = TestServer::start().await;
    let body = raw(ADD, &["0x0", "0x0"], None);
    let r = s.post("/api/v1/regressions", &s.worker).json(&body).send().await.unwrap();
    let d = expect_problem(r, 403).await;
    assert!(d.contains("triager"), "{d}");
    let r = s.http.post(format!("{}/api/v1/regressions", s.url)).json(&body).send().await.unwrap();
    expect_problem(r, 401).await;
    let r = s.post("/api/v1/regressions", &s.admin).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 201);
}

#[tokio::test]
async fn list_pages_newest_first_and_unknown_ids_are_404() {
    let s = TestServer::start().await;
    let mut ids = Vec::new();
    for i in 0..5u32 {
        let input = format!("0x{:08x}", 0x3f80_0000 + i);
        let r: Regression = s.post("/api/v1/regressions", &s.triager).json(&raw(ADD, &[&input, "0x0"], None)).send().await.unwrap().json().await.unwrap();
        ids.push(r.id);
    }
    ids.reverse();
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let q = after.as_ref().map_or(String::new(), |a| format!("&after={a}"));
        let page: RegressionPage = s.get(&format!("/api/v1/regressions?limit=2{q}")).send().await.unwrap().json().await.unwrap();
        seen.extend(page.items.iter().map(|r| r.id));
        match page.next {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    assert_eq!(seen, ids);
    for bad in ["limit=0", "limit=501", "after=abc", "color=red"] {
        let r = s.get(&format!("/api/v1/regressions?{bad}")).send().await.unwrap();
        expect_problem(r, 400).await;
    }
    expect_problem(s.get("/api/v1/regressions/999999").send().await.unwrap(), 404).await;
    expect_problem(s.get("/api/v1/regressions/abc").send().await.unwrap(), 400).await;
}

#[tokio::test]
async fn regression_endpoints_are_in_the_openapi_document() {
    let s = TestServer::start().await;
    let doc: serde_json::Value = s.get("/api/openapi.json").send().await.unwrap().json().await.unwrap();
    for p in ["/api/v1/regressions", "/api/v1/regressions/{id}", "/api/v1/leases", "/api/v1/leases/{lease_id}/result", "/api/v1/known-divergences", "/api/v1/known-divergences/{id}"] {
        assert!(doc["paths"][p].is_object(), "{p} missing");
    }
}

#[tokio::test]
async fn a_regression_runs_in_the_execution_mode_of_its_finding_and_leases_say_so() {
    use api::{regressions::Leased, Exec};
    let s = TestServer::start().await;
    let (fid, rids) =
        insert_finding(&s, "add.rn.f32~rounding~normal.normal~sm90", &[("cuda:0", Some("580.159.04"), ADD, &["0x3f800000", "0x3f800000"])]).await;
    // Found on the instruction VM.
    sqlx::query("UPDATE reproducers SET reproducer = jsonb_set(reproducer, '{exec}', '\"isa\"') WHERE id = $1")
        .bind(rids[0])
        .execute(&s.pool)
        .await
        .unwrap();
    let server = &s;
    let file = |body: serde_json::Value| async move {
        let s = server;
        let r = s.post("/api/v1/regressions", &s.triager).json(&body).send().await.unwrap();
        assert_eq!(r.status(), 201);
        r.json::<Regression>().await.unwrap()
    };
    let found = file(json!({"source": {"from_finding": {"finding_id": fid}}})).await;
    let plain = file(raw(ADD, &["0x0", "0x0"], None)).await;
    let mut body = raw(ADD, &["0x1", "0x1"], None);
    body["source"]["raw"]["exec"] = json!("isa");
    let said = file(body).await;
    assert_eq!((found.exec, plain.exec, said.exec), (Exec::Isa, Exec::Compiled, Exec::Isa));
    let got: Regression = s.get(&format!("/api/v1/regressions/{}", found.id)).send().await.unwrap().json().await.unwrap();
    assert_eq!(got.exec, Exec::Isa);
    let r = s.post("/api/v1/leases", &s.worker).json(&json!({"worker": "w", "max": 10, "lease_seconds": 60})).send().await.unwrap();
    let leased: Vec<Leased> = r.json().await.unwrap();
    let exec_of = |id: i64| leased.iter().find(|l| l.regression_id == id).map(|l| l.exec);
    assert_eq!((exec_of(found.id), exec_of(plain.id), exec_of(said.id)), (Some(Exec::Isa), Some(Exec::Compiled), Some(Exec::Isa)));
    let mut bad = raw(ADD, &["0x1", "0x1"], None);
    bad["source"]["raw"]["exec"] = json!("jit");
    let r = s.post("/api/v1/regressions", &s.triager).json(&bad).send().await.unwrap();
    assert!(r.status().is_client_error(), "{}", r.status());
}
