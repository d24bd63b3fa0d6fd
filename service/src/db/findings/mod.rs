//! Findings (every report of one signature), their reports and their triage history.
//! `ingest` stores batches, `list` filters and pages; this module reads one finding and
//! triages it.

pub mod ingest;
pub mod list;

use api::findings::{FindingDetail, FindingSummary, Status, StoredReproducer, Triage, TriageEvent};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// A `findings` row as the list and the detail read it.
pub(crate) struct SummaryRow {
    pub id: i64,
    pub signature: String,
    pub instruction: String,
    pub opcode: String,
    pub ty: String,
    pub modifiers: Vec<String>,
    pub class: String,
    pub operand_classes: String,
    pub sm: Option<i32>,
    pub status: String,
    pub duplicate_of: Option<i64>,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    pub occurrences: i64,
    pub reproducers: i64,
    pub cluster_id: Option<i64>,
}

fn status(s: &str) -> Result<Status, sqlx::Error> {
    // The column's CHECK allows only these names; anything else is a corrupt database.
    s.parse().map_err(|e: String| sqlx::Error::Decode(e.into()))
}

impl TryFrom<SummaryRow> for FindingSummary {
    type Error = sqlx::Error;

    fn try_from(r: SummaryRow) -> Result<FindingSummary, sqlx::Error> {
        Ok(FindingSummary {
            id: r.id,
            signature: r.signature,
            instruction: r.instruction,
            opcode: r.opcode,
            ty: r.ty,
            modifiers: r.modifiers,
            class: r.class,
            operand_classes: r.operand_classes,
            sm: r.sm.map(|s| s as u32),
            status: status(&r.status)?,
            duplicate_of: r.duplicate_of,
            first_seen: r.first_seen,
            last_seen: r.last_seen,
            occurrences: r.occurrences,
            reproducers: r.reproducers,
            cluster_id: r.cluster_id,
            // Filled by the known-divergence matcher, not stored.
            known: None,
        })
    }
}

pub async fn summary(pool: &PgPool, id: i64) -> Result<Option<FindingSummary>, sqlx::Error> {
    let row = sqlx::query_as!(
        SummaryRow,
        r#"SELECT id, signature, instruction, opcode, type AS ty, modifiers, class, operand_classes, sm, status,
                  duplicate_of, first_seen, last_seen, occurrences, reproducers, cluster_id
           FROM findings WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    row.map(FindingSummary::try_from).transpose()
}

/// Reports shown with a finding (newest first).
pub const DETAIL_REPRODUCERS: i64 = 100;

/// One finding with its newest reports and its history; `None` when absent.
pub async fn detail(pool: &PgPool, id: i64) -> Result<Option<FindingDetail>, sqlx::Error> {
    let Some(finding) = summary(pool, id).await? else { return Ok(None) };
    let reproducers = sqlx::query!(
        r#"SELECT id, campaign_id, received_at, hits, driver_version,
                  reproducer AS "reproducer: sqlx::types::Json<api::Reproducer>", ptx, sass
           FROM reproducers WHERE finding_id = $1 ORDER BY id DESC LIMIT $2"#,
        id,
        DETAIL_REPRODUCERS
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| StoredReproducer {
        id: r.id,
        campaign_id: r.campaign_id,
        received_at: r.received_at,
        hits: r.hits,
        driver_version: r.driver_version,
        reproducer: r.reproducer.0,
        ptx: r.ptx,
        sass: r.sass,
    })
    .collect();
    let history = sqlx::query!(
        r#"SELECT at, actor, from_status, to_status, duplicate_of, note
           FROM triage_events WHERE finding_id = $1 ORDER BY at, id"#,
        id
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|e| {
        Ok(TriageEvent {
            at: e.at,
            actor: e.actor,
            from: status(&e.from_status)?,
            to: status(&e.to_status)?,
            duplicate_of: e.duplicate_of,
            note: e.note,
        })
    })
    .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok(Some(FindingDetail { finding, reproducers, history }))
}

/// What a triage did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Triaged {
    Done,
    NotFound,
    /// The decision is inconsistent (a bad `duplicate_of`); the message says why.
    Invalid(String),
}

