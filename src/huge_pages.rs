//! Large tables read at random addresses, one cache line at a time (a search's
//! transposition table): with 4 KB pages nearly every read also misses the address
//! translation cache. Where the kernel backs memory with 2 MB pages on request (Linux's
//! transparent huge pages in `madvise` mode), a table asks for them before its memory is
//! first written, so that the pages are huge from the start.

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
    if let Some((first, end)) =
        whole_huge_pages(vec.as_ptr() as usize, len * std::mem::size_of::<T>())
    {
        advise(first, end - first);
    }
    Ok(vec)
}

/// The whole 2 MB pages inside `[start, start + bytes)` (start and end addresses), when the
/// range is large enough to be worth asking for them.
fn whole_huge_pages(start: usize, bytes: usize) -> Option<(usize, usize)> {
    let first = start.next_multiple_of(HUGE_PAGE);
    let end = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
    (bytes >= WORTH_IT && end > first).then_some((first, end))
}

#[cfg(target_os = "linux")]
fn advise(start: usize, bytes: usize) {
    // SAFETY: the range lies inside one live allocation; MADV_HUGEPAGE changes how its
    // pages are backed, never their contents. A refusal (an older kernel, huge pages turned
    // off) leaves ordinary pages, so the result is not needed.
    unsafe {
        libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_inside_a_large_range_are_advised() {
        let mb = 1 << 20;
        // Aligned: every page of the range.
        assert_eq!(whole_huge_pages(64 * mb, 8 * mb), Some((64 * mb, 72 * mb)));
        // Unaligned at both ends: the pages strictly inside.
        assert_eq!(
            whole_huge_pages(64 * mb + 4096, 8 * mb),
            Some((66 * mb, 72 * mb))
        );
        // Small tables keep their pages.
        assert_eq!(whole_huge_pages(64 * mb, 2 * mb), None);
        assert_eq!(whole_huge_pages(64 * mb + 4096, WORTH_IT - 1), None);
    }

    #[test]
    fn a_reserved_table_is_empty_with_its_room() {
        for len in [0, 1000, 3 << 20] {
            let table = reserve::<u64>(len).unwrap();
            assert!(table.is_empty());
            assert!(table.capacity() >= len);
        }
    }
}
