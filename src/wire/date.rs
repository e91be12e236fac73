//! Fills the one placeholder of header values, `$http_date+N` ([`crate::case::http`]), when a
//! response is built (a `Retry-After` date must be in the future when it is sent).

use crate::case::http::{MAX_HTTP_DATE_OFFSET, http_date_offset};
use std::time::{Duration, SystemTime};

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
        let far = fill("$http_date+300000000000", now);
        assert_eq!(
            far,
            fill(&format!("$http_date+{MAX_HTTP_DATE_OFFSET}"), now)
        );
    }
}
