//! Sample outputs in the crate docs come from the program: the careless fixture client's summary
//! in `src/lib.rs` ("Reports") is the line its real run prints, which `tests/fixtures_run.rs`
//! keeps in `tests/fixtures/careless-client/expected-output.txt`. When a case is added, the
//! fixture is re-blessed and this test names the doc line to update.

fn lines_starting(text: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start_matches("//! ").strip_prefix(prefix))
        .map(|rest| format!("{prefix}{rest}"))
        .collect()
}

#[test]
fn the_crate_docs_show_the_careless_clients_real_summary() {
    let docs = std::fs::read_to_string("src/lib.rs").unwrap();
    let run =
        std::fs::read_to_string("tests/fixtures/careless-client/expected-output.txt").unwrap();
    for prefix in [
        "mcp-error-layers: careless-client, ",
        "mcp-error-layers: accepted by the baseline: ",
    ] {
        let printed = lines_starting(&run, prefix);
        let shown = lines_starting(&docs, prefix);
        assert!(
            !printed.is_empty(),
            "the fixture's run prints no `{prefix}` line"
        );
        assert_eq!(
            shown, printed,
            "src/lib.rs shows {shown:?}; the careless client's run prints {printed:?}"
        );
    }
}
