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
