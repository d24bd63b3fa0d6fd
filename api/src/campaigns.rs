//! Campaign bodies: a worker registers its campaign (`PUT /api/v1/campaigns/{id}`) and sends
//! heartbeats with its counters (`POST /api/v1/campaigns/{id}/heartbeat`).
//!
//! The worker picks the campaign id, so that a campaign started while the server is away can
//! spool everything and deliver it later. Both calls are idempotent: registering twice changes
//! nothing, and counters are absolute totals (the server keeps the largest it saw).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// What a campaign runs on. Sent once, at start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CampaignStart {
    /// Host name of the worker machine.
    pub worker_host: String,
    /// The engine spec (`cuda:0`, `host`, `exec:...`).
    pub target: String,
    /// The engine's own description (GPU name, CPU model, command).
    #[serde(default)]
    pub device: String,
    pub gpu_name: Option<String>,
    pub sm: Option<u32>,
    pub driver_version: Option<String>,
    pub cuda_version: Option<String>,
    /// The interpreter's version (`ptxfuzz --version`: crate version and git commit).
    pub interpreter_commit: String,
    pub seed: Option<u64>,
    pub started_at: DateTime<Utc>,
}

/// Counters of a running campaign, absolute since its start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Counters {
    pub cases: u64,
    pub programs: u64,
    pub mismatches: u64,
    pub findings: u64,
    pub signatures: u64,
    pub engine_faults: u64,
    /// Of `cases`, those run on the instruction VM (`isa`: each instruction alone) and those
    /// run whole-program compiled (`compiled`); a CPU engine's cases are `isa`. Absent from
    /// workers older than the split: 0.
    #[serde(default)]
    pub cases_isa: u64,
    #[serde(default)]
    pub cases_compiled: u64,
}

/// A heartbeat: the counters so far; `ended` on the last one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    pub counters: Counters,
    #[serde(default)]
    pub ended: bool,
}

/// A campaign as the server knows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Campaign {
    pub id: Uuid,
    #[serde(flatten)]
    pub start: CampaignStart,
    pub counters: Counters,
    pub last_heartbeat_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
}

/// A page of campaigns (newest first); `next` is the cursor of the following page (`?after=`),
/// absent at the end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CampaignPage {
    pub items: Vec<Campaign>,
    pub next: Option<String>,
}
