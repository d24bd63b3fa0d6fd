//! Service benchmark (`cargo bench -p service --bench ingest`; figures in docs/benchmarks.md):
//! (a) ingest through `POST /api/v1/findings/batch` in batches of 1,000 from 1, 2 and 4 clients,
//! (b) the same rows by a plain `COPY reproducers FROM STDIN`, to show the API's overhead,
//! (c) `GET /api/v1/findings` latency over 1,000,000 findings seeded by SQL,
//! (d) the explanations alone: the CPU time ingest spends choosing each batch's clusters
//! (`ClusterInfo::of` once per signature per batch: what ingest paid before it skipped findings
//! that have a cluster already), without a server.
//!
//! Environment: `BENCH_N` reports for (a) and (b) (100000), `BENCH_CLIENTS` (1,2,4),
//! `BENCH_FINDINGS` findings for (c) (1000000), `BENCH_REQUESTS` per list query (30),
//! `BENCH_SKIP` a comma list of parts to skip (`ingest`, `copy`, `list`, `explain`), `BENCH_KEEP=1` keeps
//! the databases (their URLs are printed) for EXPLAIN ANALYZE.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support/seed.rs"]
mod seed;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use api::findings::{FindingPage, FindingReport, IngestBatch, IngestResult};
use common::reports::Reports;
use common::TestServer;
use sha2::{Digest, Sha256};
use sqlx::postgres::PgPoolCopyExt;
use sqlx::PgPool;

const BATCH: usize = 1_000;
/// Signature slots of the generated reports: a few thousand findings, as a long campaign fleet
/// produces, so batches both create findings and add to existing ones.
const SIGNATURE_SLOTS: u64 = 5_000;

/// (d): what choosing clusters costs per batch, on one core.
fn explain(reports: &[FindingReport]) {
    use service::db::clusters::ClusterInfo;
    use service::db::findings::ingest::FindingKey;
    let t = Instant::now();
    let mut explained = 0;
    for batch in reports.chunks(BATCH) {
        let mut seen = std::collections::HashSet::new();
        for r in batch {
            if seen.insert(r.reproducer.signature.as_str()) {
                let sig: api::Signature = r.reproducer.signature.parse().expect("a generated signature parses");
                std::hint::black_box(ClusterInfo::of(&r.reproducer, &FindingKey::of(&sig)));
                explained += 1;
            }
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "(d) explanations: {explained} (one per signature per batch of {BATCH}) for {} reports in {s:.2} s = {:.0} us per report",
        reports.len(),
        s * 1e6 / reports.len() as f64
    );
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn skipped(part: &str) -> bool {
    std::env::var("BENCH_SKIP").unwrap_or_default().split(',').any(|p| p.trim() == part)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let n: usize = env_or("BENCH_N", 100_000);
    let clients: Vec<usize> = std::env::var("BENCH_CLIENTS")
        .unwrap_or_else(|_| "1,2,4".into())
        .split(',')
        .filter_map(|c| c.trim().parse().ok())
        .collect();
    println!("service benchmark: {n} reports in batches of {BATCH}; {} cores", std::thread::available_parallelism().map_or(0, |p| p.get()));
    let mut dbs = Vec::new();
    let reports = if skipped("ingest") && skipped("copy") {
        Vec::new()
    } else {
        let t = Instant::now();
        let r = Reports::new(SIGNATURE_SLOTS).batch(0..n as u64);
        println!("generated {n} reports in {:.1} s (not timed below)", t.elapsed().as_secs_f64());
        r
    };
    if !skipped("ingest") {
        for &c in &clients {
            dbs.push(ingest(&reports, c).await);
        }
    }
    if !skipped("copy") {
        dbs.push(copy(&reports).await);
    }
    if !skipped("explain") && !reports.is_empty() {
        explain(&reports);
    }
    if !skipped("list") {
        dbs.push(list(env_or("BENCH_FINDINGS", 1_000_000), env_or("BENCH_REQUESTS", 30)).await);
    }
    if std::env::var("BENCH_KEEP").as_deref() == Ok("1") {
        println!("databases kept: {}", dbs.join(" "));
    } else {
        drop_databases(&dbs).await;
    }
}

/// (a) `clients` concurrent clients post the batches; findings/s over the whole run.
async fn ingest(reports: &[FindingReport], clients: usize) -> String {
    let s = Arc::new(TestServer::start().await);
    let bodies: Arc<Vec<Vec<u8>>> = Arc::new(
        reports
            .chunks(BATCH)
            .map(|c| serde_json::to_vec(&IngestBatch { campaign_id: None, findings: c.to_vec() }).unwrap())
            .collect(),
    );
    let mb = bodies.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
    let next = Arc::new(AtomicUsize::new(0));
    let t = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (s, bodies, next) = (s.clone(), bodies.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut latencies = Vec::new();
            let mut inserted = 0;
            loop {
                let b = next.fetch_add(1, Ordering::SeqCst);
                let Some(body) = bodies.get(b) else { break };
                let t = Instant::now();
                let r = http
                    .post(format!("{}/api/v1/findings/batch", s.url))
                    .bearer_auth(&s.worker)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .expect("server answers");
                assert!(r.status().is_success(), "batch {b}: {} {}", r.status(), r.text().await.unwrap_or_default());
                let r: IngestResult = r.json().await.unwrap();
                inserted += r.inserted;
                latencies.push(t.elapsed());
            }
            (inserted, latencies)
        }));
    }
    let (mut inserted, mut latencies) = (0, Vec::new());
    for task in tasks {
        let (i, l) = task.await.unwrap();
        inserted += i;
        latencies.extend(l);
    }
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(inserted as usize, reports.len(), "every report inserted");
    let (median, p95) = median_p95(&mut latencies);
    println!(
        "(a) ingest, {clients} client(s): {} reports ({mb:.0} MB JSON) in {secs:.2} s = {:.0} findings/s; per batch of {BATCH}: median {median:.0} ms, p95 {p95:.0} ms",
        reports.len(),
        reports.len() as f64 / secs
    );
    s.database_url.clone()
}

