//! The allocator's setting for a batch of files.
//!
//! glibc returns freed memory at the top of the heap to the system and maps
//! large blocks afresh for every request, so each file of a batch touches
//! fresh pages for its syntax tree and IR: every page faults in (about 2 µs
//! each on the machine of `docs/performance.md`, a tenth of the CPU time of a
//! PTX batch). [`keep_freed_memory_between_files`] keeps up to
//! [`TOP_PAD`] of freed memory at the top of the heap for the next file.
//! A single file keeps glibc's default: the setting only pays across files,
//! and there it raises the batch's peak RSS by at most the pad. The setting
//! is process-wide: a batch run through `python -m irlint` sets it in that
//! Python process too.

/// Freed memory kept at the top of the heap between the files of a batch.
pub const TOP_PAD: usize = 4 << 20;

/// Sets glibc's `M_TOP_PAD` to [`TOP_PAD`] (a no-op elsewhere).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn keep_freed_memory_between_files() {
    // SAFETY: `mallopt` only sets a tunable of glibc's allocator (under the
    // allocator's own lock); it takes no pointer and cannot invalidate memory
    // already allocated.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD as libc::c_int);
    }
}

/// Sets glibc's `M_TOP_PAD` to [`TOP_PAD`] (a no-op elsewhere).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn keep_freed_memory_between_files() {}

/// A batch with one worker (`-j 1`, or one core) uses one heap: glibc gives
/// each new thread that allocates its own arena (a fresh 64 MB mapping whose
/// pages all fault in), so the worker would not reuse what the main thread
/// freed and the walker's and writer's small allocations would touch pages
/// of further arenas. One arena costs nothing with a single worker (no
/// contention) and saves about a hundred page faults on a PTX batch (0.2–0.5
/// ms of CPU on the CuTe DSL set of `docs/performance.md`). A single file
/// keeps glibc's default, as for [`TOP_PAD`]: its worker's arena returns the
/// large blocks it frees, which the main heap would keep resident. With more
/// workers glibc's default (an arena per thread, up to 8 per core) is kept.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn one_heap_for_one_worker() {
    // SAFETY: as in `keep_freed_memory_between_files`: a tunable of glibc's
    // allocator, set before the worker threads start; no pointer is passed.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// One arena for a single worker (a no-op elsewhere).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn one_heap_for_one_worker() {}
