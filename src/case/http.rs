//! What the case format knows of HTTP that the wire server follows too: which statuses carry a
//! body, and the one placeholder of header values, `$http_date+N` (an HTTP-date N seconds
//! after the response is built, for `Retry-After` as a date). Case loading checks replies
//! against them; the wire server writes by them.

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

/// 1xx, 204 and 304 responses carry no body and no Content-Length (RFC 9110 §8.6): bytes after
/// their head would be read as the start of the next response.
pub fn has_body(status: u16) -> bool {
    !(status < 200 || status == 204 || status == 304)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_is_the_number_after_the_plus() {
        assert_eq!(http_date_offset("$http_date+2"), Some(2));
        assert_eq!(http_date_offset("$http_date"), None);
        assert_eq!(http_date_offset("$http_date+x"), None);
        assert_eq!(http_date_offset("2"), None);
    }

    #[test]
    fn informational_no_content_and_not_modified_carry_no_body() {
        assert!([100, 101, 204, 304].into_iter().all(|s| !has_body(s)));
        assert!([200, 202, 400, 503].into_iter().all(has_body));
    }
}
