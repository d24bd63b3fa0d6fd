//! Ctrl-C and SIGTERM as a flag that long work (campaigns, sweeps) polls between batches.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A flag the first SIGINT or SIGTERM sets, so the work in flight finishes and what it found
/// is written; the second exits at once with status 130 (the flag is set by then), for a
/// user who will not wait for the batch.
pub fn stop_flag() -> std::io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Registered first, so it sees the flag as it was before this signal's own handler
        // below sets it: only a second signal finds it set.
        signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone())?;
        signal_hook::flag::register(sig, stop.clone())?;
    }
    Ok(stop)
}
