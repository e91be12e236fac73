//! STUB: an incremental SSE reader.
