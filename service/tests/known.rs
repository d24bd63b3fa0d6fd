//! Known divergences: create, list, delete with validation and roles, and `matching`, which
//! marks findings that an active rule covers.

use crate::common::*;

use api::findings::{FindingSummary, KnownDivergence, Status};
use serde_json::json;
use service::db::known::matching;

/// Who the rules of migrations/0005 (the H100's recorded behaviours) are created by.
const SHIPPED: &str = "ptxfuzz (H100 recordings)";

/// The rules a test created (the shipped ones left out).
async fn created(s: &TestServer) -> Vec<KnownDivergence> {
    let list: Vec<KnownDivergence> = s.get("/api/v1/known-divergences").send().await.unwrap().json().await.unwrap();
    list.into_iter().filter(|k| k.created_by != SHIPPED).collect()
}

async fn create(s: &TestServer, body: serde_json::Value) -> KnownDivergence {
    let r = s.post("/api/v1/known-divergences", &s.triager).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 201);
    r.json().await.unwrap()
}

#[tokio::test]
async fn known_divergences_are_created_listed_and_deleted() {
    let s = TestServer::start().await;
    let a = create(&s, json!({"pattern": "add.rz.*~ftz~*", "reason": "sm90 flushes before rounding"})).await;
    assert_eq!(a.rule.target_pattern, "*");
    assert_eq!(a.created_by, "test-triager");
    let b = create(&s, json!({"pattern": "mul*", "target_pattern": "cuda:*", "driver_min": "550.54", "driver_max": "560",
                              "reason": "r", "expires_at": "2999-01-01T00:00:00Z"})).await;
    assert_eq!(b.rule.driver_min.as_deref(), Some("550.54"));
    assert_eq!(created(&s).await, vec![b.clone(), a.clone()]);
    let del = |id: i64, token: String| s.http.delete(format!("{}/api/v1/known-divergences/{id}", s.url)).bearer_auth(token).send();
    expect_problem(del(a.id, s.worker.clone()).await.unwrap(), 403).await;
    assert_eq!(del(a.id, s.triager.clone()).await.unwrap().status(), 204);
    expect_problem(del(a.id, s.triager.clone()).await.unwrap(), 404).await;
    assert_eq!(created(&s).await, vec![b]);
}

#[tokio::test]
async fn bad_rules_are_refused_with_reasons() {
    let s = TestServer::start().await;
    for (body, needle) in [
        (json!({"pattern": " ", "reason": "r"}), "pattern is empty"),
        (json!({"pattern": "a", "target_pattern": "", "reason": "r"}), "target_pattern is empty"),
        (json!({"pattern": "a", "reason": ""}), "reason is empty"),
        (json!({"pattern": "a", "reason": "r", "driver_min": "550.x"}), "driver_min '550.x'"),
        (json!({"pattern": "a", "reason": "r", "driver_max": "550..1"}), "driver_max"),
        (json!({"pattern": "a", "reason": "r", "driver_min": "560", "driver_max": "550.99"}), "above driver_max"),
        (json!({"pattern": "a", "reason": "r", "expires_at": "2001-01-01T00:00:00Z"}), "in the past"),
    ] {
        let r = s.post("/api/v1/known-divergences", &s.triager).json(&body).send().await.unwrap();
        let d = expect_problem(r, 422).await;
        assert!(d.contains(needle), "'{d}' lacks '{needle}'");
    }
    let r = s.post("/api/v1/known-divergences", &s.triager).json(&json!({"pattern": "a", "reason": "r", "why": 1})).send().await.unwrap();
    expect_problem(r, 400).await;
    let r = s.post("/api/v1/known-divergences", &s.worker).json(&json!({"pattern": "a", "reason": "r"})).send().await.unwrap();
    expect_problem(r, 403).await;
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM known_divergences WHERE created_by <> $1").bind(SHIPPED).fetch_one(&s.pool).await.unwrap();
    assert_eq!(n, 0);
}

