//! The few CUDA driver calls the cuda engine makes, through cudarc's raw `sys`/`result` API,
//! each wrapped so that the unsafe code stays in this file. Raw, not cudarc's safe layer,
//! because the JIT error log needs `cuModuleLoadDataEx` options and a failed launch needs the
//! primary context reset (`cuDevicePrimaryCtxReset`), neither of which the safe layer offers.
//!
//! NOT RUN IN THIS PROJECT'S CI: there is no GPU there. Only `present()` (false) runs.

use std::ffi::{c_void, CString};
use std::time::{Duration, Instant};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

/// `CUDA_ERROR_NAME: description`.
pub fn describe(e: DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(s) => format!("{name}: {}", s.to_string_lossy()),
        Err(_) => name,
    }
}

/// Whether the driver library (libcuda.so) can be loaded at all. Must be checked before any
/// other call: with `dynamic-loading`, cudarc panics on first use when it is missing.
pub fn present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names.
    unsafe { sys::is_culib_present() }
}

/// `cuInit` then `cuDeviceGetCount`. Call only when [`present`].
pub fn device_count() -> Result<u32, String> {
    result::init().map_err(describe)?;
    result::device::get_count().map(|n| n.max(0) as u32).map_err(describe)
}

/// The driver's CUDA version, "12.8" style.
pub fn driver_version() -> Result<String, String> {
    let mut v = 0i32;
    // SAFETY: writes one int.
    unsafe { sys::cuDriverGetVersion(&mut v) }.result().map_err(describe)?;
    Ok(format!("{}.{}", v / 1000, (v % 1000) / 10))
}

/// One GPU and its retained primary context.
pub struct Gpu {
    dev: sys::CUdevice,
    ctx: sys::CUcontext,
}

// SAFETY: a CUcontext may be made current on any thread (`bind` does, before every use).
unsafe impl Send for Gpu {}

impl Gpu {
    /// Retain device `ordinal`'s primary context. Call only when [`present`].
    pub fn open(ordinal: u32) -> Result<Gpu, String> {
        result::init().map_err(describe)?;
        let dev = result::device::get(ordinal as i32).map_err(describe)?;
        // SAFETY: `dev` came from cuDeviceGet.
        let ctx = unsafe { result::primary_ctx::retain(dev) }.map_err(describe)?;
        let gpu = Gpu { dev, ctx };
        gpu.bind()?;
        Ok(gpu)
    }

    /// Make the context current on this thread.
    pub fn bind(&self) -> Result<(), String> {
        // SAFETY: the context is retained until drop.
        unsafe { result::ctx::set_current(self.ctx) }.map_err(describe)
    }

    pub fn name(&self) -> Result<String, String> {
        result::device::get_name(self.dev).map_err(describe)
    }

    /// Compute capability as sm_XX's XX (9.0 -> 90).
    pub fn sm(&self) -> Result<u32, String> {
        let attr = |a| {
            // SAFETY: `dev` is a valid device.
            unsafe { result::device::get_attribute(self.dev, a) }.map_err(describe)
        };
        let major = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        Ok((major * 10 + minor) as u32)
    }

    /// Destroy and recreate the primary context after a failed launch (a sticky error leaves
    /// the old one unusable). Every module and buffer of the old context must be dropped first.
    pub fn reset(&mut self) -> Result<(), String> {
        // SAFETY: `dev` is valid; the caller dropped everything that lived in the context.
        unsafe {
            let _ = result::primary_ctx::release(self.dev);
            sys::cuDevicePrimaryCtxReset_v2(self.dev).result().map_err(describe)?;
            self.ctx = result::primary_ctx::retain(self.dev).map_err(describe)?;
        }
        self.bind()
    }

