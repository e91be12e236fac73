//! The one placeholder of header values: `$http_date+N`, an HTTP-date N seconds after the
//! response is built (for `Retry-After` as a date, which must be in the future when it is sent).

use std::time::{Duration, SystemTime};

/// The placeholder's prefix.
pub const HTTP_DATE: &str = "$http_date";

/// N, when `value` is `$http_date+N`.
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
        Some(seconds) => httpdate::fmt_http_date(now + Duration::from_secs(seconds)),
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
    }
}
