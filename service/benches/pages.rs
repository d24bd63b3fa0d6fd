//! Dashboard page latency at scale (`cargo bench -p service --bench pages`; figures in
//! docs/dashboard.md): 1,000,000 findings seeded by SQL (one reproducer each, a sample with real
//! reproducer JSON and hundreds of occurrences), regressions with runs on several GPUs and
//! drivers; then each page is fetched as a browser would (HTML, no session) and timed:
//! `/`, `/findings` unfiltered and filtered, pages 1..20 through the `a#next-page` links,
//! `/findings/{id}`, `/regressions`, `/sweeps` (3,600 reports, 120 latest). Target: list pages under 100 ms.
//!
//! Environment: `BENCH_FINDINGS` (1000000), `BENCH_REQUESTS` per page (30), `BENCH_KEEP=1`
//! keeps the database (its URL is printed) for EXPLAIN ANALYZE.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/support/reports.rs"]
mod reports;
#[path = "support/seed.rs"]
mod seed;

use std::time::{Duration, Instant};

use common::TestServer;
use sqlx::PgPool;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Every 1000th finding gets a real reproducer (the detail page renders it).
const SAMPLE_EVERY: i64 = 1000;
/// Of those, this many get `EXTRA_OCCURRENCES` more reproducers each: the detail page must stay
/// bounded however often a finding was seen.
const HEAVY: i64 = 10;
const EXTRA_OCCURRENCES: i64 = 500;
const REGRESSIONS: i64 = 300;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let count: i64 = env_or("BENCH_FINDINGS", 1_000_000);
    let requests: usize = env_or("BENCH_REQUESTS", 30);
    let cores = std::thread::available_parallelism().map_or(0, |p| p.get());
    println!("dashboard pages benchmark: {count} findings, {requests} requests per page; {cores} cores");
    let s = TestServer::start().await;
    let t = Instant::now();
    seed(&s.pool, count).await;
    println!("seeded in {:.1} s (not timed below)", t.elapsed().as_secs_f64());

    let heavy_id: i64 = sqlx::query_scalar("SELECT finding_id FROM reproducers GROUP BY finding_id ORDER BY count(*) DESC LIMIT 1")
        .fetch_one(&s.pool)
        .await
        .unwrap();
    let since = (chrono::Utc::now() - chrono::Duration::days(1)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let pages: Vec<(String, String)> = vec![
        ("overview /".into(), "/".into()),
        ("/findings (no filter)".into(), "/findings".into()),
        ("/findings?opcode=fma".into(), "/findings?opcode=fma".into()),
        ("/findings?type=f64&class=rounding".into(), "/findings?type=f64&class=rounding".into()),
        ("/findings?status=interpreter-bug".into(), "/findings?status=interpreter-bug".into()),
        ("/findings?modifier=ftz".into(), "/findings?modifier=ftz".into()),
        ("/findings?sm=90".into(), "/findings?sm=90".into()),
        ("/findings?driver=550.54.15".into(), "/findings?driver=550.54.15".into()),
        ("/findings?since=1 day ago".into(), format!("/findings?since={since}")),
        ("/findings?instruction=fma.rn.f64&sm=90&status=new".into(), "/findings?instruction=fma.rn.f64&sm=90&status=new".into()),
        (format!("/findings/{{id}} ({} reproducers)", 1 + EXTRA_OCCURRENCES), format!("/findings/{heavy_id}")),
        ("/regressions".into(), "/regressions".into()),
        ("/sweeps (120 histograms)".into(), "/sweeps".into()),
    ];
    println!("    {:<52} {:>10} {:>10} {:>8}", "page", "median ms", "p95 ms", "KiB");
    for (name, path) in &pages {
        let mut times = Vec::new();
        let mut size = 0;
        // The first 3 warm the caches.
        for k in 0..requests + 3 {
            let t = Instant::now();
            size = get_html(&s, path).await.len();
            if k >= 3 {
                times.push(t.elapsed());
            }
        }
        let (median, p95) = median_p95(&mut times);
        println!("    {name:<52} {median:>10.1} {p95:>10.1} {:>8.0}", size as f64 / 1024.0);
    }

    // Keyset paging as a reader does it: follow `a#next-page` to page 20, timing every page.
    for (name, first) in [("no filter", "/findings"), ("opcode=fma", "/findings?opcode=fma")] {
        let mut times = Vec::new();
        let mut page20 = Vec::new();
        for _ in 0..(requests / 10).max(2) {
            let mut path = first.to_string();
            for page in 1..=20 {
                let t = Instant::now();
                let html = get_html(&s, &path).await;
                let took = t.elapsed();
                times.push(took);
                if page == 20 {
                    page20.push(took);
                    break;
                }
                path = next_link(&html).unwrap_or_else(|| panic!("{first}: page {page} has no a#next-page with {count} findings"));
            }
        }
        let (median, p95) = median_p95(&mut times);
        let (median20, p95_20) = median_p95(&mut page20);
        println!("    {:<52} {median:>10.1} {p95:>10.1}", format!("{name}: pages 1..20 via a#next-page (per page)"));
        println!("    {:<52} {median20:>10.1} {p95_20:>10.1}", format!("{name}: page 20 alone"));
    }

    if std::env::var("BENCH_KEEP").as_deref() == Ok("1") {
        println!("database kept: {}", s.database_url);
    } else {
        s.pool.close().await;
        let admin = PgPool::connect(&common::base_url()).await.unwrap();
        let name = &s.database_url[s.database_url.rfind('/').unwrap() + 1..];
        let _ = sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))).execute(&admin).await;
    }
}