/// (b) The same rows by `COPY reproducers (...) FROM STDIN` (text format), after inserting
/// the findings they belong to. Rendering the COPY text (JSON + SHA-256, as the server does per
/// report) is timed apart from the COPY itself.
async fn copy(reports: &[FindingReport]) -> String {
    let url = common::fresh_database().await;
    let pool = service::db::connect(&url, 4).await.unwrap();
    // The findings, by one set-based INSERT (the API's ingest upserts them the same way).
    let mut keys: Vec<(&str, i32)> = reports.iter().map(|r| (r.reproducer.signature.as_str(), r.reproducer.sm as i32)).collect();
    keys.sort();
    keys.dedup();
    let t = Instant::now();
    let column = |f: &dyn Fn(&str) -> String| keys.iter().map(|(k, _)| f(k)).collect::<Vec<String>>();
    let field = |k: &str, n: usize| k.split('~').nth(n).unwrap().to_string();
    let words = |k: &str| field(k, 0).split('.').map(str::to_string).collect::<Vec<_>>();
    let rows: Vec<(i64, String)> = sqlx::query_as(
        "INSERT INTO findings (signature, instruction, opcode, type, modifiers, class, operand_classes, sm)
         SELECT s, i, o, t, string_to_array(m, '.'), c, oc, sm
         FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int4[])
              AS u(s, i, o, t, m, c, oc, sm)
         RETURNING id, signature",
    )
    .bind(column(&|k| k.to_string()))
    .bind(column(&|k| field(k, 0)))
    .bind(column(&|k| words(k)[0].clone()))
    .bind(column(&|k| words(k).last().unwrap().clone()))
    .bind(column(&|k| {
        let w = words(k);
        w[1..w.len() - 1].join(".")
    }))
    .bind(column(&|k| field(k, 1)))
    .bind(column(&|k| field(k, 2)))
    .bind(keys.iter().map(|&(_, sm)| sm).collect::<Vec<i32>>())
    .fetch_all(&pool)
    .await
    .unwrap();
    let ids: HashMap<String, i64> = rows.into_iter().map(|(id, s)| (s, id)).collect();
    let findings_secs = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut text = Vec::with_capacity(reports.len() * 2048);
    for r in reports {
        let json = serde_json::to_vec(&r.reproducer).unwrap();
        let hash = Sha256::digest(serde_json::to_vec(r).unwrap());
        let fields = [
            ids[&r.reproducer.signature].to_string(),
            format!("\\\\x{}", hex::encode(hash)),
            escape(&r.reproducer.target),
            escape(&r.reproducer.device),
            r.hits.to_string(),
            escape(&r.reproducer.program_text),
            escape(std::str::from_utf8(&json).unwrap()),
        ];
        text.extend_from_slice(fields.join("\t").as_bytes());
        text.push(b'\n');
    }
    let render_secs = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut copy = pool
        .copy_in_raw("COPY reproducers (finding_id, content_sha256, target, device, hits, program_text, reproducer) FROM STDIN")
        .await
        .unwrap();
    for chunk in text.chunks(1 << 20) {
        copy.send(chunk).await.unwrap();
    }
    let rows = copy.finish().await.unwrap();
    let copy_secs = t.elapsed().as_secs_f64();
    assert_eq!(rows as usize, reports.len());
    println!(
        "(b) COPY: {rows} rows ({:.0} MB) in {copy_secs:.2} s = {:.0} rows/s (+ {} findings rows by INSERT in {findings_secs:.2} s, COPY text rendered in {render_secs:.2} s)",
        text.len() as f64 / 1e6,
        rows as f64 / copy_secs,
        ids.len()
    );
    pool.close().await;
    url
}

/// COPY text format: backslash, tab, newline and carriage return are escaped.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

