//! What a case-file check reports when a key is wrong, and the pieces every check shares: the
//! bound of a duration, the compacting of a JSON text. A module of its own so that the model's
//! parts (stdio, tasks) and the checks of the whole file use it without using each other.

use serde_json::Value;

/// A problem: the key path and what is wrong with it.
pub type Problem = (String, String);

/// The bound of every duration key of a case file (`timeout_ms`, `delay_ms`, `event_gap_ms`,
/// `min_gaps_ms`, an event's `retry`): ten minutes. A case that needs longer tests patience, not error handling, and
/// an unbounded one could keep a run from ever ending.
pub const MAX_DURATION_MS: u64 = 600_000;

/// `Err` naming `key` when `ms` is past [`MAX_DURATION_MS`].
pub(super) fn bounded(key: &str, ms: u64) -> Result<(), Problem> {
    if ms > MAX_DURATION_MS {
        let msg = format!(
            "{ms} is more than {MAX_DURATION_MS} (10 minutes), the bound of every duration key"
        );
        return Err((key.into(), msg));
    }
    Ok(())
}

/// Parses a JSON text and replaces it with its compact form.
pub(super) fn json_text(text: &mut String) -> Result<Value, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        format!("not a JSON text: {e} (use `raw` or `data_raw` to send invalid JSON on purpose)")
    })?;
    *text = value.to_string();
    Ok(value)
}