/// Apply a triage decision by `actor`, recording it in the history. The finding (and the one
/// it duplicates) are locked in id order, so concurrent triages cannot build a cycle.
pub async fn triage(pool: &PgPool, id: i64, t: &Triage, actor: &str) -> Result<Triaged, sqlx::Error> {
    match (t.status, t.duplicate_of) {
        (Status::Duplicate, None) => {
            return Ok(Triaged::Invalid("status 'duplicate' needs duplicate_of (the id of the original finding)".into()))
        }
        (Status::Duplicate, Some(d)) if d == id => {
            return Ok(Triaged::Invalid(format!("finding {id} cannot be a duplicate of itself")))
        }
        (s, Some(_)) if s != Status::Duplicate => {
            return Ok(Triaged::Invalid(format!("duplicate_of is only allowed with status 'duplicate', not '{s}'")))
        }
        _ => {}
    }
    let mut tx = pool.begin().await?;
    let ids: Vec<i64> = [Some(id), t.duplicate_of].into_iter().flatten().collect();
    let locked = sqlx::query!(
        "SELECT id, status, duplicate_of FROM findings WHERE id = ANY($1) ORDER BY id FOR UPDATE",
        &ids
    )
    .fetch_all(&mut *tx)
    .await?;
    let Some(this) = locked.iter().find(|r| r.id == id) else { return Ok(Triaged::NotFound) };
    let from = status(&this.status)?;
    if let Some(d) = t.duplicate_of {
        let Some(original) = locked.iter().find(|r| r.id == d) else {
            return Ok(Triaged::Invalid(format!("duplicate_of: finding {d} does not exist")));
        };
        match original.duplicate_of {
            // d already points here: naming "this one" as the way out would send the user in
            // a circle, so say how to swap which of the two is the original.
            Some(root) if root == id => {
                return Ok(Triaged::Invalid(format!(
                    "duplicate_of: finding {d} is already a duplicate of finding {id} (this one); to make {d} the original instead, first give finding {d} another status (such as new), then mark {id} a duplicate of {d}"
                )))
            }
            Some(root) => {
                return Ok(Triaged::Invalid(format!(
                    "duplicate_of: finding {d} is itself a duplicate of {root}; mark finding {id} a duplicate of {root}"
                )))
            }
            None => {}
        }
        // The rule (docs/service.md, Triage): a duplicate points at an original that is not
        // itself a duplicate, so there are no chains. A finding others point at may not
        // become a duplicate. Its row is locked, so a concurrent triage pointing at it waits
        // and this read sees it. (A runtime query: no .sqlx entry to regenerate.)
        let pointing: Vec<i64> =
            sqlx::query_scalar("SELECT id FROM findings WHERE duplicate_of = $1 ORDER BY id LIMIT 6")
                .bind(id)
                .fetch_all(&mut *tx)
                .await?;
        if !pointing.is_empty() {
            let mut list: Vec<String> = pointing.iter().take(5).map(|p| p.to_string()).collect();
            if pointing.len() > 5 {
                list.push("...".into());
            }
            return Ok(Triaged::Invalid(format!(
                "finding {id} is the original of duplicate finding(s) {}; it cannot become a duplicate itself (no chains): mark those duplicates of {d} first, or pick {id} as the original",
                list.join(", ")
            )));
        }
    }
    sqlx::query!("UPDATE findings SET status = $2, duplicate_of = $3 WHERE id = $1", id, t.status.name(), t.duplicate_of)
        .execute(&mut *tx)
        .await?;
    sqlx::query!(
        "INSERT INTO triage_events (finding_id, actor, from_status, to_status, duplicate_of, note)
         VALUES ($1, $2, $3, $4, $5, $6)",
        id,
        actor,
        from.name(),
        t.status.name(),
        t.duplicate_of,
        t.note
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Triaged::Done)
}