    /// Wait for all launched work, at most `timeout` (polls the stream).
    pub fn wait(&self, timeout: Duration) -> Result<(), Wait> {
        let deadline = Instant::now() + timeout;
        let mut pause = Duration::from_micros(20);
        loop {
            // SAFETY: the legacy default stream of the current context.
            let r = unsafe { sys::cuStreamQuery(std::ptr::null_mut()) };
            match r {
                sys::CUresult::CUDA_SUCCESS => return Ok(()),
                sys::CUresult::CUDA_ERROR_NOT_READY => {}
                e => return Err(Wait::Failed(describe(DriverError(e)))),
            }
            if Instant::now() >= deadline {
                return Err(Wait::Timeout);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: releases the retain of `open`/`reset`.
        let _ = unsafe { result::primary_ctx::release(self.dev) };
    }
}

/// How waiting for a batch ended, when not in success.
pub enum Wait {
    Timeout,
    Failed(String),
}

/// Device memory of `len` u64 values.
pub struct Buffer {
    ptr: sys::CUdeviceptr,
    pub len: usize,
}

impl Buffer {
    pub fn alloc(len: usize) -> Result<Buffer, String> {
        // SAFETY: plain allocation in the current context (at least 8 bytes).
        let ptr = unsafe { result::malloc_sync(len.max(1) * 8) }.map_err(describe)?;
        Ok(Buffer { ptr, len })
    }

    pub fn ptr(&self) -> u64 {
        self.ptr
    }

    /// Copy `src` to the start of the buffer (synchronous).
    pub fn upload(&mut self, src: &[u64]) -> Result<(), String> {
        assert!(src.len() <= self.len);
        // SAFETY: `src` fits the allocation.
        unsafe { result::memcpy_htod_sync(self.ptr, src) }.map_err(describe)
    }

    /// Copy the start of the buffer to `dst` (synchronous).
    pub fn download(&self, dst: &mut [u64]) -> Result<(), String> {
        self.download_at(0, dst)
    }

    /// Copy values `at..at + dst.len()` of the buffer to `dst` (synchronous).
    pub fn download_at(&self, at: usize, dst: &mut [u64]) -> Result<(), String> {
        assert!(at + dst.len() <= self.len);
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: `at + dst.len()` values fit the allocation.
        unsafe { result::memcpy_dtoh_sync(dst, self.ptr + 8 * at as u64) }.map_err(describe)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated by malloc_sync; after a context reset this fails harmlessly.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// Host memory of `len` u64 values that copies to and from the device go through: page-locked
/// (`cuMemHostAlloc`), so the driver copies it by DMA at once, where from ordinary (pageable)
/// memory it first copies every byte through a staging buffer of its own (CUDA C++ Best
/// Practices Guide, "Pinned Memory"); or ordinary memory where pinning is off or failed.
pub struct HostBuffer {
    ptr: *mut u64,
    len: usize,
    /// The words when not pinned (`ptr` then points into it).
    pageable: Option<Vec<u64>>,
}

// SAFETY: the buffer is owned; the pinned allocation may be used and freed from any thread.
unsafe impl Send for HostBuffer {}

impl HostBuffer {
    /// `len` pinned words in the current context (its allocation is that context's: drop it
    /// before a context reset). `Err`: the driver's reason (the caller falls back to
    /// [`HostBuffer::pageable`]).
    pub fn pinned(len: usize) -> Result<HostBuffer, String> {
        // SAFETY: a plain allocation (flags 0: page-locked, for the current context); freed
        // in drop.
        let ptr = unsafe { result::malloc_host(len.max(1) * 8, 0) }.map_err(describe)? as *mut u64;
        // SAFETY: the allocation holds `len` u64 values, 8-aligned (page-aligned), and is
        // written before it is read by no one: zero it so that it is initialised.
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        Ok(HostBuffer { ptr, len, pageable: None })
    }

    /// `len` words of ordinary memory.
    pub fn pageable(len: usize) -> HostBuffer {
        let mut v = vec![0u64; len];
        HostBuffer { ptr: v.as_mut_ptr(), len, pageable: Some(v) }
    }

    pub fn as_slice(&self) -> &[u64] {
        // SAFETY: `ptr` holds `len` initialised values owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u64] {
        // SAFETY: as above, borrowed mutably through self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        if self.pageable.is_none() {
            // SAFETY: allocated by malloc_host; after a context reset this fails harmlessly.
            let _ = unsafe { result::free_host(self.ptr as *mut c_void) };
        }
    }
}

/// A loaded module.
pub struct Module {
    module: sys::CUmodule,
}

// SAFETY: module handles are valid in their context on any thread.
unsafe impl Send for Module {}

/// Bytes of JIT log kept.
const LOG_BYTES: usize = 1 << 16;

impl Module {
    /// JIT-compile PTX text; `Err(log)` with the JIT's error log when it fails.
    pub fn load(ptx: &str) -> Result<Module, String> {
        let text = CString::new(ptx).map_err(|_| "PTX text contains a NUL byte".to_string())?;
        Module::load_data(text.as_ptr() as *const c_void)
    }

    /// Load a cubin (an ELF image from ptxas, `ahead`): no JIT.
    pub fn load_image(cubin: &[u8]) -> Result<Module, String> {
        Module::load_data(cubin.as_ptr() as *const c_void)
    }

    /// `cuModuleLoadDataEx` on PTX text (NUL-terminated) or a cubin image, which the driver
    /// tells apart by their headers; the caller keeps the data alive for the call.
    fn load_data(image: *const c_void) -> Result<Module, String> {
        let mut error_log = vec![0u8; LOG_BYTES];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // The size option is passed by value in the pointer slot (CUDA driver API, cuModuleLoadDataEx).
        let mut values = [error_log.as_mut_ptr() as *mut c_void, LOG_BYTES as *mut c_void];
        let mut module = std::ptr::null_mut();
        // SAFETY: `image` is NUL-terminated PTX or a whole cubin, alive for the call (callers
        // above); the log buffer outlives the call and its size is given.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                image,
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        match r.result() {
            Ok(()) => Ok(Module { module }),
            Err(e) => {
                let end = error_log.iter().position(|&b| b == 0).unwrap_or(error_log.len());
                let log = String::from_utf8_lossy(&error_log[..end]).trim().to_string();
                Err(format!("{}: {log}", describe(e)))
            }
        }
    }

    pub fn function(&self, name: &str) -> Result<Function, String> {
        let name = CString::new(name).map_err(|_| "entry name contains a NUL byte".to_string())?;
        // SAFETY: the module is loaded; the name is NUL-terminated.
        let f = unsafe { result::module::get_function(self.module, name) }.map_err(describe)?;
        Ok(Function(f))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded by cuModuleLoadDataEx; after a reset this fails harmlessly.
        let _ = unsafe { result::module::unload(self.module) };
    }
}

/// An entry of a loaded module (valid while its [`Module`] is).
#[derive(Clone, Copy)]
pub struct Function(sys::CUfunction);

/// Threads per block.
pub const BLOCK: u32 = 256;

/// Launch `f(input, output, n)` (the `ptx::kernel` entry signature) over `n` threads on the
/// default stream; asynchronous.
pub fn launch(f: Function, input: u64, output: u64, n: u32) -> Result<(), String> {
    if n == 0 {
        return Ok(());
    }
    let (mut a, mut b, mut c) = (input, output, n);
    let mut params = [
        &mut a as *mut u64 as *mut c_void,
        &mut b as *mut u64 as *mut c_void,
        &mut c as *mut u32 as *mut c_void,
    ];
    let grid = n.div_ceil(BLOCK);
    // SAFETY: `f` takes (.u64, .u64, .u32) parameters, matched by `params`, which live
    // through the call (the driver copies them at launch).
    unsafe { result::launch_kernel(f.0, (grid, 1, 1), (BLOCK, 1, 1), 0, std::ptr::null_mut(), &mut params) }
        .map_err(describe)
}

/// The largest grid y dimension (CUDA: 65,535): programs per VM launch.
pub const MAX_GRID_Y: u32 = 65_535;

/// Launch the instruction VM `f(code, progs, in, out)` (`ptx::vm::emit`'s entry) on the
/// default stream, asynchronous: `programs` blocks rows (`ctaid.y` = program) of `blocks_x`
/// blocks each, whose threads take the program's cases in a grid-stride loop.
/// Ran on an H200 (docs/engines.md, "The instruction VM"; docs/hardware/).
pub fn launch_vm(f: Function, bufs: [u64; 4], programs: u32, blocks_x: u32) -> Result<(), String> {
    if programs == 0 || blocks_x == 0 {
        return Ok(());
    }
    assert!(programs <= MAX_GRID_Y, "at most {MAX_GRID_Y} programs per launch");
    let [mut a, mut b, mut c, mut d] = bufs;
    let mut params = [
        &mut a as *mut u64 as *mut c_void,
        &mut b as *mut u64 as *mut c_void,
        &mut c as *mut u64 as *mut c_void,
        &mut d as *mut u64 as *mut c_void,
    ];
    // SAFETY: the VM entry takes four .u64 parameters, matched by `params`, which live
    // through the call (the driver copies them at launch).
    unsafe {
        result::launch_kernel(f.0, (blocks_x, programs, 1), (BLOCK, 1, 1), 0, std::ptr::null_mut(), &mut params)
    }
    .map_err(describe)
}

/// Launch the GPU sweep `f(start, stride, count, acc, kept)` (`ptx::vm::sweep`'s entry) on the
/// default stream, asynchronous: `blocks` blocks whose threads take the inputs in a grid-stride
/// loop. Ran on an H200 (docs/campaigns.md, "GPU sweep kernel"; docs/hardware/).
pub fn launch_sweep(f: Function, args: [u64; 5], blocks: u32) -> Result<(), String> {
    if args[2] == 0 || blocks == 0 {
        return Ok(());
    }
    let mut a = args;
    let mut params = a.each_mut().map(|v| v as *mut u64 as *mut c_void);
    // SAFETY: the sweep entry takes five .u64 parameters, matched by `params`, which live
    // through the call (the driver copies them at launch).
    unsafe { result::launch_kernel(f.0, (blocks, 1, 1), (BLOCK, 1, 1), 0, std::ptr::null_mut(), &mut params) }
        .map_err(describe)
}
