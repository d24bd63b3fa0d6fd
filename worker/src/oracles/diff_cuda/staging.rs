//! The host memory the cuda engine's batch copies go through: one reusable buffer for what goes
//! to the device and one for what comes back, pinned (page-locked) unless
//! `PTXFUZZ_CUDA_PINNED=0` or the driver refuses, in which case ordinary memory.
//!
//! Why pinned: the engine copied each batch from and to freshly allocated ordinary memory. The
//! driver copies such memory through a staging buffer of its own, byte by byte, and a fresh
//! allocation page-faults on first touch; on the H200 (2026-11-29) the `compiled` campaign of
//! add/mul/fma with 1 M cases a program spent 59 ns a case in the engine on kernels that do
//! one instruction each, about 50 bytes a case copied: well under 1 GB/s.
//! Reused pinned buffers are copied by DMA and never fault. Ran on the H200 (2026-12-04): the
//! isa campaign's uploads and downloads took 0.5 s of 15 s pinned, 1.6 s with ordinary memory.

use super::driver::HostBuffer;

/// Whether the staging buffers are pinned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pinning {
    On,
    /// Ordinary memory, and why (`PTXFUZZ_CUDA_PINNED=0`, or the driver's refusal).
    Off { why: String },
}

impl Pinning {
    /// `On` unless the environment turns it off (`PTXFUZZ_CUDA_PINNED=0`: to measure what
    /// pinning buys, or where a container limits locked memory).
    pub fn from_env() -> Pinning {
        Pinning::from_var(std::env::var("PTXFUZZ_CUDA_PINNED").ok().as_deref())
    }

    /// As [`Pinning::from_env`], given the variable's value.
    fn from_var(value: Option<&str>) -> Pinning {
        match value {
            Some("0") => Pinning::Off { why: "PTXFUZZ_CUDA_PINNED=0".into() },
            _ => Pinning::On,
        }
    }
}

/// The engine's two staging buffers (allocated on first use, grown by doubling).
pub struct Staging {
    outgoing: Option<HostBuffer>,
    incoming: Option<HostBuffer>,
    /// Words last asked of `incoming` ([`Staging::fetched`]).
    fetched: usize,
    pinning: Pinning,
}

/// The smallest staging buffer, in words (512 KiB).
const MIN_WORDS: usize = 1 << 16;

impl Staging {
    pub fn new(pinning: Pinning) -> Staging {
        Staging { outgoing: None, incoming: None, fetched: 0, pinning }
    }

    /// `host memory: pinned` or `host memory: pageable (why)`, for the engine's notes.
    pub fn note(&self) -> String {
        match &self.pinning {
            Pinning::On => "host memory: pinned".into(),
            Pinning::Off { why } => format!("host memory: pageable ({why})"),
        }
    }

    /// The first `len` words of the buffer for the device, grown if needed (with the engine's
    /// context current: a pinned buffer belongs to it).
    pub fn outgoing(&mut self, len: usize) -> &mut [u64] {
        &mut grow(&mut self.outgoing, len, &mut self.pinning).as_mut_slice()[..len]
    }

    /// The first `len` words of the buffer for the device, as [`Staging::outgoing`] left them.
    pub fn staged(&self, len: usize) -> &[u64] {
        self.outgoing.as_ref().map_or(&[][..], |b| &b.as_slice()[..len])
    }

    /// The first `len` words of the buffer results come back to, grown if needed (as above).
    pub fn incoming(&mut self, len: usize) -> &mut [u64] {
        self.fetched = len;
        &mut grow(&mut self.incoming, len, &mut self.pinning).as_mut_slice()[..len]
    }

    /// The words of the last [`Staging::incoming`], as the device wrote them.
    pub fn fetched(&self) -> &[u64] {
        self.incoming.as_ref().map_or(&[][..], |b| &b.as_slice()[..self.fetched])
    }

    /// Drop both buffers (before a context reset, which would free pinned ones under them).
    pub fn clear(&mut self) {
        self.outgoing = None;
        self.incoming = None;
        self.fetched = 0;
    }
}

/// `buf`, at least `len` words, reallocated (to the next power of two) when smaller; a pinned
/// allocation the driver refuses turns pinning off for good, with its reason.
fn grow<'b>(buf: &'b mut Option<HostBuffer>, len: usize, pinning: &mut Pinning) -> &'b mut HostBuffer {
    if buf.as_ref().is_none_or(|b| b.as_slice().len() < len) {
        *buf = None;
        let words = len.next_power_of_two().max(MIN_WORDS);
        let b = match pinning {
            Pinning::On => HostBuffer::pinned(words).unwrap_or_else(|e| {
                *pinning = Pinning::Off { why: format!("cuMemHostAlloc of {} MiB refused: {e}", words >> 17) };
                HostBuffer::pageable(words)
            }),
            Pinning::Off { .. } => HostBuffer::pageable(words),
        };
        *buf = Some(b);
    }
    buf.as_mut().expect("just set")
}

#[cfg(test)]
mod tests {
    use super::*;

    // The pinned path needs the driver (none in CI): these check the pageable one.

    #[test]
    fn staging_grows_by_powers_of_two_and_keeps_what_was_written_until_it_grows() {
        let mut s = Staging::new(Pinning::Off { why: "test".into() });
        assert_eq!(s.note(), "host memory: pageable (test)");
        assert!(s.fetched().is_empty() && s.staged(0).is_empty());
        s.outgoing(10)[9] = 7;
        assert_eq!(s.staged(10)[9], 7);
        s.incoming(3).copy_from_slice(&[1, 2, 3]);
        assert_eq!(s.fetched(), &[1, 2, 3]);
        // Within the first allocation (MIN_WORDS): the same buffer.
        assert_eq!(s.incoming(MIN_WORDS).len(), MIN_WORDS);
        assert_eq!(&s.fetched()[..3], &[1, 2, 3]);
        assert_eq!(s.fetched().len(), MIN_WORDS);
        // Past it: a new buffer of the next power of two.
        assert_eq!(s.incoming(MIN_WORDS + 1).len(), MIN_WORDS + 1);
        assert_eq!(s.incoming.as_ref().unwrap().as_slice().len(), 2 * MIN_WORDS);
        s.clear();
        assert!(s.fetched().is_empty());
    }

    #[test]
    fn pinning_is_on_unless_the_variable_says_0() {
        assert_eq!(Pinning::from_var(None), Pinning::On);
        assert_eq!(Pinning::from_var(Some("1")), Pinning::On);
        assert_eq!(Pinning::from_var(Some("0")), Pinning::Off { why: "PTXFUZZ_CUDA_PINNED=0".into() });
    }
}
