//! Ingest: a batch of reports is validated whole (nothing is written when one report is bad),
//! then stored in one transaction of set-based statements: insert the batch's new findings
//! (sorted by signature), insert the reports keyed by their content hash (a retried report
//! inserts nothing), then lock the findings in id order and add only the new reports to their
//! counters and move their `first_seen` back to an earlier worker meeting. Locking last keeps
//! concurrent batches from queueing behind each other. A new finding's `first_seen` is the
//! earliest `found_at` of the batch. The overview's counts follow through triggers that only
//! append (migrations/0011), so they add no lock to the batch; they are folded after the commit.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use api::findings::{FindingReport, IngestBatch, IngestResult, MAX_BATCH};
use api::repro::FORMAT;
use api::Signature;
use ptx::program::Program;
use ptx::value::parse_hex;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use crate::db::clusters::{self, ClusterInfo};
use crate::validate::fields::{cap, MAX_PTX, MAX_SASS};
use uuid::Uuid;

/// Hits one report may add (keeps the BIGINT sums far from overflow).
pub const MAX_HITS: u64 = 1 << 40;

/// Why a batch was refused; nothing was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
    /// No reports.
    Empty,
    /// More than [`MAX_BATCH`] reports.
    TooLarge(usize),
    /// A report is malformed; the message names it (`findings[3].reproducer.signature: ...`).
    Invalid(String),
    /// The batch names a campaign the server does not know.
    UnknownCampaign(Uuid),
}

/// The columns of one finding, from its parsed signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingKey {
    pub signature: String,
    pub instruction: String,
    pub opcode: String,
    pub ty: String,
    pub modifiers: Vec<String>,
    pub class: String,
    pub operand_classes: String,
    pub sm: Option<i32>,
}

impl FindingKey {
    pub fn of(sig: &Signature) -> FindingKey {
        let (instruction, opcode, ty, modifiers) = match &sig.instr {
            None => ("input".to_string(), "input".to_string(), String::new(), Vec::new()),
            Some(i) => {
                // The printed form is `opcode[.modifier...].type` (ptx::isa::text), the
                // modifiers in canonical order; `.xorsign.abs` counts as its two words.
                let text = i.to_string();
                let parts: Vec<&str> = text.split('.').collect();
                let modifiers = parts[1..parts.len().saturating_sub(1)].iter().map(|m| m.to_string()).collect();
                (text.clone(), i.op.name().to_string(), i.ty.name().to_string(), modifiers)
            }
        };
        FindingKey {
            signature: sig.key(),
            instruction,
            opcode,
            ty,
            modifiers,
            class: sig.class.name().to_string(),
            operand_classes: sig.operands.iter().map(|o| o.name()).collect::<Vec<_>>().join("."),
            sm: sig.sm.map(|s| s as i32),
        }
    }
}

