//! Root-cause clusters (docs/triage.md): what a cluster is made of ([`ClusterInfo`], computed
//! from a finding's reproducer by `api::cluster`), their rows (created at ingest, never locked
//! there), the list and one cluster with counts read from their findings, and cluster triage.
//! `recluster` recomputes every finding's cluster.

pub mod recluster;

use std::collections::HashMap;

use api::cluster::{cluster_of, finding_case, ClusterKey};
use api::findings::Status;
use api::Reproducer;
use chrono::{DateTime, Utc};
use ptx::explain::Explanation;
use ptx::value::{format_register_decimal, format_register_hex};
use serde::{Deserialize, Serialize};
use sqlx::{PgPool, Postgres, Transaction};

use super::findings::ingest::FindingKey;

/// A cluster's identity and words, from the first finding that falls into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterInfo {
    /// `ClusterKey::key()`.
    pub key: String,
    /// The catalogue entry's id; `None`: unexplained.
    pub explanation: Option<String>,
    pub title: String,
    pub sentence: String,
    pub example_hex: String,
    pub example_decimal: String,
}

impl ClusterInfo {
    /// The cluster of a finding whose columns are `finding` and one of whose reports is `r`.
    /// A reproducer the explainer cannot read (an old format, a program it cannot evaluate)
    /// clusters as unexplained by form and mismatch class: never an ingest failure.
    pub fn of(r: &Reproducer, finding: &FindingKey) -> ClusterInfo {
        let unexplained = || ClusterKey::unexplained(&finding.instruction, &finding.class);
        let (explanation, key) = match cluster_of(r) {
            Ok((e, key)) => (e, key),
            Err(_) => (None, unexplained()),
        };
        let (example_hex, example_decimal) = worked_example(r).unwrap_or_else(|| {
            let hex = format!("{}: hardware {}, expected {}", finding.instruction, r.actual.join(" "), r.expected.join(" "));
            (hex.clone(), hex)
        });
        ClusterInfo::build(explanation, key, example_hex, example_decimal)
    }

    /// The cluster of a finding with no readable report: unexplained by form and class.
    pub fn unreadable(finding: &FindingKey) -> ClusterInfo {
        let example = format!("{}: no report this server can read", finding.instruction);
        ClusterInfo::build(None, ClusterKey::unexplained(&finding.instruction, &finding.class), example.clone(), example)
    }

    fn build(explanation: Option<Explanation>, key: ClusterKey, example_hex: String, example_decimal: String) -> ClusterInfo {
        match explanation {
            Some(e) => {
                let sentence = if e.detail.is_empty() {
                    format!("{}: {}.", e.family_key, e.description)
                } else {
                    format!("{}: {} ({}).", e.family_key, e.description, e.detail)
                };
                ClusterInfo {
                    key: key.key(),
                    explanation: Some(e.id.to_string()),
                    title: format!("{} {}", e.family_key, e.id),
                    sentence,
                    example_hex,
                    example_decimal,
                }
            }
            None => ClusterInfo {
                title: format!("{} {} (unexplained)", key.scope, key.mismatch.as_deref().unwrap_or("-")),
                sentence: format!(
                    "No catalogue entry reproduces what the hardware returned for {} ({} mismatch); look at its findings one by one.",
                    key.scope,
                    key.mismatch.as_deref().unwrap_or("-")
                ),
                key: key.key(),
                explanation: None,
                example_hex,
                example_decimal,
            },
        }
    }
}

/// One recorded case, in hex and in decimal: `fma.rz.bf16 0x3f80 0x4000 0x0000 -> hardware
/// 0x4000, reference 0x3fff`. `None` when the failing output is an input or unreadable.
fn worked_example(r: &Reproducer) -> Option<(String, String)> {
    let (instr, cases) = finding_case(r).ok()??;
    let case = cases.first()?;
    let reference = ptx::interp::eval(&instr, &case.operands).ok()?.primary_bits();
    let show = |f: &dyn Fn(u64) -> String| {
        let ops: Vec<String> = case.operands.iter().map(|&b| f(b)).collect();
        format!("{instr} {} -> hardware {}, reference {}", ops.join(" "), f(case.got), f(reference))
    };
    Some((show(&|b| format_register_hex(instr.ty, b)), show(&|b| format_register_decimal(instr.ty, b))))
}

