//! Panics the harness catches on purpose, kept off stderr.
//!
//! insta reports a new or changed snapshot by panicking; the harness catches that panic and
//! turns it into the test's failure message. The panic hook runs before the catch, though, so
//! each of those panics printed `thread … panicked at` and, with `RUST_BACKTRACE=1`, a backtrace
//! of some 60 lines: a client crate's first run printed one per case. The hook installed here
//! stays silent for a panic inside [`quietly`] on the thread that runs it, and hands every other
//! panic (the adapter's own, one on another trial's thread, one after the run) to the hook that
//! was there before, so nothing else changes.
//!
//! The hook is process-wide and libtest runs trials on several threads at once, so swapping
//! hooks around each assertion would silence other threads' panics in the meantime; a
//! thread-local flag read by one installed hook does not.

use std::cell::Cell;
use std::sync::Once;

thread_local! {
    /// Whether this thread is inside [`quietly`].
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`; a panic inside it, on this thread, is not printed by the panic hook (it still
/// unwinds, for the caller to catch).
pub(crate) fn quietly<R>(f: impl FnOnce() -> R) -> R {
    install();
    let _quiet = Quiet::enter();
    f()
}

/// Sets the flag and, when dropped (on return or while unwinding), puts back what it was.
struct Quiet {
    was: bool,
}

impl Quiet {
    fn enter() -> Self {
        Quiet {
            was: QUIET.replace(true),
        }
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        QUIET.set(self.was);
    }
}

/// Wraps the current panic hook, once per process.
fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // `try_with`: a panic while this thread's locals are being torn down is not quiet.
            if !QUIET.try_with(Cell::get).unwrap_or(false) {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::quietly;
    use std::panic::catch_unwind;

    #[test]
    fn the_flag_is_cleared_after_a_caught_panic_and_nests() {
        let caught = catch_unwind(|| quietly(|| panic!("caught on purpose")));
        assert!(caught.is_err());
        assert!(!super::QUIET.get(), "left quiet after the unwind");
        quietly(|| {
            quietly(|| ());
            assert!(super::QUIET.get(), "an inner quietly ended the outer one");
        });
        assert!(!super::QUIET.get());
    }
}
