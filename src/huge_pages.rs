//! Large tables (a search's transposition table, endgame databases) are read at random
//! addresses, one cache line at a time: with 4 KB pages nearly every read also misses the
//! address translation cache. Where the kernel backs memory with 2 MB pages on request
//! (Linux's transparent huge pages in `madvise` mode), a table asks for them before its
//! memory is first written, so that the pages are huge from the start.

/// Tables smaller than this keep ordinary pages.
const WORTH_IT: usize = 4 << 20;
/// The huge page size asked for.
const HUGE_PAGE: usize = 2 << 20;

/// An empty vector with room for `len` elements whose memory is advised to be backed by
/// huge pages (a hint: it changes no value, and is ignored where unsupported), or the
/// allocation error.
pub fn reserve<T>(len: usize) -> Result<Vec<T>, std::collections::TryReserveError> {
    let mut vec: Vec<T> = Vec::new();
    vec.try_reserve_exact(len)?;
    advise(vec.as_ptr().cast(), len * std::mem::size_of::<T>());
    Ok(vec)
}

/// Asks for huge pages over the whole 2 MB pages inside `[start, start + bytes)`.
#[cfg(target_os = "linux")]
fn advise(start: *const u8, bytes: usize) {
    if bytes < WORTH_IT {
        return;
    }
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: the range lies inside one live allocation; MADV_HUGEPAGE changes how
        // its pages are backed, never their contents. A refusal (an older kernel, huge
        // pages turned off) leaves ordinary pages, so the result is not needed.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: *const u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn a_reserved_table_is_empty_with_its_room() {
        for len in [0, 1000, 3 << 20] {
            let table = super::reserve::<u64>(len).unwrap();
            assert!(table.is_empty());
            assert!(table.capacity() >= len);
        }
    }
}
