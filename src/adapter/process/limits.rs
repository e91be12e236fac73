//! The bounds an agent's or a bridge's `adapter.toml` keeps its numbers in: both rows start
//! someone else's program for every case, so both cap how many run at once and how long any
//! of their waits may be (docs/adapters.md, docs/bridges.md).

/// The longest any duration a row's `adapter.toml` names may be: ten minutes.
pub const MAX_MS: u64 = 600_000;
/// The most cases at once a row may ask for.
pub const MAX_THREADS: usize = 16;

/// Whether `threads` (when given) is from 1 to [`MAX_THREADS`] and every duration (when given)
/// from 1 to [`MAX_MS`]; the error names the first key that is not, and its bounds.
pub(crate) fn check(
    threads: Option<usize>,
    durations: &[(&str, Option<u64>)],
) -> Result<(), String> {
    if let Some(threads) = threads.filter(|t| !(1..=MAX_THREADS).contains(t)) {
        return Err(format!(
            "`threads = {threads}`: cases at once, from 1 to {MAX_THREADS}"
        ));
    }
    for (key, ms) in durations {
        if let Some(ms) = ms.filter(|ms| !(1..=MAX_MS).contains(ms)) {
            return Err(format!("`{key}` is {ms}: milliseconds, from 1 to {MAX_MS}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_within_their_bounds_pass_and_the_first_outside_is_named() {
        assert_eq!(check(None, &[("timeout_ms", None)]), Ok(()));
        assert_eq!(check(Some(16), &[("timeout_ms", Some(MAX_MS))]), Ok(()));
        let threads = check(Some(0), &[]).unwrap_err();
        assert!(threads.contains("`threads = 0`"), "{threads}");
        let ms = check(Some(1), &[("a_ms", Some(1)), ("b_ms", Some(MAX_MS + 1))]).unwrap_err();
        assert_eq!(ms, "`b_ms` is 600001: milliseconds, from 1 to 600000");
    }
}
