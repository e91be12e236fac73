//! `record` and `import` on the command line print what docs/record-import.md shows: the
//! samples there are run here as they are written (the import of the committed HAR fixture in
//! full, the file it writes, the errors; `record`'s first and last lines against a case served
//! by `serve`, since the lines between come from a real server: `tests/record_import.rs`
//! checks those).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code)] // `bin` is for the other test files
#[path = "support/bin.rs"]
mod support;

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/record-import.md");
const HAR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/recording/fastmcp-1.30.0.mitmproxy-11.0.2.har"
);

/// The lines of the first ```` ```LANG ```` block after `marker` in docs/record-import.md.
fn block_after(marker: &str, lang: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(DOC).unwrap();
    let start = doc
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker:?} in the doc"));
    let fence = format!("```{lang}\n");
    let open = start + doc[start..].find(&fence).expect("a block follows") + fence.len();
    let close = open + doc[open..].find("```").expect("the block closes");
    doc[open..close].lines().map(str::to_owned).collect()
}

/// The program's arguments on a sample's `$ mcp-error-layers ...` line.
fn arguments(line: &str) -> Vec<String> {
    let rest = line
        .strip_prefix("$ mcp-error-layers ")
        .expect("a command line");
    rest.split(' ').map(str::to_owned).collect()
}

fn program(dir: &Path, args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `127.0.0.1:44855` → `127.0.0.1:PORT`: what changes from run to run.
fn without_ports(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("127.0.0.1:") {
        let end = at + "127.0.0.1:".len();
        out.push_str(&rest[..end]);
        out.push_str("PORT");
        rest = rest[end..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

#[test]
fn the_docs_show_what_import_prints_and_the_case_it_writes() {
    let dir = support::temp_dir("record-import-import");
    std::fs::copy(HAR, dir.as_path().join("capture.har")).unwrap();
    let sample = block_after("The HAR that mitmproxy 11.0.2 wrote", "text");
    let run = program(dir.as_path(), &arguments(&sample[0]));
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(lines(&run.stdout), sample[1..]);
    let case = block_after("A case imported from the fixture", "toml");
    let written = std::fs::read_to_string(dir.as_path().join("imported/002-fail.toml")).unwrap();
    assert_eq!(written.lines().collect::<Vec<_>>(), case);
}

#[test]
fn the_docs_show_the_error_for_a_broken_har() {
    let dir = support::temp_dir("record-import-broken-har");
    let sample = block_after("A file that is not JSON, or not a HAR", "text");
    assert_eq!(sample[0], "$ cat broken.har");
    std::fs::write(dir.as_path().join("broken.har"), format!("{}\n", sample[1])).unwrap();
    let run = program(dir.as_path(), &arguments(&sample[2]));
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(lines(&run.stderr), sample[3..]);
}

#[test]
fn the_docs_show_the_refusal_of_an_upstream_off_this_machine() {
    let dir = support::temp_dir("record-import-refusal");
    let sample = block_after("Anything else is refused before anything", "text");
    let run = program(dir.as_path(), &arguments(&sample[0]));
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(lines(&run.stderr), sample[1..]);
    assert!(
        !dir.as_path().join("recorded").exists(),
        "nothing is written"
    );
}

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends one `tools/call` POST to `url` and reads the whole answer.
fn post_tool_call(url: &str, id: u32) -> String {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap());
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"synthetic","arguments":{{}}}}}}"#
    );
    let mut stream = TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nconnection: close\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn record_prints_the_first_and_last_lines_the_docs_show() {
    let dir = support::temp_dir("record-import-record");
    let serve = Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .args(["serve", "tool/success"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut serve = Running(serve);
    let mut first = String::new();
    // Kept open to the end: `serve` logs each exchange, and a closed pipe would stop it.
    let mut serve_out = BufReader::new(serve.0.stdout.take().unwrap());
    serve_out.read_line(&mut first).unwrap();
    let upstream = first.trim().rsplit(' ').next().unwrap().to_owned();
    let sample = block_after("Recording the FastMCP server", "text");
    let args: Vec<String> = arguments(&sample[0])
        .into_iter()
        .map(|a| match a.starts_with("http://") {
            true => upstream.clone(),
            false => a,
        })
        .collect();
    let record = Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .current_dir(dir.as_path())
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut record = Running(record);
    let mut stdout = BufReader::new(record.0.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(without_ports(line.trim_end()), without_ports(&sample[1]));
    let listen = line.split(' ').nth(2).unwrap().to_owned();
    for id in [1, 2] {
        let answer = post_tool_call(&listen, id);
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(answer.contains(&format!("\"id\":{id}")), "{answer}");
    }
    // --max-exchanges 2: it stops by itself, stdin still open.
    let started = Instant::now();
    while record.0.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "record did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(
        rest.lines().last(),
        sample.last().map(String::as_str),
        "{rest}"
    );
    let _ = record.0.stdin.take().map(|mut stdin| stdin.flush());
    drop(serve);
    drop(serve_out);
}

#[test]
fn the_readme_shows_the_import_sample_of_the_docs() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let sample = block_after("The HAR that mitmproxy 11.0.2 wrote", "text");
    let block = format!("```text\n{}\n```\n", sample.join("\n"));
    assert!(
        readme.contains(&block),
        "README.md's import sample differs from docs/record-import.md's (which the program printed):\n{block}"
    );
}

/// `import` reads at most 256 MiB, counted as read: a device named as the file is refused by its
/// type, and an endless pipe on standard input (`-`) ends with an error naming the bound instead
/// of growing memory.
#[test]
fn import_stops_at_the_bound_on_a_device_and_an_endless_pipe() {
    let dir = support::temp_dir("record-import-endless");
    let wanted = "more than 268435456 bytes (256 MiB), the most a HAR file may hold";
    let device = program(dir.as_path(), &["import".into(), "/dev/zero".into()]);
    assert_eq!(device.status.code(), Some(2));
    let error = String::from_utf8_lossy(&device.stderr);
    assert!(
        error.contains("/dev/zero: is a character device, not a regular file"),
        "{error}"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .current_dir(dir.as_path())
        .args(["import", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Whitespace without end: valid JSON so far, so only the bound can stop it.
    let feeder = std::thread::spawn(move || {
        let spaces = vec![b' '; 1 << 20];
        while stdin.write_all(&spaces).is_ok() {}
    });
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains(wanted), "{error}");
    assert!(
        !dir.as_path().join("imported").exists(),
        "nothing is written"
    );
}

/// An `--out` that cannot be written is an error before anything is read or recorded, not a
/// run that skips every case and exits 0.
#[test]
fn an_unusable_out_folder_is_an_error_naming_it() {
    let dir = support::temp_dir("record-import-bad-out");
    std::fs::copy(HAR, dir.as_path().join("capture.har")).unwrap();
    std::fs::write(dir.as_path().join("a-file"), "").unwrap();
    let run = program(
        dir.as_path(),
        &["import", "capture.har", "--out", "a-file/cases"].map(String::from),
    );
    assert_eq!(run.status.code(), Some(2));
    let error = String::from_utf8_lossy(&run.stderr);
    assert!(
        error.contains("--out a-file/cases: cannot write cases there"),
        "{error}"
    );
}
