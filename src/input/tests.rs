use super::*;
use std::sync::mpsc;
use std::time::Duration;

/// `f`'s result, or a failed test if it has not returned within 10 s (a read that blocks
/// fails the test instead of hanging it).
fn within_10s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(Duration::from_secs(10))
        .expect("the read returned within 10 s")
}

fn read_within_10s(path: &Path, kind: Kind) -> Result<Vec<u8>, InputError> {
    let path = path.to_owned();
    within_10s(move || read(&path, kind))
}

fn folder() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

#[test]
fn a_regular_file_at_the_bound_is_read_whole() {
    let dir = folder();
    let path = dir.path().join("session.json");
    let bound = usize::try_from(Kind::Session.bound()).unwrap();
    std::fs::write(&path, vec![b'x'; bound]).unwrap();
    let bytes = read_within_10s(&path, Kind::Session).unwrap();
    assert_eq!(bytes.len(), bound);
    assert!(bytes.capacity() <= bound, "{}", bytes.capacity());
}

#[test]
fn one_byte_over_the_bound_is_an_error_naming_the_bound_and_the_file() {
    let dir = folder();
    let path = dir.path().join("session.json");
    std::fs::write(
        &path,
        vec![b'x'; usize::try_from(Kind::Session.bound()).unwrap() + 1],
    )
    .unwrap();
    let error = read_within_10s(&path, Kind::Session).unwrap_err();
    assert!(matches!(error.problem, Problem::TooLarge { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.starts_with(&path.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("more than 65536 bytes (64 KiB), the most a session file may hold"),
        "{message}"
    );
}

#[test]
fn dev_zero_is_refused_as_a_character_device_for_every_kind() {
    for kind in Kind::ALL {
        let error = read_within_10s(Path::new("/dev/zero"), kind).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("/dev/zero: is a character device, not a regular file"),
            "{message}"
        );
        assert!(message.contains(kind.name()), "{message}");
    }
}

#[test]
fn a_symbolic_link_to_dev_zero_is_refused_as_what_it_leads_to() {
    let dir = folder();
    let link = dir.path().join("case.toml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let error = read_within_10s(&link, Kind::Case).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("is a character device, not a regular file"),
        "{error}"
    );
}

#[test]
fn a_fifo_with_no_writer_is_refused_without_blocking() {
    let dir = folder();
    let fifo = dir.path().join("adapter.toml");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let error = read_within_10s(&fifo, Kind::AdapterSpec).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("is a FIFO, not a regular file, and an adapter.toml is read from a regular file only: save it to a file"),
        "{message}"
    );
}

#[test]
fn a_fifo_for_a_capture_says_to_pipe_it_on_standard_input() {
    let dir = folder();
    let fifo = dir.path().join("capture");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let error = read_within_10s(&fifo, Kind::Capture).unwrap_err();
    assert!(
        error.to_string().contains("pipe it on standard input"),
        "{error}"
    );
}

#[test]
fn a_folder_is_refused_as_a_folder() {
    let dir = folder();
    let error = read_within_10s(dir.path(), Kind::Report).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("is a folder, not a regular file"),
        "{error}"
    );
}

#[test]
fn a_missing_file_says_so_and_is_told_apart() {
    let dir = folder();
    let path = dir.path().join("missing.toml");
    let error = read_within_10s(&path, Kind::Baseline).unwrap_err();
    assert!(error.is_not_found());
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}: cannot read: ", path.display())),
        "{error}"
    );
}

#[test]
fn text_that_is_not_utf8_names_the_byte() {
    let dir = folder();
    let path = dir.path().join("case.toml");
    std::fs::write(&path, b"ab\xffcd").unwrap();
    let error = read_to_string(&path, Kind::Case).unwrap_err();
    assert!(
        error.to_string().contains("is not UTF-8 text (at byte 2)"),
        "{error}"
    );
    std::fs::write(&path, "summary = \"é\"").unwrap();
    assert_eq!(
        read_to_string(&path, Kind::Case).unwrap(),
        "summary = \"é\""
    );
}

/// A stream that never ends, counting what it gave.
struct Endless {
    given: u64,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(0);
        self.given += buf.len() as u64;
        Ok(buf.len())
    }
}

#[test]
fn a_stream_that_never_ends_stops_one_chunk_past_the_bound() {
    let mut endless = Endless { given: 0 };
    let problem = bounded(&mut endless, 0, Kind::Session).unwrap_err();
    assert!(matches!(
        problem,
        Problem::TooLarge {
            kind: Kind::Session
        }
    ));
    assert!(
        endless.given <= Kind::Session.bound() + CHUNK as u64,
        "{}",
        endless.given
    );
}

#[test]
fn a_stream_of_unknown_size_grows_the_buffer_no_further_than_the_bound() {
    let bound = Kind::Session.bound();
    let stream = std::io::repeat(7).take(bound);
    let bytes = bounded(stream, 0, Kind::Session).unwrap();
    assert_eq!(bytes.len() as u64, bound);
    assert!(bytes.capacity() as u64 <= bound, "{}", bytes.capacity());
    let over = std::io::repeat(7).take(bound + 1);
    assert!(matches!(
        bounded(over, 0, Kind::Session),
        Err(Problem::TooLarge { .. })
    ));
}