async fn get_html(s: &TestServer, path: &str) -> String {
    let r = s.get(path).send().await.expect("server answers");
    let status = r.status();
    let body = r.text().await.unwrap_or_default();
    assert!(status.is_success(), "{path}: {status}: {}", &body[..body.len().min(500)]);
    body
}

/// The href of the `<a ... id="next-page" ...>` tag, unescaped.
fn next_link(html: &str) -> Option<String> {
    let at = html.find("id=\"next-page\"")?;
    let open = html[..at].rfind('<')?;
    let close = open + html[open..].find('>')?;
    let tag = &html[open..close];
    let href = tag.find("href=\"")? + 6;
    let end = href + tag[href..].find('"')?;
    Some(tag[href..end].replace("&amp;", "&"))
}

/// Findings spread like a long-running fleet's (the same distribution as benches/ingest.rs's
/// list benchmark: 12 opcodes, 4 types, 7 modifier sets, 9 classes, 6 sms, 70 % `new`, last
/// seen over 30 days, each column drawn independently), one reproducer each; a sample with real
/// reproducer JSON, a few with hundreds of occurrences; regressions with runs.
async fn seed(pool: &PgPool, count: i64) {
    let template = reports::report("add.rz.f32~rounding~normal.normal~sm90", 0, 1);
    let repro_json = serde_json::to_value(&template.reproducer).unwrap();
    let program_text = template.reproducer.program_text.clone();
    // Each statement with the parameters it takes, in order ($1, $2, ...).
    let statements: Vec<(&str, &[P])> = vec![
        ("SET synchronous_commit = off", &[]),
        (seed::PICK_FN, &[]),
        (seed::INSERT_FINDINGS, &[P::Count]),
        ("INSERT INTO reproducers (finding_id, content_sha256, target, device, driver_version, hits, program_text, reproducer)
         SELECT id, sha256(int8send(id)), 'cuda:0', 'NVIDIA H100 80GB HBM3',
                (ARRAY['535.183.01','550.54.15','555.42.06','560.35.03','570.86.10'])[(1 + id % 5)::int], occurrences, '', '{}'
         FROM findings", &[]),
        // The sample: real reproducer JSON (its signature the finding's own).
        ("UPDATE reproducers r SET reproducer = jsonb_set($1::jsonb, '{signature}', to_jsonb(f.signature)), program_text = $2,
                                  ptx = '// ptx\n', sass = '        /*0000*/ FADD.RZ R0, R2, R3 ;'
         FROM findings f WHERE f.id = r.finding_id AND f.id % $3 = 0", &[P::Json, P::Text, P::Sample]),
        // A few sampled findings seen hundreds of times, on every driver.
        ("INSERT INTO reproducers (finding_id, content_sha256, target, device, driver_version, hits, program_text, reproducer)
         SELECT f.id, sha256(int8send(f.id) || int8send(k)), 'cuda:0', 'NVIDIA H100 80GB HBM3',
                (ARRAY['535.183.01','550.54.15','555.42.06','560.35.03','570.86.10'])[(1 + k % 5)::int], 1, $1,
                jsonb_set($2::jsonb, '{signature}', to_jsonb(f.signature))
         FROM findings f, generate_series(1, $3::int) AS k
         WHERE f.id % $4 = 0 AND f.id <= $4 * $5", &[P::Text, P::Json, P::Extra, P::Sample, P::Heavy]),
        ("UPDATE findings SET occurrences = occurrences + $1, reproducers = reproducers + $1 WHERE id % $2 = 0 AND id <= $2 * $3", &[P::Extra, P::Sample, P::Heavy]),
        // Regressions from sampled findings, each run on 3 GPUs x 5 drivers, twice.
        ("INSERT INTO regressions (finding_id, title, program, program_text, inputs, expected, sm, created_by, last_run_at)
         SELECT f.id, 'regression of ' || f.signature, $1::jsonb -> 'program', $2, '{0x3f000000,0x33040000}', '{0x3f000000}',
                90, 'bench', now()
         FROM findings f WHERE f.id % $3 = 0 ORDER BY f.id LIMIT $4", &[P::Json, P::Text, P::Sample, P::Regressions]),
        ("INSERT INTO regression_runs (regression_id, lease_id, at, worker, target, gpu_name, driver_version, interpreter_commit, passed, actual)
         SELECT r.id, gen_random_uuid(), now() - (k || ' hours')::interval, 'gpu-box', 'cuda:0', gpu, drv,
                'ptxfuzz 0.1.0 (abc1234)', (hashint8(r.id * 100 + k)::bigint % 7) <> 0, '{0x3f000000}'
         FROM regressions r,
              unnest(ARRAY['NVIDIA H100 80GB HBM3','NVIDIA A100-SXM4-80GB','NVIDIA L40S']) AS gpu,
              unnest(ARRAY['535.183.01','550.54.15','555.42.06','560.35.03','570.86.10']) AS drv,
              generate_series(1, 2) AS k", &[]),
        // Sweeps: 20 instructions and 20 functions on 3 targets, 30 reports each (the page shows
        // the latest of each: 120 histograms of 16 buckets).
        ("INSERT INTO sweeps (kind, name, target, gpu_name, driver_version, interpreter_commit, inputs, exhaustive, mismatches,
                             max_ulps, histogram, bound_text, bound_ulps, reported_by, at)
         SELECT CASE WHEN n <= 20 THEN 'sweep' ELSE 'math-check' END,
                CASE WHEN n <= 20 THEN 'op' || n || '.approx.f32' ELSE 'fn' || n || 'f' END,
                t, 'NVIDIA H100 80GB HBM3', '550.54.15', 'ptxfuzz 0.1.0 (abc1234)', 4294967296, true, 0, 15,
                (SELECT jsonb_agg(jsonb_build_object('label', b || ' ulp', 'lo', b, 'count', 1000000 >> b)) FROM generate_series(0, 15) AS b),
                '{maximum relative error 4 ulp}', 4, 'bench', now() - (k || ' days')::interval
         FROM generate_series(1, 40) AS n, unnest(ARRAY['cuda:0','cuda:1','interp']) AS t, generate_series(1, 30) AS k", &[]),
        ("ANALYZE", &[]),
    ];
    let mut conn = pool.acquire().await.unwrap();
    for (sql, params) in statements {
        let mut q = sqlx::query(sql);
        for p in params {
            q = match p {
                P::Count => q.bind(count),
                P::Json => q.bind(repro_json.clone()),
                P::Text => q.bind(program_text.clone()),
                P::Sample => q.bind(SAMPLE_EVERY),
                P::Heavy => q.bind(HEAVY),
                P::Extra => q.bind(EXTRA_OCCURRENCES),
                P::Regressions => q.bind(REGRESSIONS),
            };
        }
        q.execute(&mut *conn).await.unwrap_or_else(|e| panic!("seeding: {e}\n{sql}"));
    }
}

/// The seeding statements' parameters.
#[derive(Clone, Copy)]
enum P {
    Count,
    Json,
    Text,
    Sample,
    Heavy,
    Extra,
    Regressions,
}

fn median_p95(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    if times.is_empty() {
        return (0.0, 0.0);
    }
    (ms(times[times.len() / 2]), ms(times[(times.len() * 95).div_ceil(100) - 1]))
}