/// The ids of `infos`' clusters, creating those that do not exist. Existing rows are not
/// locked (ON CONFLICT DO NOTHING, then a read), so batches sharing a cluster do not queue.
pub(crate) async fn ids_for(
    tx: &mut Transaction<'_, Postgres>,
    infos: &[&ClusterInfo],
) -> Result<HashMap<String, i64>, sqlx::Error> {
    let mut infos: Vec<&ClusterInfo> = infos.to_vec();
    infos.sort_by(|a, b| a.key.cmp(&b.key));
    infos.dedup_by(|a, b| a.key == b.key);
    let col = |f: fn(&ClusterInfo) -> String| infos.iter().map(|i| f(i)).collect::<Vec<String>>();
    let keys = col(|i| i.key.clone());
    sqlx::query!(
        r#"INSERT INTO clusters (key, explanation, title, sentence, example_hex, example_decimal)
           SELECT k, e, t, s, h, d
           FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(k, e, t, s, h, d)
           ORDER BY k
           ON CONFLICT (key) DO NOTHING"#,
        &keys,
        &infos.iter().map(|i| i.explanation.clone()).collect::<Vec<Option<String>>>() as &[Option<String>],
        &col(|i| i.title.clone()),
        &col(|i| i.sentence.clone()),
        &col(|i| i.example_hex.clone()),
        &col(|i| i.example_decimal.clone()),
    )
    .execute(&mut **tx)
    .await?;
    let rows = sqlx::query!("SELECT id, key FROM clusters WHERE key = ANY($1)", &keys).fetch_all(&mut **tx).await?;
    Ok(rows.into_iter().map(|r| (r.key, r.id)).collect())
}

/// A worked example of the cluster's explanation: one recorded case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WorkedExample {
    /// Operands, hardware result and reference result in hex.
    pub hex: String,
    /// The same values in decimal.
    pub decimal: String,
}

/// What a cluster's findings have in common, in words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClusterExplanation {
    /// The catalogue entry (`ptx::explain`) whose model reproduces the hardware's results
    /// (`bf16-as-f16`); null when none does.
    pub model: Option<String>,
    pub sentence: String,
    pub example: WorkedExample,
}

/// One root-cause cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Cluster {
    pub id: i64,
    /// `bf16-as-f16~fma.bf16`, or `unexplained~FORM~CLASS`.
    pub key: String,
    pub title: String,
    pub explanation: ClusterExplanation,
    /// Its findings (one per signature); list them with `GET /api/v1/findings?cluster=ID`.
    pub signatures: i64,
    /// Reports stored over its findings.
    pub findings: i64,
    /// Hits over its reports.
    pub occurrences: i64,
    /// Null only for a cluster with no finding left (recluster removes those).
    pub first_seen: Option<DateTime<Utc>>,
    pub last_seen: Option<DateTime<Utc>>,
    pub status: Status,
    /// The instruction forms of its findings.
    pub forms: Vec<String>,
    /// The devices (GPUs) and driver versions its reports came from.
    pub devices: Vec<String>,
    pub drivers: Vec<String>,
}

/// A page of clusters; `next` is the cursor of the following page (`?after=`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClusterPage {
    pub items: Vec<Cluster>,
    pub next: Option<String>,
}

/// A triage decision for every finding of a cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClusterTriage {
    /// Any status but `duplicate` (a duplicate names one original finding).
    pub status: Status,
    #[serde(default)]
    pub note: String,
}

fn status(s: &str) -> Result<Status, sqlx::Error> {
    s.parse().map_err(|e: String| sqlx::Error::Decode(e.into()))
}

