//! Eight workers ingesting at once: 100,000 reports in batches of 1,000 whose signatures
//! overlap across workers, some batches posted twice (by their worker and by a neighbour); the
//! totals come out exact, with no error.

use std::collections::{BTreeMap, HashMap, HashSet};

use api::findings::{IngestBatch, IngestResult};
use crate::common::reports::{distinct_signatures, hits_by_signature, Reports};
use crate::common::TestServer;

const TOTAL: u64 = 100_000;
const BATCH: u64 = 1_000;
const CLIENTS: u64 = 8;
/// Fewer slots than batches × clients: every worker hits every finding, at the same time.
const SIGNATURE_SLOTS: u64 = 3_000;

#[test]
fn generated_reports_are_distinct_and_well_formed() {
    let g = Reports::new(300);
    let reports = g.batch(0..2000);
    let bodies: HashSet<String> = reports.iter().map(|r| serde_json::to_string(r).unwrap()).collect();
    assert_eq!(bodies.len(), reports.len(), "every index gives different content");
    for r in &reports {
        r.reproducer.signature.parse::<api::signature::Signature>().unwrap();
        ptx::program::Program::from_json(&r.reproducer.program.to_string()).unwrap();
        assert_eq!(r.reproducer.inputs.len(), r.reproducer.inputs_decimal.len());
    }
    assert!(distinct_signatures(&reports) > 250, "{}", distinct_signatures(&reports));
    assert_eq!(g.report(17), g.report(17), "deterministic: a retry posts the same report");
}

async fn post(s: &TestServer, http: &reqwest::Client, body: Vec<u8>) -> IngestResult {
    let r = http
        .post(format!("{}/api/v1/findings/batch", s.url))
        .bearer_auth(&s.worker)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("the server answers");
    let status = r.status();
    assert!(status.is_success(), "{status}: {}", r.text().await.unwrap_or_default());
    r.json().await.unwrap()
}

fn body(g: &Reports, batch: u64) -> Vec<u8> {
    let findings = g.batch(batch * BATCH..(batch + 1) * BATCH);
    serde_json::to_vec(&IngestBatch { campaign_id: None, findings }).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_workers_post_100k_findings_and_totals_are_exact() {
    let _alone = crate::alone().await;
    let s = std::sync::Arc::new(TestServer::start().await);
    let batches = TOTAL / BATCH;
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let s = s.clone();
        tasks.push(tokio::spawn(async move {
            let g = Reports::new(SIGNATURE_SLOTS);
            let http = reqwest::Client::new();
            let (mut inserted, mut duplicates) = (0, 0);
            let mine: Vec<u64> = (c..batches).step_by(CLIENTS as usize).collect();
            for &b in &mine {
                let r = post(&s, &http, body(&g, b)).await;
                assert_eq!((r.received, r.finding_ids.len() as u64), (BATCH, BATCH));
                inserted += r.inserted;
                duplicates += r.duplicates;
            }
            // Retries: my own first batch (a lost answer), and my neighbour's first batch,
            // which may race the neighbour's own retry of it.
            for b in [mine[0], (c + 1) % CLIENTS] {
                let r = post(&s, &http, body(&g, b)).await;
                assert_eq!(r.inserted + r.duplicates, r.received);
                inserted += r.inserted;
                duplicates += r.duplicates;
            }
            (inserted, duplicates)
        }));
    }
    let (mut inserted, mut duplicates) = (0, 0);
    for t in tasks {
        let (i, d) = t.await.unwrap();
        inserted += i;
        duplicates += d;
    }
    assert_eq!(inserted, TOTAL, "every report inserted once, across all answers");
    assert_eq!(duplicates, 2 * CLIENTS * BATCH, "every retried report counted as a duplicate");

    let g = Reports::new(SIGNATURE_SLOTS);
    let reports = g.batch(0..TOTAL);
    let expected = hits_by_signature(&reports);
    let (rows, findings, occurrences, per_finding): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM reproducers), count(*), sum(occurrences)::bigint, sum(reproducers)::bigint FROM findings",
    )
    .fetch_one(&s.pool)
    .await
    .unwrap();
    assert_eq!(rows, TOTAL as i64, "reproducers");
    assert_eq!(per_finding, TOTAL as i64, "sum of findings.reproducers");
    assert_eq!(findings as usize, expected.len(), "one finding per distinct signature");
    assert_eq!(occurrences as u64, reports.iter().map(|r| r.hits).sum::<u64>(), "sum of occurrences = sum of hits");
    let found: Vec<(String, i64)> = sqlx::query_as("SELECT signature, occurrences FROM findings").fetch_all(&s.pool).await.unwrap();
    for (signature, occ) in found {
        assert_eq!(Some(&(occ as u64)), expected.get(&signature), "occurrences of {signature}");
    }
    // first_seen is the earliest found_at of each finding's reports, whichever client
    // delivered it first; the overview's per-day counts follow every move.
    let mut earliest: HashMap<&str, chrono::DateTime<chrono::Utc>> = HashMap::new();
    for r in &reports {
        let t = r.reproducer.found_at.unwrap();
        earliest.entry(r.reproducer.signature.as_str()).and_modify(|e| *e = (*e).min(t)).or_insert(t);
    }
    let seen: Vec<(String, chrono::DateTime<chrono::Utc>)> =
        sqlx::query_as("SELECT signature, first_seen FROM findings").fetch_all(&s.pool).await.unwrap();
    for (signature, first) in seen {
        assert_eq!(Some(&first), earliest.get(signature.as_str()), "first_seen of {signature}");
    }
    let counted = || async {
        sqlx::query_as::<_, (chrono::NaiveDate, i64)>(
            "SELECT day, sum(n)::bigint FROM finding_count_totals GROUP BY day HAVING sum(n) <> 0 ORDER BY day",
        )
        .fetch_all(&s.pool)
        .await
        .unwrap()
    };
    let mut by_day: BTreeMap<chrono::NaiveDate, i64> = BTreeMap::new();
    for t in earliest.values() {
        *by_day.entry(t.date_naive()).or_default() += 1;
    }
    let by_day: Vec<_> = by_day.into_iter().collect();
    assert_eq!(counted().await, by_day, "finding counts per day of first_seen");
    // Folding what the batches left (deltas of batches that committed while another folded)
    // changes no count and leaves one row per key.
    service::db::overview::compact_finding_counts(&s.pool).await.unwrap();
    assert_eq!(counted().await, by_day, "finding counts per day of first_seen, after the fold");
    let (deltas, keys, rows): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM finding_count_deltas),
                (SELECT count(DISTINCT (status, opcode, day)) FROM finding_counts), (SELECT count(*) FROM finding_counts)",
    )
    .fetch_one(&s.pool)
    .await
    .unwrap();
    assert_eq!((deltas, keys), (0, rows));
}