/// One validated report, ready to store.
struct Row {
    key: FindingKey,
    sha: Vec<u8>,
    hits: i64,
    target: String,
    device: String,
    program_text: String,
    reproducer: String,
    ptx: Option<String>,
    sass: Option<String>,
    /// When the worker met it (`Reproducer::found_at`).
    found_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// Whether canonical JSON text holds a `\u0000` escape (a NUL, which PostgreSQL's text and
/// jsonb refuse), telling `\\u0000` (an escaped backslash, then text) apart.
fn has_nul_escape(json: &[u8]) -> bool {
    let pat = b"\\u0000";
    let mut i = 0;
    while let Some(off) = json[i..].windows(pat.len()).position(|w| w == pat) {
        let at = i + off;
        let backslashes = json[..=at].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 1 {
            return true;
        }
        i = at + 1;
    }
    false
}

fn check_hex(field: &str, values: &[String]) -> Result<(), String> {
    for (k, v) in values.iter().enumerate() {
        if v.strip_prefix("0x").and_then(parse_hex).is_none() {
            return Err(format!("{field}[{k}]: '{v}' is not a 0x-prefixed hex value of at most 64 bits"));
        }
    }
    Ok(())
}

/// Validate one report; errors are relative to the report (`reproducer.signature: ...`).
/// `now` is the server's clock, for the report's `found_at`.
fn prepare(report: &FindingReport, now: chrono::DateTime<chrono::Utc>) -> Result<Row, String> {
    let r = &report.reproducer;
    if r.ptxfuzz_repro != FORMAT {
        return Err(format!("reproducer.ptxfuzz_repro: format {} is not the one this server reads ({FORMAT}); upgrade the worker or the server", r.ptxfuzz_repro));
    }
    let sig: Signature = r.signature.parse().map_err(|e| format!("reproducer.signature: {e}"))?;
    if r.class != sig.class.name() {
        return Err(format!("reproducer.class: '{}' differs from the signature's class '{}'", r.class, sig.class.name()));
    }
    if sig.sm.is_some_and(|s| i32::try_from(s).is_err()) {
        return Err("reproducer.signature: the sm is out of range".into());
    }
    if let Some(o) = &r.original {
        check_hex("reproducer.original.inputs", &o.inputs)?;
    }
    let program = Program::from_json(&r.program.to_string()).map_err(|e| format!("reproducer.program: {e}"))?;
    if program.inputs().len() != r.inputs.len() {
        return Err(format!(
            "reproducer.inputs: {} value(s) for a program taking {}",
            r.inputs.len(),
            program.inputs().len()
        ));
    }
    let outputs = program.outputs().len();
    for (field, n) in [("expected", r.expected.len()), ("actual", r.actual.len())] {
        if n != outputs {
            return Err(format!("reproducer.{field}: {n} value(s) for a program with {outputs} output(s)"));
        }
    }
    // Widths, sm and judge: a value that cannot be right breaks the pages and downloads later.
    crate::validate::check_reported(r, &program).map_err(|e| format!("reproducer.{e}"))?;
    if let Some(&k) = r.failing_outputs.iter().find(|&&k| k >= outputs) {
        return Err(format!("reproducer.failing_outputs: output {k} does not exist (the program has {outputs})"));
    }
    // Text, decimals and failing outputs that contradict the program and values above.
    crate::validate::report::check_consistent(r, &program, now).map_err(|e| format!("reproducer.{e}"))?;
    if let Some(ptx) = &report.ptx {
        cap("ptx", ptx, MAX_PTX, "send the .ptx file of the minimized program (`ptxfuzz minimize`), or none (null)")?;
    }
    if let Some(sass) = &report.sass {
        cap("sass", sass, MAX_SASS, "send the SASS of the reproducer's one kernel, or none (null)")?;
    }
    if report.hits > MAX_HITS {
        return Err(format!("hits: {} is out of range (at most {MAX_HITS})", report.hits));
    }
    // serde_json writes struct fields in declaration order and maps sorted: the same report
    // always gives the same bytes, hence the same hash.
    let canonical = serde_json::to_vec(report).map_err(|e| format!("cannot serialise: {e}"))?;
    if has_nul_escape(&canonical) {
        return Err("contains a NUL character (\\u0000), which cannot be stored; remove it".into());
    }
    Ok(Row {
        key: FindingKey::of(&sig),
        sha: Sha256::digest(&canonical).to_vec(),
        hits: report.hits as i64,
        target: r.target.clone(),
        device: r.device.clone(),
        program_text: r.program_text.clone(),
        reproducer: serde_json::to_string(r).map_err(|e| format!("cannot serialise: {e}"))?,
        ptx: report.ptx.clone(),
        sass: report.sass.clone(),
        found_at: r.found_at,
    })
}

/// Cluster each signature of the batch that has no cluster yet (`clustered` holds those that
/// do: a finding keeps its cluster until `recluster`), from its first report in the batch. CPU
/// work (the explanation catalogue runs the interpreter, about 10 us a report on the 2-core
/// VM, docs/benchmarks.md): run it off the async threads.
fn cluster_batch(rows: &[Row], batch: &IngestBatch, clustered: &HashSet<String>) -> HashMap<String, ClusterInfo> {
    let mut clusters: HashMap<String, ClusterInfo> = HashMap::new();
    for (row, report) in rows.iter().zip(&batch.findings) {
        if !clustered.contains(&row.key.signature) && !clusters.contains_key(&row.key.signature) {
            clusters.insert(row.key.signature.clone(), ClusterInfo::of(&report.reproducer, &row.key));
        }
    }
    clusters
}

fn validate_batch(batch: &IngestBatch) -> Result<Vec<Row>, Rejected> {
    match batch.findings.len() {
        0 => return Err(Rejected::Empty),
        n if n > MAX_BATCH => return Err(Rejected::TooLarge(n)),
        _ => {}
    }
    let now = chrono::Utc::now();
    batch
        .findings
        .iter()
        .enumerate()
        .map(|(k, r)| prepare(r, now).map_err(|e| Rejected::Invalid(format!("findings[{k}].{e}"))))
        .collect()
}

/// What a batch adds to one existing finding (step 3 of [`ingest`]).
#[derive(Default)]
struct Update {
    /// Hits of the batch's new reports.
    hits: i64,
    /// New reports (retried ones not counted).
    reports: i64,
    /// The batch's earliest `found_at`, where the finding existed before the batch.
    found: Option<chrono::DateTime<chrono::Utc>>,
}

/// Store a batch; `Ok(Err(_))` when it was refused (nothing written).
pub async fn ingest(pool: &PgPool, batch: IngestBatch) -> Result<Result<IngestResult, Rejected>, sqlx::Error> {
    let campaign_id = batch.campaign_id;
    let (batch, rows) = match tokio::task::spawn_blocking(move || validate_batch(&batch).map(|rows| (batch, rows))).await {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(rejected)) => return Ok(Err(rejected)),
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    };
    // Explanations only for findings without a cluster: in a long campaign most reports add
    // to existing findings, and ingest does not pay for the catalogue again.
    let signatures: Vec<String> = rows.iter().map(|r| r.key.signature.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let clustered: HashSet<String> =
        sqlx::query_scalar("SELECT signature FROM findings WHERE signature = ANY($1) AND cluster_id IS NOT NULL")
            .bind(&signatures)
            .fetch_all(pool)
            .await?
            .into_iter()
            .collect();
    let (rows, clusters) = match tokio::task::spawn_blocking(move || {
        let clusters = cluster_batch(&rows, &batch, &clustered);
        (rows, clusters)
    })
    .await
    {
        Ok(done) => done,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    };
    let mut tx = pool.begin().await?;
    let driver = match campaign_id {
        None => None,
        Some(id) => match super::super::campaigns::driver_version(&mut tx, id).await? {
            Some(d) => d,
            None => return Ok(Err(Rejected::UnknownCampaign(id))),
        },
    };

    // 0. The batch's clusters (created when new; existing ones are not locked).
    let cluster_id = clusters::ids_for(&mut tx, &clusters.values().collect::<Vec<_>>()).await?;
    // None: the finding exists with its cluster (COALESCE below keeps it).
    let cluster_of = |signature: &str| clusters.get(signature).map(|c| cluster_id[&c.key]);

    // 1. The batch's findings, one row per signature, in signature order.
    let mut keys: BTreeMap<&str, &FindingKey> = BTreeMap::new();
    for r in &rows {
        keys.entry(r.key.signature.as_str()).or_insert(&r.key);
    }
    let keys: Vec<&FindingKey> = keys.into_values().collect();
    // The earliest time a worker met each signature (a report of an older worker has none).
    let mut found: HashMap<&str, chrono::DateTime<chrono::Utc>> = HashMap::new();
    for r in &rows {
        if let Some(t) = r.found_at {
            found.entry(r.key.signature.as_str()).and_modify(|e| *e = (*e).min(t)).or_insert(t);
        }
    }
    let col = |f: fn(&FindingKey) -> String| keys.iter().map(|k| f(k)).collect::<Vec<String>>();
    // New signatures are inserted without touching existing rows: an existing finding is only
    // locked at the end (step 3), so concurrent batches sharing findings overlap for the whole
    // report insert instead of queueing behind each other's row locks.
    let mut ids: Vec<(i64, String)> = sqlx::query!(
        r#"INSERT INTO findings (signature, instruction, opcode, type, modifiers, class, operand_classes, sm, cluster_id,
                                first_seen)
           SELECT s, i, o, t, string_to_array(m, '.'), c, oc, sm, cl, LEAST(fa, now())
           FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int4[],
                       $9::int8[], $10::timestamptz[])
                AS u(s, i, o, t, m, c, oc, sm, cl, fa)
           ORDER BY s
           ON CONFLICT (signature) DO NOTHING
           RETURNING id, signature"#,
        &signatures,
        &col(|k| k.instruction.clone()),
        &col(|k| k.opcode.clone()),
        &col(|k| k.ty.clone()),
        &col(|k| k.modifiers.join(".")),
        &col(|k| k.class.clone()),
        &col(|k| k.operand_classes.clone()),
        &keys.iter().map(|k| k.sm).collect::<Vec<Option<i32>>>() as &[Option<i32>],
        &keys.iter().map(|k| cluster_of(&k.signature)).collect::<Vec<Option<i64>>>() as &[Option<i64>],
        // LEAST ignores a NULL: a report without found_at makes it now (a worker clock
        // ahead of the server's counts as now too).
        &keys.iter().map(|k| found.get(k.signature.as_str()).copied()).collect::<Vec<_>>()
            as &[Option<chrono::DateTime<chrono::Utc>>],
    )
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .map(|r| (r.id, r.signature))
    .collect();
    // Findings that existed before this batch, where the batch met them earlier than their
    // first_seen (which only ever moves back, so a row already earlier needs no lock in step 3).
    let mut moves: Vec<(i64, chrono::DateTime<chrono::Utc>)> = Vec::new();
    if ids.len() < signatures.len() {
        // The others existed already (or a concurrent batch committed them meanwhile).
        let new: std::collections::HashSet<String> = ids.iter().map(|(_, s)| s.clone()).collect();
        let existing =
            sqlx::query!("SELECT id, signature, first_seen FROM findings WHERE signature = ANY($1)", &signatures)
                .fetch_all(&mut *tx)
                .await?;
        for r in existing.into_iter().filter(|r| !new.contains(&r.signature)) {
            match found.get(r.signature.as_str()) {
                Some(&t) if t < r.first_seen => moves.push((r.id, t)),
                _ => {}
            }
            ids.push((r.id, r.signature));
        }
    }
    let id_of: HashMap<String, i64> = ids.into_iter().map(|(id, sig)| (sig, id)).collect();
    let finding_ids: Vec<i64> = rows.iter().map(|r| id_of[&r.key.signature]).collect();

    // 2. The reports, in hash order; a hash already stored inserts nothing.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| rows[a].sha.cmp(&rows[b].sha));
    let inserted = sqlx::query!(
        r#"INSERT INTO reproducers (finding_id, campaign_id, content_sha256, target, device, driver_version, hits,
                                    program_text, reproducer, ptx, sass)
           SELECT f, $1, h, t, d, $2, n, p, r::jsonb, x, y
           FROM UNNEST($3::int8[], $4::bytea[], $5::text[], $6::text[], $7::int8[], $8::text[], $9::text[],
                       $10::text[], $11::text[]) AS u(f, h, t, d, n, p, r, x, y)
           ON CONFLICT (content_sha256) DO NOTHING
           RETURNING finding_id, hits"#,
        campaign_id,
        driver,
        &order.iter().map(|&k| finding_ids[k]).collect::<Vec<i64>>(),
        &order.iter().map(|&k| rows[k].sha.clone()).collect::<Vec<Vec<u8>>>(),
        &order.iter().map(|&k| rows[k].target.clone()).collect::<Vec<String>>(),
        &order.iter().map(|&k| rows[k].device.clone()).collect::<Vec<String>>(),
        &order.iter().map(|&k| rows[k].hits).collect::<Vec<i64>>(),
        &order.iter().map(|&k| rows[k].program_text.clone()).collect::<Vec<String>>(),
        &order.iter().map(|&k| rows[k].reproducer.clone()).collect::<Vec<String>>(),
        &order.iter().map(|&k| rows[k].ptx.clone()).collect::<Vec<Option<String>>>() as &[Option<String>],
        &order.iter().map(|&k| rows[k].sass.clone()).collect::<Vec<Option<String>>>() as &[Option<String>],
    )
    .fetch_all(&mut *tx)
    .await?;

    // 3. Only new reports count, and an earlier meeting moves an existing finding's first_seen
    // back. The findings are locked in id order first, so that two batches updating the same
    // findings cannot deadlock; NO KEY UPDATE (what the UPDATE takes anyway) does not conflict
    // with the KEY SHARE locks other batches' reports take through their foreign key, where FOR
    // UPDATE would, and deadlock with them. The counts trigger a move fires only appends.
    let mut sums: BTreeMap<i64, Update> = BTreeMap::new();
    for r in &inserted {
        let e = sums.entry(r.finding_id).or_default();
        e.hits += r.hits;
        e.reports += 1;
    }
    for (id, found) in moves {
        sums.entry(id).or_default().found = Some(found);
    }
    if !sums.is_empty() {
        let ids: Vec<i64> = sums.keys().copied().collect();
        let signature_of: HashMap<i64, &str> = id_of.iter().map(|(s, &id)| (id, s.as_str())).collect();
        let cluster_ids: Vec<Option<i64>> = ids.iter().map(|id| cluster_of(signature_of[id])).collect();
        sqlx::query!("SELECT id FROM findings WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE", &ids)
            .fetch_all(&mut *tx)
            .await?;
        sqlx::query!(
            r#"UPDATE findings f
               SET occurrences = f.occurrences + u.h, reproducers = f.reproducers + u.n,
                   -- Only a new report is a new sighting (a retry is not).
                   last_seen = CASE WHEN u.n > 0 THEN GREATEST(f.last_seen, now()) ELSE f.last_seen END,
                   -- A worker clock ahead of the server's counts as now.
                   first_seen = CASE WHEN u.found IS NULL THEN f.first_seen ELSE LEAST(f.first_seen, u.found, now()) END,
                   -- A finding stored before clusters existed gets one; recluster moves the rest.
                   cluster_id = COALESCE(f.cluster_id, u.c)
               FROM UNNEST($1::int8[], $2::int8[], $3::int8[], $4::int8[], $5::timestamptz[]) AS u(id, h, n, c, found)
               WHERE f.id = u.id"#,
            &ids,
            &sums.values().map(|u| u.hits).collect::<Vec<i64>>(),
            &sums.values().map(|u| u.reports).collect::<Vec<i64>>(),
            &cluster_ids as &[Option<i64>],
            &sums.values().map(|u| u.found).collect::<Vec<_>>() as &[Option<chrono::DateTime<chrono::Utc>>],
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    // Bounded work (the deltas since the last fold) that waits for no lock. The batch is stored
    // whatever happens here, so a failed fold is not the client's error: its deltas wait for the
    // next fold, and the counts (sums over both tables) are right either way.
    if let Err(e) = crate::db::overview::compact_finding_counts(pool).await {
        tracing::warn!("finding counts not folded (the next ingest folds them): {e}");
    }
    let received = rows.len() as u64;
    let new = inserted.len() as u64;
    Ok(Ok(IngestResult { received, inserted: new, duplicates: received - new, finding_ids }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_escapes_are_found_but_escaped_backslashes_are_not() {
        assert!(has_nul_escape(br#"{"a":"x\u0000"}"#));
        assert!(!has_nul_escape(br#"{"a":"x\\u0000"}"#));
        assert!(has_nul_escape(br#"{"a":"x\\\u0000"}"#));
        assert!(!has_nul_escape(br#"{"a":"u0000"}"#));
    }

    /// The 281 reports of a real H100 campaign (read as `ptxfuzz deliver --findings` reads
    /// them) and the 8 of `shared/hw/h100-sm90/findings` pass every check of a report: the
    /// consistency checks refuse contradictions, not what workers send.
    #[test]
    fn every_real_report_of_the_h100_campaign_is_accepted() {
        let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90");
        let tar = format!("{shared}/campaign-60s.tar.gz");
        if !std::path::Path::new(&tar).exists() {
            eprintln!("skipped: {tar} is absent");
            return;
        }
        let dir = std::env::temp_dir().join(format!("ptxfuzz-ingest-real-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = std::process::Command::new("tar").arg("xzf").arg(&tar).arg("-C").arg(&dir).status().unwrap();
        assert!(ok.success(), "tar xzf {tar}");
        let mut reports = api::folder::read_campaign(&dir.join("campaign")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(reports.len(), 281);
        reports.extend(api::folder::read_campaign(std::path::Path::new(&format!("{shared}/findings"))).unwrap());
        let now = chrono::Utc::now();
        for r in &reports {
            if let Err(e) = prepare(r, now) {
                panic!("{}: {e}", r.reproducer.signature);
            }
            // And their JSON names no unknown field.
            let batch = serde_json::json!({"findings": [r]});
            crate::validate::report::unknown_fields(&batch).unwrap();
        }
    }

    #[test]
    fn finding_key_splits_the_instruction() {
        let sig: Signature = "add.rz.ftz.f32~rounding~normal.subnormal~sm90".parse().unwrap();
        let k = FindingKey::of(&sig);
        assert_eq!((k.opcode.as_str(), k.ty.as_str()), ("add", "f32"));
        assert_eq!(k.modifiers, ["rz", "ftz"]);
        assert_eq!(k.instruction, "add.rz.ftz.f32");
        assert_eq!(k.operand_classes, "normal.subnormal");
        assert_eq!(k.sm, Some(90));
        let input: Signature = "input~gross~~sm-".parse().unwrap();
        let k = FindingKey::of(&input);
        assert_eq!((k.opcode.as_str(), k.ty.as_str(), k.sm), ("input", "", None));
        assert!(k.modifiers.is_empty());
    }
}
