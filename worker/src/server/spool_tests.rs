//! Spool and outbox behaviour against a scripted sender (no network): order, retry with the
//! same bytes, refusal to `rejected/`, heartbeat coalescing, staged findings surviving a crash.

use std::sync::Mutex;

use super::*;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxfuzz-spool-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

/// Requests seen: path and body bytes.
type Seen = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// Answers each request with the next scripted outcome (then `Ok`), and records it.
#[derive(Clone, Default)]
struct Script {
    answers: Arc<Mutex<Vec<Result<(), Failure>>>>,
    seen: Seen,
}

impl Script {
    fn new(answers: Vec<Result<(), Failure>>) -> Script {
        Script { answers: Arc::new(Mutex::new(answers)), ..Script::default() }
    }
    fn seen(&self) -> Vec<(String, Vec<u8>)> {
        self.seen.lock().unwrap().clone()
    }
}

impl Sender for Script {
    fn send(&self, m: &Message, body: &[u8]) -> Result<(), Failure> {
        self.seen.lock().unwrap().push((m.path.clone(), body.to_vec()));
        let mut a = self.answers.lock().unwrap();
        if a.is_empty() {
            Ok(())
        } else {
            a.remove(0)
        }
    }
}

fn fast() -> Backoff {
    Backoff { min: Duration::from_millis(10), max: Duration::from_millis(40) }
}

fn msg(kind: Kind, path: &str, n: u64) -> Message {
    Message::new(kind, Method::Post, path.into(), &serde_json::json!({ "n": n }))
}

fn down() -> Result<(), Failure> {
    Err(Failure::Retryable("connection refused".into()))
}