/// The driver versions the seeded reproducers carry.
const DRIVERS: &[&str] = &["535.183.01", "550.54.15", "555.42.06", "560.35.03", "570.86.10"];

/// (c) Seed `count` findings (one reproducer each) by SQL, then time list queries.
async fn list(count: u64, requests: usize) -> String {
    let s = TestServer::start().await;
    let t = Instant::now();
    seed(&s.pool, count).await;
    println!("(c) seeded {count} findings and {count} reproducers by SQL in {:.1} s", t.elapsed().as_secs_f64());
    let since = (chrono::Utc::now() - chrono::Duration::days(1)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let queries: Vec<(&str, String)> = vec![
        ("no filter", String::new()),
        ("opcode=fma", "opcode=fma".into()),
        ("type=f64 & class=rounding", "type=f64&class=rounding".into()),
        ("status=interpreter-bug", "status=interpreter-bug".into()),
        ("modifier=ftz", "modifier=ftz".into()),
        ("sm=90", "sm=90".into()),
        ("driver=550.54.15", "driver=550.54.15".into()),
        ("since=1 day ago", format!("since={since}")),
        ("instruction=fma.rn.f64 & sm=90 & status=new", "instruction=fma.rn.f64&sm=90&status=new".into()),
    ];
    println!("    {:<44} {:>10} {:>10} {:>6}", "GET /api/v1/findings?limit=50&...", "median ms", "p95 ms", "items");
    for (name, q) in &queries {
        let path = format!("/api/v1/findings?limit=50&{q}");
        let mut times = Vec::new();
        let mut items = 0;
        for k in 0..requests + 3 {
            let t = Instant::now();
            let page = get_page(&s, &path).await;
            // The first 3 warm the caches.
            if k >= 3 {
                times.push(t.elapsed());
            }
            items = page.items.len();
        }
        let (median, p95) = median_p95(&mut times);
        println!("    {name:<44} {median:>10.1} {p95:>10.1} {items:>6}");
    }
    // Keyset paging: follow `next` to page 20, timing every page.
    let mut times = Vec::new();
    let mut walk = Vec::new();
    for _ in 0..(requests / 20).max(2) {
        let start = Instant::now();
        let mut path = "/api/v1/findings?limit=50".to_string();
        for page in 1..=20 {
            let t = Instant::now();
            let p = get_page(&s, &path).await;
            times.push(t.elapsed());
            match p.next {
                Some(next) => path = format!("/api/v1/findings?limit=50&after={next}"),
                None => panic!("no page {} with {count} findings", page + 1),
            }
        }
        walk.push(start.elapsed());
    }
    let (median, p95) = median_p95(&mut times);
    let (walk_median, _) = median_p95(&mut walk);
    println!("    {:<44} {median:>10.1} {p95:>10.1} {:>6}", "pages 1..20 via `after` (per page)", 50);
    println!("    (the walk to page 20: median {walk_median:.0} ms in all)");
    s.database_url.clone()
}

async fn get_page(s: &TestServer, path: &str) -> FindingPage {
    let r = s.get(path).send().await.expect("server answers");
    assert!(r.status().is_success(), "{path}: {} {}", r.status(), r.text().await.unwrap_or_default());
    r.json().await.unwrap()
}

/// 1 M findings spread like a long-running fleet's: 12 opcodes, 4 types, 7 modifier sets,
/// 9 classes, 6 sms (one without), statuses 70 % `new`, last seen over 30 days, each column
/// drawn independently.
async fn seed(pool: &PgPool, count: u64) {
    let statements = [
        "SET synchronous_commit = off",
        seed::PICK_FN,
        seed::INSERT_FINDINGS,
        "INSERT INTO reproducers (finding_id, content_sha256, target, device, driver_version, hits, program_text, reproducer)
         SELECT id, sha256(int8send(id)), 'cuda:0', 'NVIDIA H100 80GB HBM3',
                (ARRAY['535.183.01','550.54.15','555.42.06','560.35.03','570.86.10'])[(1 + id % 5)::int], occurrences, '', '{}'
         FROM findings",
        "ANALYZE findings",
        "ANALYZE reproducers",
    ];
    assert_eq!(DRIVERS.len(), 5);
    let mut conn = pool.acquire().await.unwrap();
    for sql in statements {
        let q = sqlx::query(sql);
        let q = if sql.contains("$1::int") { q.bind(count as i64) } else { q };
        q.execute(&mut *conn).await.unwrap_or_else(|e| panic!("seeding: {e}\n{sql}"));
    }
}

fn median_p95(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    if times.is_empty() {
        return (0.0, 0.0);
    }
    (ms(times[times.len() / 2]), ms(times[(times.len() * 95).div_ceil(100) - 1]))
}

async fn drop_databases(urls: &[String]) {
    let admin = PgPool::connect(&common::base_url()).await.unwrap();
    for url in urls {
        let name = &url[url.rfind('/').unwrap() + 1..];
        let _ = sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))).execute(&admin).await;
    }
}
