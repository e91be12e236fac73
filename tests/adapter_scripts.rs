//! The Python scripts beside the SDK adapters (`harness/adapters/matrix.py`, which builds the
//! README's matrix, and `adapters.py`, the list of adapters) have their own unit tests in
//! `harness/adapters/test_scripts.py` (with the contract modules': `test_contract.mjs` for
//! contract.mjs); this runs them under `cargo test`. Python 3.11 (for
//! `tomllib`) is what the SDK rows need anyway; without it the test says so and fails.

use std::process::Command;

#[test]
fn the_matrix_and_adapter_list_scripts_pass_their_tests() {
    let root = env!("CARGO_MANIFEST_DIR");
    let done = Command::new("python3")
        .args(["-m", "unittest", "-v", "harness/adapters/test_scripts.py"])
        .current_dir(root)
        .output()
        .expect("python3 runs (the SDK rows and .ci/run need it too)");
    let log = String::from_utf8_lossy(&done.stderr);
    assert!(
        done.status.success(),
        "harness/adapters/test_scripts.py failed:\n{log}"
    );
    assert!(log.contains("Ran "), "no test ran:\n{log}");
}

#[test]
fn the_sweep_script_passes_its_tests() {
    let done = Command::new("python3")
        .args(["-m", "unittest", "-v", "harness/adapters/test_sweep.py"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs (the SDK rows and .ci/run need it too)");
    let log = String::from_utf8_lossy(&done.stderr);
    assert!(
        done.status.success(),
        "harness/adapters/test_sweep.py failed:\n{log}"
    );
    assert!(log.contains("Ran "), "no test ran:\n{log}");
}

#[test]
fn the_node_contract_module_passes_its_tests() {
    let done = Command::new("node")
        .args(["--test", "harness/adapters/test_contract.mjs"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("node runs (the TypeScript SDK rows and .ci/run need it too)");
    let log = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "harness/adapters/test_contract.mjs failed:\n{log}"
    );
    assert!(log.contains("# pass 13\n"), "not every test ran:\n{log}");
}

/// The Go contract module's tests (`go test` in harness/adapters/contract-go), with the module and
/// build caches where the Go rows keep theirs (`target/sdk-go`). A machine without `go` skips them
/// with a note, unless `MCP_ERROR_LAYERS_REQUIRE_SDKS` is set (CI): then they fail.
#[test]
fn the_go_contract_module_passes_its_tests() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| root.join("target"), |dir| root.join(dir))
        .join("sdk-go");
    let required = std::env::var_os("MCP_ERROR_LAYERS_REQUIRE_SDKS")
        .is_some_and(|v| !v.is_empty() && v != "0");
    let done = match Command::new("go")
        .args(["test", "-trimpath", "-count=1", "-v", "./..."])
        .current_dir(root.join("harness/adapters/contract-go"))
        .env("GOMODCACHE", target.join("mod"))
        .env("GOCACHE", target.join("cache"))
        .env("GOFLAGS", "-mod=readonly")
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .output()
    {
        Ok(done) => done,
        Err(error) if !required => {
            eprintln!("note: no Go here, so the Go contract's tests did not run: `go`: {error}");
            return;
        }
        Err(error) => panic!("`go` runs (MCP_ERROR_LAYERS_REQUIRE_SDKS is set): {error}"),
    };
    let log = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "harness/adapters/contract-go failed:\n{log}\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let passed = log
        .lines()
        .filter(|line| line.starts_with("--- PASS"))
        .count();
    assert_eq!(passed, 12, "not every test ran:\n{log}");
}

/// The Java contract module (`harness/adapters/contract-java`, every JVM row's) passes its JUnit 5
/// tests: `mvn test` on its own, the local repository under `target/sdk-maven/m2` as the JVM
/// rows' set-up keeps it (so a machine that keeps `target/` downloads nothing again), built into
/// `target/sdk-maven/contract-test`. Skipped with a message where `mvn` or `java` is missing;
/// with `MCP_ERROR_LAYERS_REQUIRE_SDKS` set that fails instead, as the SDK rows do.
#[test]
fn the_java_contract_module_passes_its_tests() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let required = std::env::var_os("MCP_ERROR_LAYERS_REQUIRE_SDKS")
        .is_some_and(|v| !v.is_empty() && v != "0");
    for tool in ["java", "mvn"] {
        if let Err(error) = Command::new(tool).arg("-version").output() {
            assert!(
                !required,
                "{tool} cannot run ({error}) and MCP_ERROR_LAYERS_REQUIRE_SDKS is set"
            );
            eprintln!(
                "skipped: {tool} cannot run ({error}): the Java contract's tests need a JDK and Maven"
            );
            return;
        }
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| root.join("target"), |dir| root.join(dir));
    let done = Command::new("mvn")
        .args(["-B", "--no-transfer-progress"])
        .arg(format!(
            "-Dmaven.repo.local={}",
            target.join("sdk-maven/m2").display()
        ))
        .arg(format!(
            "-Dmel.build={}",
            target.join("sdk-maven/contract-test").display()
        ))
        .args(["-f", "harness/adapters/contract-java/pom.xml", "test"])
        .current_dir(root)
        .output()
        .expect("mvn runs");
    let log = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "harness/adapters/contract-java's tests failed:\n{log}"
    );
    assert!(
        log.contains("Tests run: 14, Failures: 0, Errors: 0, Skipped: 0"),
        "not every test of harness/adapters/contract-java ran:\n{log}"
    );
}

/// matrix.py leaves a row's racy cases out of its layer fidelity, so it keeps its own copy of
/// each outcome's layer (`LAYER_OF`): it must be the crate's, outcome for outcome.
#[test]
fn the_matrix_scripts_layers_are_the_crates() {
    use mcp_error_layers::{Layer, Outcome};
    let done = Command::new("python3")
        .args([
            "-c",
            "import json, sys; sys.path.insert(0, 'harness/adapters'); import matrix; \
             print(json.dumps(matrix.LAYER_OF))",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs");
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let table: std::collections::BTreeMap<String, Option<String>> =
        serde_json::from_slice(&done.stdout).expect("LAYER_OF prints as JSON");
    let crates: std::collections::BTreeMap<String, Option<String>> = Outcome::ALL
        .iter()
        .map(|outcome| {
            // A success names no layer: layer fidelity compares failures' layers (src/fidelity.rs).
            let layer = match (outcome, outcome.layer()) {
                (Outcome::ToolSuccess, _) => None,
                (_, Layer::Transport) => Some("transport"),
                (_, Layer::Protocol) => Some("protocol"),
                (_, Layer::Interaction) => Some("interaction"),
                (_, Layer::Application) => Some("application"),
                (_, Layer::Unknown) => Some("unknown"),
            };
            (outcome.as_str().to_owned(), layer.map(str::to_owned))
        })
        .collect();
    assert_eq!(table, crates, "harness/adapters/matrix.py LAYER_OF");
}
