//! The one placeholder of header values: `$http_date+N`, an HTTP-date N seconds after the
//! response is built (for `Retry-After` as a date, which must be in the future when it is sent).

use std::time::{Duration, SystemTime};

/// The placeholder's prefix.
pub const HTTP_DATE: &str = "$http_date";

/// The largest N a case may give: a year. Case loading rejects more (a far date is no use
/// for `Retry-After`, and one past year 9999 cannot be written as an HTTP-date at all).
pub const MAX_HTTP_DATE_OFFSET: u64 = 365 * 24 * 3600;

/// N, when `value` is `$http_date+N` (any N; loading bounds it).
pub fn http_date_offset(value: &str) -> Option<u64> {
    value
        .strip_prefix(HTTP_DATE)?
        .strip_prefix('+')?
        .parse()
        .ok()
}

/// `value` with its placeholder filled, or as it is.
pub fn fill(value: &str, now: SystemTime) -> String {
    match http_date_offset(value) {
        // Bounded again here, so a case that skipped validation cannot panic the formatter.
        Some(seconds) => {
            httpdate::fmt_http_date(now + Duration::from_secs(seconds.min(MAX_HTTP_DATE_OFFSET)))
        }
        None => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_a_date_the_given_seconds_ahead_and_leaves_other_values() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(fill("$http_date+0", now), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(fill("$http_date+2", now), "Sun, 06 Nov 1994 08:49:39 GMT");
        assert_eq!(fill("1", now), "1");
        assert_eq!(http_date_offset("$http_date"), None);
        assert_eq!(http_date_offset("$http_date+x"), None);
        let far = fill("$http_date+300000000000", now);
        assert_eq!(
            far,
            fill(&format!("$http_date+{MAX_HTTP_DATE_OFFSET}"), now)
        );
    }
}