#[test]
fn messages_wait_out_an_outage_and_arrive_in_order_with_the_same_bytes() {
    let dir = scratch("order");
    let spool = Arc::new(Spool::open(&dir).unwrap());
    for n in 0..5 {
        spool.push(&msg(Kind::Result, &format!("/r/{n}"), n)).unwrap();
    }
    let script = Script::new(vec![down(), down(), down()]);
    let status = Outbox::start(spool.clone(), script.clone(), fast()).finish(Duration::from_secs(10));
    assert_eq!(status.pending, 0, "{status:?}");
    assert_eq!(status.delivered, 5);
    assert_eq!(status.link, Link::Up);
    let seen = script.seen();
    // Three failed attempts at the first message, then all five in order.
    assert_eq!(seen.len(), 8);
    assert!(seen[..4].iter().all(|s| s == &seen[0]), "a retry sends the same bytes");
    let order: Vec<&str> = seen[3..].iter().map(|s| s.0.as_str()).collect();
    assert_eq!(order, ["/r/0", "/r/1", "/r/2", "/r/3", "/r/4"]);
    assert!(spool.pending().is_empty());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_refused_message_goes_to_rejected_and_is_not_retried() {
    let dir = scratch("reject");
    let spool = Arc::new(Spool::open(&dir).unwrap());
    spool.push(&msg(Kind::Findings, "/findings/batch", 1)).unwrap();
    spool.push(&msg(Kind::Findings, "/findings/batch", 2)).unwrap();
    let refusal = Err(Failure::Rejected { status: 400, detail: "unknown field `x`".into() });
    let script = Script::new(vec![refusal]);
    let status = Outbox::start(spool.clone(), script.clone(), fast()).finish(Duration::from_secs(10));
    assert_eq!((status.rejected, status.delivered, status.pending), (1, 1, 0));
    assert_eq!(script.seen().len(), 2, "the refused batch is sent once");
    assert_eq!(spool.rejected_count(), 1);
    let why = fs::read_dir(dir.join("rejected"))
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().ends_with(".problem.txt"))
        .map(|e| fs::read_to_string(e.path()).unwrap())
        .unwrap();
    assert!(why.contains("HTTP 400: unknown field `x`"), "{why}");
    // A new outbox on the same spool has nothing to send.
    let again = Script::default();
    Outbox::start(Arc::new(Spool::open(&dir).unwrap()), again.clone(), fast()).finish(Duration::from_secs(2));
    assert!(again.seen().is_empty());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_refused_token_stops_delivery_and_keeps_the_spool() {
    let dir = scratch("token");
    let spool = Arc::new(Spool::open(&dir).unwrap());
    for n in 0..3 {
        spool.push(&msg(Kind::Result, "/r", n)).unwrap();
    }
    let script = Script::new(vec![Err(Failure::Unauthorized { status: 401, detail: "bad token".into() })]);
    let status = Outbox::start(spool.clone(), script.clone(), fast()).finish(Duration::from_secs(5));
    assert_eq!(status.link, Link::Unauthorized("bad token".into()));
    assert_eq!(status.pending, 3);
    assert_eq!(script.seen().len(), 1, "nothing more is tried after a 401");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn only_the_newest_heartbeat_of_a_campaign_is_sent() {
    let dir = scratch("heartbeat");
    let spool = Spool::open(&dir).unwrap();
    spool.push(&msg(Kind::Heartbeat, "/campaigns/a/heartbeat", 1)).unwrap();
    spool.push(&msg(Kind::Heartbeat, "/campaigns/b/heartbeat", 1)).unwrap();
    spool.push(&msg(Kind::Findings, "/findings/batch", 9)).unwrap();
    spool.push(&msg(Kind::Heartbeat, "/campaigns/a/heartbeat", 2)).unwrap();
    spool.push(&msg(Kind::Heartbeat, "/campaigns/a/heartbeat", 3)).unwrap();
    let left: Vec<(Kind, serde_json::Value)> =
        spool.coalesce().iter().map(|e| (e.kind, spool.load(e).unwrap().body["n"].clone())).collect();
    assert_eq!(
        left,
        [(Kind::Heartbeat, 1.into()), (Kind::Findings, 9.into()), (Kind::Heartbeat, 3.into())],
        "b's only heartbeat, the batch, and a's newest"
    );
    assert_eq!(spool.pending().len(), 3, "moot heartbeats are deleted");
    fs::remove_dir_all(&dir).unwrap();
}

fn report(n: u64) -> FindingReport {
    use crate::repro::{Provenance, Reproducer, ReproducerExt};
    let program = ptx::program::Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n").unwrap();
    let case = crate::minimize::Case { program, inputs: vec![0x3f00_0000, 0x3304_0000] };
    let meta = Provenance { signature: "add.rz.f32~rounding~normal.normal~sm90".into(), sm: 90, ..Provenance::default() };
    let r = Reproducer::new(&case, &[0x3f00_0001], meta).unwrap();
    FindingReport { reproducer: r, hits: n, ptx: None, sass: None }
}

#[test]
fn staged_findings_of_a_dead_campaign_are_sealed_into_batches_on_open() {
    let dir = scratch("staged");
    let a = Some(Uuid::new_v4());
    {
        let spool = Spool::open(&dir).unwrap();
        spool.push(&msg(Kind::Campaign, "/campaigns/a", 0)).unwrap();
        for n in 1..=3 {
            spool.stage(a, &report(n)).unwrap();
        }
        spool.stage(None, &report(4)).unwrap();
        // Dropped without sealing: the process died.
    }
    let spool = Spool::open(&dir).unwrap();
    assert_eq!(spool.staged_count(), 0);
    let pending = spool.pending();
    let kinds: Vec<Kind> = pending.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [Kind::Campaign, Kind::Findings, Kind::Findings]);
    let b1: IngestBatch = serde_json::from_value(spool.load(&pending[1]).unwrap().body).unwrap();
    let b2: IngestBatch = serde_json::from_value(spool.load(&pending[2]).unwrap().body).unwrap();
    assert_eq!(b1.campaign_id, a);
    assert_eq!(b1.findings.iter().map(|f| f.hits).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!((b2.campaign_id, b2.findings.len()), (None, 1));
    // New messages number after everything there.
    spool.push(&msg(Kind::Result, "/r", 0)).unwrap();
    assert_eq!(spool.pending().last().unwrap().kind, Kind::Result);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn batches_hold_at_most_batch_reports() {
    let dir = scratch("chunks");
    let spool = Spool::open(&dir).unwrap();
    let id = Some(Uuid::new_v4());
    let r = report(1);
    for _ in 0..BATCH + 1 {
        spool.stage(id, &r).unwrap();
    }
    assert_eq!(spool.seal().unwrap(), BATCH + 1);
    let sizes: Vec<u64> = spool.pending().iter().map(|e| spool.load(e).unwrap().reports()).collect();
    assert_eq!(sizes, [BATCH as u64, 1]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn file_names_are_numbered_and_temporaries_ignored() {
    assert_eq!(parse_name("000000000042.findings.json"), Some((42, Some(Kind::Findings))));
    assert_eq!(parse_name("000000000042.json"), Some((42, None)));
    assert_eq!(parse_name("000000000042.findings.json.tmp-77"), None);
    assert_eq!(parse_name("42.findings.json"), None);
    assert_eq!(parse_name("000000000042.bogus.json"), None);
}

#[test]
fn truncated_spool_files_are_counted_as_rejected_not_as_delivered() {
    let dir = scratch("truncated");
    fs::create_dir_all(dir.join("staged")).unwrap();
    fs::write(dir.join("000000000001.findings.json"), "{\"kind\": \"findings\", \"meth").unwrap();
    fs::write(dir.join("staged/000000000002.json"), "").unwrap();
    let spool = Arc::new(Spool::open(&dir).unwrap());
    assert_eq!(spool.rejected_this_run(), 1, "the staged report, at open");
    spool.push(&msg(Kind::Result, "/r/0", 0)).unwrap();
    let script = Script::default();
    let status = Outbox::start(spool.clone(), script.clone(), fast()).finish(Duration::from_secs(10));
    assert_eq!((status.rejected, status.delivered, status.pending), (2, 1, 0), "{status:?}");
    assert_eq!(script.seen().len(), 1, "only the whole message is sent");
    assert!(status.to_string().contains("2 rejected (moved to .spool/rejected/"), "{status}");
    let problems = fs::read_dir(dir.join("rejected")).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".problem.txt")).count();
    assert_eq!(problems, 2, "each with the reason beside it");
    fs::remove_dir_all(&dir).unwrap();
}
