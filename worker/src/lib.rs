//! The worker library: engines that run programs (`oracles`) and the comparison policy that
//! judges their results (`compare`). The `ptxfuzz` binary (src/main.rs) is its command line;
//! integration tests (worker/tests) use both.

// Bounds of command-line values (seconds, counts of at least 1), shared by the subcommands.
pub mod cli_values;
pub mod compare;
// SIGINT/SIGTERM as a stop flag for campaigns and sweeps.
pub mod interrupt;
// Size-capped reads of the files a user names (repro.json, captures, corpus files).
pub mod input_file;
pub mod oracles;
// The progress line of long counted work (sweep, math-check).
pub mod progress;
// The smoke check of engines (`ptxfuzz engines --check`): engines judged by `compare`.
pub mod smoke;

// Minimization, reproducers and campaigns (issue 5: Minimization, Campaigns).
pub mod campaign;
pub mod mathcheck;
pub mod minimize;
// The two execution modes of a GPU against each other (issue 12).
pub mod modes;
pub mod repro;
pub mod sweep;
pub mod toolkit;
// Findings, heartbeats and regressions through a ptxfuzz server (issue 6: Worker side).
pub mod server;