/// A finding with reproducers on `(target, driver)`; returns its summary (known unset).
async fn finding(s: &TestServer, signature: &str, repros: &[(&str, Option<&str>)]) -> FindingSummary {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO findings (signature, instruction, opcode, type, modifiers, class, operand_classes)
         VALUES ($1, 'x', 'x', 'f32', '{}', 'rounding', 'normal') RETURNING id",
    )
    .bind(signature)
    .fetch_one(&s.pool)
    .await
    .unwrap();
    for (target, driver) in repros {
        sqlx::query(
            "INSERT INTO reproducers (finding_id, content_sha256, target, device, driver_version, hits, program_text, reproducer)
             VALUES ($1, $2, $3, 'd', $4, 1, '', '{}')",
        )
        .bind(id)
        .bind(uuid::Uuid::new_v4().as_bytes().to_vec())
        .bind(target)
        .bind(driver)
        .execute(&s.pool)
        .await
        .unwrap();
    }
    let now = chrono::Utc::now();
    FindingSummary {
        id,
        signature: signature.into(),
        instruction: "x".into(),
        opcode: "x".into(),
        ty: "f32".into(),
        modifiers: vec![],
        class: "rounding".into(),
        operand_classes: "normal".into(),
        sm: Some(90),
        cluster_id: None,
        status: Status::New,
        duplicate_of: None,
        first_seen: now,
        last_seen: now,
        occurrences: 1,
        reproducers: repros.len() as i64,
        known: Some(-1),
    }
}

#[tokio::test]
async fn matching_marks_findings_an_active_rule_covers() {
    let s = TestServer::start().await;
    let mut items = vec![
        finding(&s, "add.rz.f32~ftz~normal~sm90", &[("cuda:0", Some("555.1"))]).await,
        finding(&s, "add.rz.f32~ftz~normal~sm80", &[("host", Some("555.1")), ("cuda:1", Some("540"))]).await,
        finding(&s, "mul.rn.f32~rounding~normal~sm90", &[("cuda:0", Some("555.1"))]).await,
        finding(&s, "add.rz.f32~ftz~subnormal~sm90", &[("cuda:0", None)]).await,
        finding(&s, "add.rz.f32~ftz~other~sm90", &[]).await,
    ];
    // Nothing yet: every `known` is cleared.
    matching(&s.pool, &mut items).await.unwrap();
    assert!(items.iter().all(|i| i.known.is_none()));

    // An expired rule matching everything never counts (the API refuses past expiries; insert it).
    sqlx::query("INSERT INTO known_divergences (pattern, reason, expires_at, created_by) VALUES ('*', 'old', now() - interval '1 day', 't')")
        .execute(&s.pool)
        .await
        .unwrap();
    let ftz = create(&s, json!({"pattern": "add.*~ftz~*", "target_pattern": "cuda:*", "driver_min": "550.54", "driver_max": "560",
                                "reason": "flush"})).await;
    let any = create(&s, json!({"pattern": "*~sm90", "reason": "everything on sm90"})).await;
    matching(&s.pool, &mut items).await.unwrap();
    let known: Vec<Option<i64>> = items.iter().map(|i| i.known).collect();
    assert_eq!(
        known,
        vec![
            Some(ftz.id), // first rule wins where both match
            None,         // host is not cuda:*, and cuda:1's driver 540 is below the range
            Some(any.id), // only the sm90 rule's pattern fits
            Some(any.id), // unknown driver: only a rule without driver bounds covers it
            None,         // no reproducers: no target to match
        ]
    );
}

#[tokio::test]
async fn a_new_server_ships_the_h100_behaviours_as_known_divergences() {
    let s = TestServer::start().await;
    let list: Vec<KnownDivergence> = s.get("/api/v1/known-divergences").send().await.unwrap().json().await.unwrap();
    let shipped: Vec<&KnownDivergence> = list.iter().filter(|k| k.created_by == SHIPPED).collect();
    assert_eq!(shipped.len(), 7);
    assert!(shipped.iter().all(|k| k.rule.reason.contains("Evidence: ../shared/hw/h100-sm90/")), "{shipped:?}");
    // migrations/0007: the bf16 fma reasons say how each packing is computed (docs/triage.md).
    let fma: Vec<&&KnownDivergence> = shipped.iter().filter(|k| k.rule.pattern.starts_with("fma.")).collect();
    assert_eq!(fma.len(), 3);
    for k in fma {
        let r = &k.rule.reason;
        assert!(r.contains("rounds to f16 to nearest") && r.contains("HFMA2.MMA.BF16_V2") && !r.contains("is computed as f16 arithmetic"), "{r}");
    }
    // The reproducers ptxfuzz found on the H100: every one the README lists is known; the
    // sign finding of min.NaN.xorsign.abs.f16x2 (a behaviour the README does not list) is not.
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/findings"));
    let imported = service::import::import(&s.pool, dir).await.unwrap();
    assert_eq!(imported.new, 8);
    let page: serde_json::Value = s.get("/api/v1/findings?limit=50").send().await.unwrap().json().await.unwrap();
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 8);
    for f in items {
        let sig = f["signature"].as_str().unwrap();
        assert_eq!(f["known"].is_i64(), !sig.starts_with("min.NaN.xorsign"), "{sig}: {f}");
    }
}
