//! The types worker and server share: finding signatures, the reproducer file, and the bodies
//! of the server's HTTP API (`/api/v1`, docs/service.md). One definition each, so that what a
//! worker posts is what the server reads.

pub mod campaigns;
pub mod cluster;
pub mod exec;
pub mod findings;
pub mod folder;
pub mod regressions;
pub mod repro;
pub mod signature;
pub mod sweeps;

pub use cluster::ClusterKey;
pub use exec::Exec;
pub use repro::{OriginalCase, Reproducer};
pub use signature::{fnv1a, MismatchClass, OperandClass, Signature};
