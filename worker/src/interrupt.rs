//! Ctrl-C and SIGTERM as a flag that long work (campaigns, sweeps) polls between batches.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The exit status of a command a signal stopped: 128 + SIGINT, what a shell shows for a
/// command Ctrl-C ended. A second signal exits with it at once; `sweep` and `math-check` exit
/// with it after printing the report of the work done, so a script never reads part of the
/// work as a pass.
pub const EXIT_STATUS: i32 = 130;

/// A flag the first SIGINT or SIGTERM sets, so the work in flight finishes and what it found
/// is written; the second exits at once with status 130 (the flag is set by then), for a
/// user who will not wait for the batch.
pub fn stop_flag() -> std::io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Registered first, so it sees the flag as it was before this signal's own handler
        // below sets it: only a second signal finds it set.
        signal_hook::flag::register_conditional_shutdown(sig, EXIT_STATUS, stop.clone())?;
        signal_hook::flag::register(sig, stop.clone())?;
    }
    Ok(stop)
}

/// The end of work a signal stopped, once its report is out: `why` on stderr (what was done,
/// what the report covers), stdout flushed, exit with [`EXIT_STATUS`]. The commands' errors
/// all exit 1 in `main`, hence an exit here rather than an error.
pub fn exit_interrupted(why: &str) -> ! {
    use std::io::Write as _;
    eprintln!("{why}");
    let _ = std::io::stdout().flush();
    std::process::exit(EXIT_STATUS)
}