/// Clusters in id order after `after`, optionally one (`id`) or of one status; with the cursor
/// of the next page. Counts and dates are read from the findings (index `findings_cluster`).
pub async fn list(
    pool: &PgPool,
    id: Option<i64>,
    with_status: Option<Status>,
    limit: i64,
    after: Option<i64>,
) -> Result<(Vec<Cluster>, Option<i64>), sqlx::Error> {
    let rows = sqlx::query!(
        r#"SELECT c.id, c.key, c.explanation, c.title, c.sentence, c.example_hex, c.example_decimal, c.status,
                  s.signatures AS "signatures!", s.reports AS "reports!", s.occurrences AS "occurrences!",
                  s.first_seen, s.last_seen, s.forms AS "forms!", d.devices AS "devices!", d.drivers AS "drivers!"
           FROM clusters c
           CROSS JOIN LATERAL (
               SELECT count(*) AS signatures, COALESCE(sum(f.reproducers), 0)::int8 AS reports,
                      COALESCE(sum(f.occurrences), 0)::int8 AS occurrences,
                      min(f.first_seen) AS first_seen, max(f.last_seen) AS last_seen,
                      COALESCE(array_agg(DISTINCT f.instruction ORDER BY f.instruction)
                               FILTER (WHERE f.id IS NOT NULL), '{}') AS forms
               FROM findings f WHERE f.cluster_id = c.id) s
           CROSS JOIN LATERAL (
               SELECT COALESCE(array_agg(DISTINCT r.device ORDER BY r.device), '{}') AS devices,
                      COALESCE(array_agg(DISTINCT r.driver_version ORDER BY r.driver_version)
                               FILTER (WHERE r.driver_version IS NOT NULL), '{}') AS drivers
               FROM findings f JOIN reproducers r ON r.finding_id = f.id WHERE f.cluster_id = c.id) d
           WHERE ($1::int8 IS NULL OR c.id = $1)
             AND ($2::text IS NULL OR c.status = $2)
             AND ($3::int8 IS NULL OR c.id > $3)
           ORDER BY c.id
           LIMIT $4"#,
        id,
        with_status.map(|s| s.name()),
        after,
        limit + 1,
    )
    .fetch_all(pool)
    .await?;
    let mut items = rows
        .into_iter()
        .map(|r| {
            Ok(Cluster {
                id: r.id,
                key: r.key,
                title: r.title,
                explanation: ClusterExplanation {
                    model: r.explanation,
                    sentence: r.sentence,
                    example: WorkedExample { hex: r.example_hex, decimal: r.example_decimal },
                },
                signatures: r.signatures,
                findings: r.reports,
                occurrences: r.occurrences,
                first_seen: r.first_seen,
                last_seen: r.last_seen,
                status: status(&r.status)?,
                forms: r.forms,
                devices: r.devices,
                drivers: r.drivers,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let next = if items.len() as i64 > limit {
        items.truncate(limit as usize);
        items.last().map(|c| c.id)
    } else {
        None
    };
    Ok((items, next))
}

/// One cluster; `None` when absent.
pub async fn get(pool: &PgPool, id: i64) -> Result<Option<Cluster>, sqlx::Error> {
    Ok(list(pool, Some(id), None, 1, None).await?.0.pop())
}

/// What a cluster triage did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterTriaged {
    /// The number of findings whose status was set.
    Done(u64),
    NotFound,
    Invalid(String),
}

/// Set the status of a cluster and of every one of its findings, each change recorded in the
/// finding's history with `actor` and the note. The cluster row is locked first, then its
/// findings in id order (as a finding triage locks them), so concurrent triages serialise.
pub async fn triage(pool: &PgPool, id: i64, t: &ClusterTriage, actor: &str) -> Result<ClusterTriaged, sqlx::Error> {
    if t.status == Status::Duplicate {
        return Ok(ClusterTriaged::Invalid(
            "status 'duplicate' names one original finding; triage the findings one by one for that".into(),
        ));
    }
    let mut tx = pool.begin().await?;
    let found = sqlx::query!("SELECT id FROM clusters WHERE id = $1 FOR NO KEY UPDATE", id).fetch_optional(&mut *tx).await?;
    if found.is_none() {
        return Ok(ClusterTriaged::NotFound);
    }
    sqlx::query!("UPDATE clusters SET status = $2 WHERE id = $1", id, t.status.name()).execute(&mut *tx).await?;
    let locked = sqlx::query!("SELECT id FROM findings WHERE cluster_id = $1 ORDER BY id FOR UPDATE", id)
        .fetch_all(&mut *tx)
        .await?;
    let ids: Vec<i64> = locked.into_iter().map(|r| r.id).collect();
    // Findings that are duplicates stop being so: the whole cluster gets one status.
    let changed = sqlx::query!(
        r#"WITH old AS (SELECT id, status FROM findings WHERE id = ANY($1) AND status <> $2),
                upd AS (UPDATE findings f SET status = $2, duplicate_of = NULL FROM old WHERE f.id = old.id RETURNING f.id)
           INSERT INTO triage_events (finding_id, actor, from_status, to_status, note)
           SELECT old.id, $3, old.status, $2, $4 FROM old"#,
        &ids,
        t.status.name(),
        actor,
        t.note
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok(ClusterTriaged::Done(changed))
}
